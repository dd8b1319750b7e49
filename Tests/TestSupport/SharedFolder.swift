import Foundation
import Testing

/// `../shared` beside the package root: real third-party files (`fixtures/`, see its README) and
/// independent checkers (`oracles/`) that the repository does not hold. CI's clone has it beside
/// it; elsewhere the tests that need it skip, naming what is missing.
///
/// ```swift
/// @Test(.enabled(if: SharedFolder.has("fixtures/isign/Test.app"), SharedFolder.skipNote("fixtures/isign/Test.app")))
/// ```
public enum SharedFolder {
    /// `<package root>/../shared`, resolved.
    public static let url: URL = Fixtures.packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared").standardizedFileURL

    /// The absolute path of `relativePath` inside the shared folder.
    public static func path(_ relativePath: String) -> String {
        url.appendingPathComponent(relativePath).path
    }

    /// Whether `relativePath` exists in the shared folder.
    public static func has(_ relativePath: String) -> Bool {
        FileManager.default.fileExists(atPath: path(relativePath))
    }

    /// Why a test that needs `relativePath` skips.
    public static func skipNote(_ relativePath: String) -> Comment {
        Comment(rawValue: "skipped: needs \(path(relativePath)) (the shared folder beside the clone, which CI has)")
    }

    /// The bytes of a shared file.
    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        try Fixtures.bytesAt(path(relativePath))
    }
}
