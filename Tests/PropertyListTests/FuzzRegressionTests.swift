import Foundation
import PropertyList
import TestSupport
import Testing

/// Inputs the fuzzers (Fuzz/, Scripts/fuzz) once failed on, kept in
/// Tests/Fixtures/plist/fuzz-regressions and checked with the harnesses' own invariants.
@Suite struct FuzzRegressionTests {
    static var files: [String] {
        let directory = Fixtures.url("plist/fuzz-regressions").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    @Test(arguments: files)
    func readersKeepTheirRoundTripInvariants(name: String) throws {
        let bytes = try Fixtures.bytes("plist/fuzz-regressions/\(name)")
        if let value = try? XMLPropertyList(bytes: bytes).root {
            let fromXML = try XMLPropertyList(bytes: XMLPropertyList.encode(value)).root
            #expect(FoundationOracleTests.difference(fromXML, value) == nil)
            #expect(try BinaryPropertyList(bytes: BinaryPropertyList.encode(value)).root == value)
        }
        if let value = try? BinaryPropertyList(bytes: bytes).root {
            #expect(try BinaryPropertyList(bytes: BinaryPropertyList.encode(value)).root == value)
            do {
                _ = try XMLPropertyList(bytes: XMLPropertyList.encode(value))
            } catch {
                #expect(error.reason == .xmlUnrepresentable)
            }
        }
    }
}
