import Foundation
import Testing
import TestSupport

/// The committed profiles in Tests/Fixtures/profiles/generated/ are what `ProfileBuilder` signs:
/// signing is deterministic (no signed attributes, RSA PKCS #1 v1.5), so each file must equal a
/// fresh signature byte for byte. `IPAWRAP_WRITE_FIXTURES=1 swift test --filter
/// ProfileFixtureTests` rewrites them after a builder changes.
@Suite(.enabled(if: ProfileBuilder.opensslMissing == nil, "openssl is not installed: profiles cannot be signed here"))
struct ProfileFixtureTests {
    static let rewriting = ProcessInfo.processInfo.environment["IPAWRAP_WRITE_FIXTURES"] == "1"

    @Test(arguments: ProfileBuilder.Fixture.allCases)
    func committedProfileEqualsAFreshSignature(_ fixture: ProfileBuilder.Fixture) throws {
        let signed = try fixture.builder.signed()
        if Self.rewriting {
            try FileManager.default.createDirectory(
                at: Fixtures.url("profiles/generated"), withIntermediateDirectories: true)
            try Data(signed).write(to: Fixtures.url(fixture.path))
        }
        #expect(try ProfileBuilder.fixture(fixture) == signed, "rewrite with IPAWRAP_WRITE_FIXTURES=1")
    }

    @Test func signingTwiceGivesTheSameBytes() throws {
        let builder = ProfileBuilder(bundlePattern: "com.example.determinism")
        #expect(try builder.signed() == builder.signed())
        var streamed = builder
        streamed.encoding = .berIndefinite
        #expect(try streamed.signed() == streamed.signed())
    }

    @Test(.disabled(if: rewriting, "being rewritten"))
    func everyFixtureIsCommittedAndNothingElse() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.path("profiles/generated")).sorted()
        #expect(names == ProfileBuilder.Fixture.allCases.map(\.fileName).sorted())
    }
}
