import Foundation
import PropertyList
import TestSupport

/// A folder like the ones batch users point ipawrap at: good apps, an app with a warning, one
/// that fails its checks, corrupt and hostile files, a subfolder, and files that are not inputs.
struct SampleBatch {
    let scratch: ScratchDirectory
    /// The input folder.
    let folder: String

    /// Names (relative to `folder`) and what `check` must say about each.
    static let expected: [(name: String, status: String, exitCode: Int32, code: String?)] = [
        ("Broken.ipa", "failed", 65, "ARCHIVE_NOT_ZIP"),
        ("Good.ipa", "ok", 0, nil),
        ("NoIcon.ipa", "failed", 1, "ICON_NOT_FOUND"),
        ("Slip.ipa", "failed", 65, "ARCHIVE_UNSAFE_NAME"),
        ("Warn.ipa", "findings", 0, "ICON_REFERENCE_MISSING"),
        ("team/Deep.ipa", "ok", 0, nil),
    ]

    init(_ label: String = "batch") throws {
        scratch = try ScratchDirectory(label)
        folder = scratch.path("apps")
        try write("Good.ipa", Self.good(name: "Good"))
        var warn = Self.builder(name: "Warn")
        // The primary icon names a file that is not there; the search goes on to the next key.
        warn.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["Gone"]]]
        warn.info["CFBundleIconFiles"] = ["AppIcon60x60"]
        try write("Warn.ipa", warn.bytes())
        try write("NoIcon.ipa", IPABuilder(appName: "NoIcon").bytes())
        let good = try Self.good(name: "Broken")
        // Cut short: the end of central directory record is gone.
        try write("Broken.ipa", Array(good.prefix(good.count - 30)))
        let slip = try require(HostileArchives.all.first { $0.name == "zip-slip-dotdot" })
        try write("Slip.ipa", slip.bytes)
        try write("team/Deep.ipa", Self.good(name: "Deep"))
        // Not inputs: another extension, a hidden file, a hidden folder.
        try write("notes.txt", Array("not an app".utf8))
        try write(".partial.ipa", Self.good(name: "Hidden"))
        try write(".cache/Cached.ipa", Self.good(name: "Cached"))
    }

    /// An app named `name` with an icon. Every app has the bundle ID of the committed test
    /// profile (com.example.sample), so that only what a test changes gives findings.
    static func builder(name: String) -> IPABuilder {
        var builder = IPABuilder(appName: name)
        builder.addPrimaryIcon()
        return builder
    }

    static func good(name: String) throws -> [UInt8] {
        try builder(name: name).bytes()
    }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try scratch.write("apps/" + name, bytes)
    }

    func path(_ name: String) -> String {
        folder + "/" + name
    }
}

struct RequireError: Error {}

/// `#require` for a helper that is not a test.
func require<T>(_ value: T?) throws -> T {
    guard let value else { throw RequireError() }
    return value
}
