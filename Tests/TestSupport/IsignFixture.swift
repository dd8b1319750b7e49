import Foundation

/// isign's `Test.app` (Tests/Fixtures/isign, built and signed by Xcode 7.2), zipped as an IPA for
/// the verifier's and the signer's tests.
public enum IsignFixture {
    public static let folder = "isign/Test.app"

    /// Every file of the fixture, by path inside the bundle, with its zip mode.
    public static func files() throws -> [(String, [UInt8], UInt16)] {
        let root = Fixtures.path(folder)
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

    /// The fixture zipped as `Test.ipa` in `scratch`, with `change` applied to its files first.
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
