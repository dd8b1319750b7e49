import Foundation
import Testing

/// saucelabs/isign's test files (Apache-2.0), read where they are, in `../shared/fixtures/isign/`
/// (see its README): `Test.app` (built and signed by Xcode 7.2), `test.mobileprovision` and its
/// plist, `NotAnApp.ipa`. The repository holds none of them; tests that read them are the extra
/// check on a real build beside the generated shapes (`XcodeShapedApp`), and skip without
/// `../shared`:
///
/// ```swift
/// @Suite(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
/// ```
public enum IsignFixture {
    /// The folder inside the shared folder.
    public static let root = "fixtures/isign"
    /// The app, relative to `root`.
    public static let app = "Test.app"

    /// Whether the shared folder holds isign's files.
    public static var isAvailable: Bool { SharedFolder.has("\(root)/\(app)") }

    /// Why a test that needs them skips.
    public static var skipNote: Comment { SharedFolder.skipNote(root) }

    /// The absolute path of `relativePath` (e.g. `Test.app/Info.plist`, `NotAnApp.ipa`).
    public static func path(_ relativePath: String) -> String {
        SharedFolder.path("\(root)/\(relativePath)")
    }

    /// The bytes of `relativePath`.
    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        try SharedFolder.bytes("\(root)/\(relativePath)")
    }

    /// The app folder's URL.
    public static var appURL: URL { URL(fileURLWithPath: path(app)) }

    /// Every file of the app, by path inside the bundle, with its zip mode.
    public static func files() throws -> [(String, [UInt8], UInt16)] {
        let root = path(app)
        var files: [(String, [UInt8], UInt16)] = []
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isFolder)
            guard !isFolder.boolValue else { continue }
            let executable = relative == "isignTestApp" || relative.hasSuffix(".dylib")
            files.append((relative, try Fixtures.bytesAt(root + "/" + relative), executable ? 0o100755 : 0o100644))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// The app zipped as `Test.ipa` in `scratch`, with `change` applied to its files first.
    public static func ipa(
        in scratch: ScratchDirectory, _ change: (inout [String: [UInt8]]) throws -> Void = { _ in }
    ) throws -> String {
        let original = try files()
        var contents = Dictionary(uniqueKeysWithValues: original.map { ($0.0, $0.1) })
        try change(&contents)
        var zip = ZipBuilder()
        zip.directory("Payload/")
        zip.directory("Payload/Test.app/")
        let modes = Dictionary(uniqueKeysWithValues: original.map { ($0.0, $0.2) })
        for (path, bytes) in contents.sorted(by: { $0.key < $1.key }) {
            zip.file("Payload/Test.app/" + path, bytes, mode: modes[path] ?? 0o100644)
        }
        return try scratch.write("Test.ipa", zip.bytes())
    }
}
