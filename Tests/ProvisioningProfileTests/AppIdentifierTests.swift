import ProvisioningProfile
import Testing

/// The explicit-versus-wildcard rules of docs/formats.md (*Provisioning profiles*), and the ranking used to pick a profile
/// for a bundle (exact, then the longest partial wildcard, then `*`).
struct AppIdentifierTests {
    @Test func explicitAppIDMatchesOnlyItsBundleID() throws {
        let appID = try #require(AppIdentifier("ABCDE12345.com.example.app", declaredPrefixes: ["ABCDE12345"]))
        #expect(appID.kind == .explicit)
        #expect(!appID.isWildcard)
        #expect(appID.wildcardStem == nil)
        #expect(appID.prefix == "ABCDE12345")
        #expect(appID.bundlePattern == "com.example.app")
        #expect(appID.match("com.example.app") == .exact)
        #expect(appID.match("com.example.app.share") == nil)
        #expect(appID.match("com.example") == nil)
        // Bundle IDs are compared exactly; case differences are a mismatch.
        #expect(appID.match("com.example.App") == nil)
        #expect(appID.resolved(for: "com.example.app") == "ABCDE12345.com.example.app")
        #expect(appID.resolved(for: "com.example.other") == nil)
    }

    @Test func partialWildcardMatchesBundleIDsUnderItsStem() throws {
        let appID = try #require(AppIdentifier("ABCDE12345.com.example.*", declaredPrefixes: ["ABCDE12345"]))
        #expect(appID.kind == .partialWildcard)
        #expect(appID.isWildcard)
        #expect(appID.wildcardStem == "com.example.")
        #expect(appID.match("com.example.app") == .partialWildcard(stemLength: 12))
        #expect(appID.match("com.example.app.share") == .partialWildcard(stemLength: 12))
        #expect(appID.match("com.example.") == nil)
        #expect(appID.match("com.examplex.app") == nil)
        #expect(appID.match("org.example.app") == nil)
        #expect(appID.resolved(for: "com.example.app") == "ABCDE12345.com.example.app")
    }

    @Test func fullWildcardMatchesEveryBundleID() throws {
        let appID = try #require(AppIdentifier("ABCDE12345.*", declaredPrefixes: ["ABCDE12345"]))
        #expect(appID.kind == .fullWildcard)
        #expect(appID.wildcardStem == "")
        #expect(appID.match("com.example.app") == .fullWildcard)
        #expect(appID.match("x") == .fullWildcard)
        #expect(appID.match("") == nil)
    }

    @Test func theDeclaredPrefixIsUsedNotTheFirstDot() throws {
        // A legacy App ID prefix differs from the team ID; both are declared by the profile.
        let legacy = try #require(AppIdentifier("LEGACY9876.com.example.app", declaredPrefixes: ["LEGACY9876", "ABCDE12345"]))
        #expect(legacy.prefix == "LEGACY9876")
        #expect(legacy.prefixIsDeclared)
        // A declared prefix containing a dot is kept whole; the longest declared one wins.
        let dotted = try #require(AppIdentifier("AB.CD.com.example.app", declaredPrefixes: ["AB", "AB.CD"]))
        #expect(dotted.prefix == "AB.CD")
        #expect(dotted.bundlePattern == "com.example.app")
        // A prefix the profile does not declare falls back to the text before the first dot.
        let undeclared = try #require(AppIdentifier("OTHER12345.com.example.app", declaredPrefixes: ["ABCDE12345"]))
        #expect(undeclared.prefix == "OTHER12345")
        #expect(!undeclared.prefixIsDeclared)
        #expect(undeclared.match("com.example.app") == .exact)
    }

    @Test(arguments: ["nodot", ".com.example.app", "ABCDE12345.", ""])
    func malformedValuesAreRefused(_ value: String) {
        #expect(AppIdentifier(value, declaredPrefixes: ["ABCDE12345"]) == nil)
    }

    @Test func exactBeatsLongerWildcardBeatsShorterWildcardBeatsAny() {
        let matches: [AppIdentifier.Match] = [
            .fullWildcard, .partialWildcard(stemLength: 4), .exact, .partialWildcard(stemLength: 12),
        ]
        #expect(matches.sorted(by: >) == [
            .exact, .partialWildcard(stemLength: 12), .partialWildcard(stemLength: 4), .fullWildcard,
        ])
    }
}
