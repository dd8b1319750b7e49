import ArgumentParser
import Installation

/// `--device UDID` (repeatable) and `--os VERSION`: the device the install checks judge for, in
/// `verify`, `check`, `inspect`, `wrap` and `sign` alike.
struct InstallOptionGroup: ParsableArguments {
    @Option(name: .customLong("device"), help: ArgumentHelp(
        "A device the app must install on: its development or ad hoc profile must list this UDID. Repeatable.",
        valueName: "udid"),
        transform: InstallOptionGroup.udid)
    var devices: [String] = []

    @Option(name: .customLong("os"), help: ArgumentHelp(
        "The iOS version the app must install on (MinimumOSVersion, and arm64 code from iOS 11).", valueName: "version"),
        transform: InstallOptionGroup.osVersion)
    var osVersion: InstallOptions.OSVersion?

    var options: InstallOptions { InstallOptions(devices: devices, osVersion: osVersion) }

    /// A UDID: 25 (`00008030-001A35E01E68802E`) or 40 hexadecimal characters, with dashes.
    static func udid(_ text: String) throws -> String {
        let hexDigits = text.filter { $0 != "-" }
        guard (24...40).contains(hexDigits.count), hexDigits.allSatisfy(\.isHexDigit), !text.hasPrefix("-") else {
            throw ValidationError("expects a device UDID (24 to 40 hexadecimal digits, dashes allowed), got '\(text)'")
        }
        return text
    }

    static func osVersion(_ text: String) throws -> InstallOptions.OSVersion {
        guard let version = InstallOptions.OSVersion(text) else {
            throw ValidationError("expects an iOS version such as 17 or 16.4.1, got '\(text)'")
        }
        return version
    }
}
