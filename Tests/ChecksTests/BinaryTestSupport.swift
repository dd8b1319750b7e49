@testable import Checks
import Foundation
import Policy
import PropertyList
import Reporting
import Testing
import TestSupport
import ToolData

/// Builds IPAs with generated Mach-O files and runs the whole inspection on them, the way the
/// command line does (the catalog and toolkit version come from the checkout's Templates).
enum BinaryFixture {
    static let tool = Report.Tool(name: "ipawrap", version: "test")

    /// Inspects the IPA `builder` describes; `toolkit` is `--toolkit-version` (nil: Templates).
    static func report(_ builder: IPABuilder, toolkit: String? = "20.10.5") throws -> Report {
        try report(bytes: builder.bytes(), toolkit: toolkit)
    }

    static func report(bytes: [UInt8], toolkit: String? = "20.10.5") throws -> Report {
        let scratch = try ScratchDirectory("binchecks")
        let path = try scratch.write("App.ipa", bytes)
        return try Inspector.inspect(path: path, toolData: shippedData(toolkit: toolkit), tool: tool).report
    }

    /// The checkout's Templates, with `toolkit` as `--toolkit-version` (nil: `toolkit.json`'s).
    static func shippedData(toolkit: String? = nil) throws -> ToolData {
        try RepositoryTemplates.toolData(toolkitVersion: toolkit)
    }

    /// An app whose main executable is configured by `configure`.
    static func app(minimumOS: String = "15.0", _ configure: (inout MachOBuilder) -> Void = { _ in }) -> IPABuilder {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.info["MinimumOSVersion"] = .string(minimumOS)
        builder.executable = IPABuilder.executable(minimumOS: minimumOS, configure: configure)
        return builder
    }

    /// A framework bundle `Frameworks/<name>.framework` with a binary Info.plist giving `version`
    /// (nil leaves CFBundleShortVersionString out) and a dylib configured by `configure`.
    static func framework(
        _ name: String, version: String?, under parent: String = "", _ configure: (inout MachOBuilder) -> Void = { _ in }
    ) -> IPABuilder.Nested {
        var info = IPABuilder.infoPlist(name: name, bundleIdentifier: "com.vendor.\(name)", build: "1", packageType: "FMWK")
        info["CFBundleDisplayName"] = nil
        info["CFBundleShortVersionString"] = version.map { .string($0) }
        let executable = IPABuilder.executable(fileType: 6) { builder in
            builder.installName = MachOBuilder.Dylib("@rpath/\(name).framework/\(name)")
            configure(&builder)
        }
        return IPABuilder.Nested(path: parent + "Frameworks/\(name).framework", info: info, executable: executable)
    }

    /// Renames a `__TEXT` section in a built image (the 16-byte `sectname` of its `section_64`),
    /// to place the builder's C strings in `__objc_classname` or `__objc_methname`.
    static func renameSection(_ bytes: inout [UInt8], from old: String, to new: String) {
        func field(_ text: String) -> [UInt8] { Array(text.utf8) + Array(repeating: 0, count: 16 - text.utf8.count) }
        let pattern = field(old) + field("__TEXT")
        guard let start = (0...(bytes.count - pattern.count)).first(where: { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) })
        else {
            Issue.record("no section \(old) in the image")
            return
        }
        bytes.replaceSubrange(start..<(start + 16), with: field(new))
    }

    /// An executable whose C strings are put in the section `section`.
    static func executable(stringsIn section: String, _ strings: [String], configure: (inout MachOBuilder) -> Void = { _ in }) -> [UInt8] {
        var bytes = IPABuilder.executable { builder in
            builder.cStrings = strings
            configure(&builder)
        }
        renameSection(&bytes, from: "__cstring", to: section)
        return bytes
    }
}

extension Report {
    func findings(_ code: FindingCode) -> [Finding] {
        findings.filter { $0.code == code.rawValue }
    }

    /// Codes of the binary area only, sorted, for negative assertions.
    var binaryCodes: [String] {
        let codes = Set(FindingCode.binaryCodes.map(\.rawValue))
        return findings.map(\.code).filter { codes.contains($0) }.sorted()
    }
}

extension MachOBuilder.Dylib {
    static let uiKit = MachOBuilder.Dylib("/System/Library/Frameworks/UIKit.framework/UIKit", currentVersion: "6000.0.0")
    static let foundation = MachOBuilder.Dylib("/System/Library/Frameworks/Foundation.framework/Foundation", currentVersion: "2000.0.0")
}
