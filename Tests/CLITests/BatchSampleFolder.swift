import Foundation
import TestSupport

/// A folder of IPAs as batch users have them: good apps, one with a warning, one that fails its
/// checks, a corrupt and a hostile file, a subfolder, and files that are not inputs.
struct BatchSampleFolder {
    let scratch: ScratchDirectory
    let folder: String

    /// In the order the batch reports them, with `ipawrap check`'s verdict.
    static let inputs: [(name: String, status: String, exitCode: Int32)] = [
        ("Broken.ipa", "failed", 65),
        ("Good.ipa", "ok", 0),
        ("NoIcon.ipa", "failed", 1),
        ("Slip.ipa", "failed", 65),
        ("Warn.ipa", "findings", 0),
        ("team/Deep.ipa", "ok", 0),
    ]

    init(_ label: String = "cli-batch") throws {
        scratch = try ScratchDirectory(label)
        folder = scratch.path("apps")
        try write("Good.ipa", Self.good("Good"))
        var warn = Self.builder("Warn")
        warn.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["Gone"]]]
        warn.info["CFBundleIconFiles"] = ["AppIcon60x60"]
        try write("Warn.ipa", warn.bytes())
        try write("NoIcon.ipa", IPABuilder(appName: "NoIcon").bytes())
        let good = try Self.good("Broken")
        try write("Broken.ipa", Array(good.prefix(good.count - 30)))
        try write("Slip.ipa", HostileArchives.all.first { $0.name == "zip-slip-dotdot" }?.bytes ?? [])
        try write("team/Deep.ipa", Self.good("Deep"))
        try write("README.txt", Array("not an app".utf8))
        try write(".hidden.ipa", Self.good("Hidden"))
    }

    /// An app named `name` with an icon. Every app has the bundle ID of the committed test
    /// profile (com.example.sample), so that only what a test changes gives findings.
    static func builder(_ name: String) -> IPABuilder {
        var builder = IPABuilder(appName: name)
        builder.addPrimaryIcon()
        return builder
    }

    static func good(_ name: String) throws -> [UInt8] {
        try builder(name).bytes()
    }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try scratch.write("apps/" + name, bytes)
    }

    func path(_ name: String) -> String {
        folder + "/" + name
    }

    /// The result lines of a text batch (the summary line dropped).
    static func resultLines(_ stdout: String) -> [String] {
        stdout.split(separator: "\n").map(String.init).filter { !$0.contains(" inputs: ") && !$0.contains(" input: ") }
    }

    static func jsonLines(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw BatchTestError("not a JSON object: \(line)")
            }
            return object
        }
    }
}

struct BatchTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
