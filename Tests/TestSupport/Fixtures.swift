import Foundation

/// Locations of committed test fixtures (`Tests/Fixtures`) and of the package root, found from
/// this source file so tests work in any clone without a resources bundle.
public enum Fixtures {
    /// `Tests/Fixtures`.
    public static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures")

    /// The package root (the folder holding Package.swift).
    public static let packageRoot: URL = directory
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    public static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }

    public static func path(_ relativePath: String) -> String {
        url(relativePath).path
    }

    /// The bytes of a fixture; a missing fixture is a test-setup error, reported by throwing.
    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relativePath)))
    }
}

extension Fixtures {
    /// The bytes of any file (not only fixtures).
    public static func bytesAt(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
