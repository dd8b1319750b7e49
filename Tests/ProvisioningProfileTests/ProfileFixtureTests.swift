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
        try Self.check(fixture.builder, committedAt: fixture.path)
    }

    /// The profiles signing tests use (Tests/Fixtures/signing/profiles), listing the signing leaves.
    @Test(arguments: ProfileBuilder.SigningFixture.allCases)
    func committedSigningProfileEqualsAFreshSignature(_ fixture: ProfileBuilder.SigningFixture) throws {
        try Self.check(fixture.builder, committedAt: fixture.path)
    }

    private static func check(_ builder: ProfileBuilder, committedAt path: String) throws {
        let signed = try builder.signed()
        if rewriting {
            try FileManager.default.createDirectory(
                at: Fixtures.url(path).deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(signed).write(to: Fixtures.url(path))
        }
        #expect(try Fixtures.bytes(path) == signed, "rewrite with IPAWRAP_WRITE_FIXTURES=1")
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
        let signing = try FileManager.default.contentsOfDirectory(atPath: Fixtures.path("signing/profiles")).sorted()
        #expect(signing == ProfileBuilder.SigningFixture.allCases.map(\.fileName).sorted())
    }
}
