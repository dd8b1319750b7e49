@testable import Checks
import PropertyList
import Reporting
import Testing
import TestSupport

/// ATS as each supported iOS version applies it: iOS 9 reads only NSAllowsArbitraryLoads; iOS 10
/// and later ignore it when a scoped key is present.
@Suite struct BinaryATSTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let minimumOS: String
        let keys: [(String, Bool)]
        /// The expected code, or nil for no ATS finding.
        let code: String?
        /// Phrases the message must contain.
        let phrases: [String]

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "arbitrary loads on iOS 15", minimumOS: "15.0", keys: [("NSAllowsArbitraryLoads", true)],
             code: "ATS_ARBITRARY_LOADS", phrases: ["(minimum iOS 15)", "on iOS 10 and later ATS is off for all connections"]),
        Case(name: "arbitrary loads on iOS 9 only", minimumOS: "9.0", keys: [("NSAllowsArbitraryLoads", true)],
             code: "ATS_ARBITRARY_LOADS", phrases: ["on iOS 9 ATS is off for all connections", "on iOS 10 and later ATS is off"]),
        Case(name: "both keys, minimum iOS 9", minimumOS: "9.3",
             keys: [("NSAllowsArbitraryLoads", true), ("NSAllowsArbitraryLoadsInWebContent", true)],
             code: "ATS_ARBITRARY_LOADS",
             phrases: [
                "on iOS 9 ATS is off for all connections (iOS 9 reads only NSAllowsArbitraryLoads)",
                "on iOS 10 and later NSAllowsArbitraryLoads is ignored because NSAllowsArbitraryLoadsInWebContent is present, "
                    + "and ATS is lifted only for web content (WKWebView)",
             ]),
        Case(name: "both keys, minimum iOS 10", minimumOS: "10.0",
             keys: [("NSAllowsArbitraryLoads", true), ("NSAllowsArbitraryLoadsInWebContent", true)],
             code: "ATS_WEB_CONTENT_ONLY",
             phrases: ["NSAllowsArbitraryLoads is ignored", "ATS is lifted only for web content (WKWebView)"]),
        Case(name: "web content only, minimum iOS 9", minimumOS: "9.0", keys: [("NSAllowsArbitraryLoadsInWebContent", true)],
             code: "ATS_WEB_CONTENT_ONLY",
             phrases: ["on iOS 9 ATS applies to every connection (iOS 9 ignores NSAllowsArbitraryLoadsInWebContent)"]),
        Case(name: "web content set to NO still overrides", minimumOS: "12.0",
             keys: [("NSAllowsArbitraryLoads", true), ("NSAllowsArbitraryLoadsInWebContent", false)],
             code: nil, phrases: []),
        Case(name: "media and local networking", minimumOS: "14.0",
             keys: [("NSAllowsArbitraryLoads", true), ("NSAllowsArbitraryLoadsForMedia", true), ("NSAllowsLocalNetworking", true)],
             code: "ATS_WEB_CONTENT_ONLY",
             phrases: ["are present", "media loaded with AVFoundation, local network addresses"]),
        Case(name: "arbitrary loads off", minimumOS: "9.0", keys: [("NSAllowsArbitraryLoads", false)], code: nil, phrases: []),
        Case(name: "no relaxations", minimumOS: "15.0", keys: [], code: nil, phrases: []),
        Case(name: "before ATS existed", minimumOS: "8.0", keys: [("NSAllowsArbitraryLoadsInWebContent", true)],
             code: "ATS_WEB_CONTENT_ONLY", phrases: ["on iOS 9 (earlier versions have no ATS) ATS applies"]),
    ]

    @Test(arguments: cases)
    func effectiveStatePerMinimumOS(_ testCase: Case) throws {
        var builder = BinaryFixture.app(minimumOS: testCase.minimumOS)
        var ats = PropertyListDictionary()
        for (key, value) in testCase.keys { ats[key] = .bool(value) }
        builder.info["NSAppTransportSecurity"] = .dictionary(ats)
        let report = try BinaryFixture.report(builder)
        let findings = report.findings.filter { $0.code.hasPrefix("ATS_") }
        guard let code = testCase.code else {
            #expect(findings.isEmpty, "\(findings)")
            return
        }
        #expect(findings.map(\.code) == [code])
        let finding = try #require(findings.first)
        #expect(finding.path == "Payload/Sample.app/Info.plist")
        #expect(finding.severity == (code == "ATS_ARBITRARY_LOADS" ? .warning : .info))
        for phrase in testCase.phrases {
            #expect(finding.message.contains(phrase), "\(finding.message) lacks \(phrase)")
        }
    }

    @Test func stringYESCountsAsiOSReadsIt() throws {
        var builder = BinaryFixture.app()
        builder.info["NSAppTransportSecurity"] = ["NSAllowsArbitraryLoads": "YES"]
        #expect(try BinaryFixture.report(builder).findings(.atsArbitraryLoads).count == 1)
    }

    @Test func exceptionDomainsAloneAreNotReported() throws {
        var builder = BinaryFixture.app()
        builder.info["NSAppTransportSecurity"] = [
            "NSExceptionDomains": ["legacy.example.com": ["NSExceptionAllowsInsecureHTTPLoads": true]],
        ]
        #expect(try BinaryFixture.report(builder).binaryCodes.isEmpty)
    }

    @Test func extensionsAreCheckedAndFrameworksAreNot() throws {
        var builder = BinaryFixture.app()
        builder.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        builder.nested[0].info?["NSAppTransportSecurity"] = ["NSAllowsArbitraryLoads": true]
        var framework = BinaryFixture.framework("Kit", version: "1.0")
        framework.info?["NSAppTransportSecurity"] = ["NSAllowsArbitraryLoads": true]
        builder.nested.append(framework)
        let report = try BinaryFixture.report(builder)
        #expect(report.findings(.atsArbitraryLoads).map(\.path) == ["Payload/Sample.app/PlugIns/Share.appex/Info.plist"])
    }

    @Test func minimumOSFallsBackToTheExecutable() throws {
        var builder = BinaryFixture.app(minimumOS: "9.0")
        builder.info["MinimumOSVersion"] = nil
        builder.info["NSAppTransportSecurity"] = ["NSAllowsArbitraryLoads": true, "NSAllowsArbitraryLoadsInWebContent": true]
        let report = try BinaryFixture.report(builder)
        let finding = try #require(report.findings(.atsArbitraryLoads).first)
        #expect(finding.message.contains("(minimum iOS 9)"))
    }

    @Test func settingsModelMatchesTheDocumentsTable() {
        // The table of the App Review notes: iOS 9 / iOS 10 behaviour for each combination.
        let rows: [(arbitrary: Bool, web: Bool?, ios9: ATSSettings.State, ios10: ATSSettings.State)] = [
            (false, nil, .enforced, .enforced),
            (true, nil, .disabled, .disabled),
            (false, true, .enforced, .scoped(["NSAllowsArbitraryLoadsInWebContent"])),
            (false, false, .enforced, .enforced),
            (true, false, .disabled, .enforced),
            (true, true, .disabled, .scoped(["NSAllowsArbitraryLoadsInWebContent"])),
        ]
        for row in rows {
            var ats: PropertyListDictionary = ["NSAllowsArbitraryLoads": .bool(row.arbitrary)]
            if let web = row.web { ats["NSAllowsArbitraryLoadsInWebContent"] = .bool(web) }
            let settings = ATSSettings(["NSAppTransportSecurity": .dictionary(ats)])
            #expect(settings?.stateOnIOS9 == row.ios9, "\(row)")
            #expect(settings?.stateOnIOS10AndLater == row.ios10, "\(row)")
        }
        #expect(ATSSettings(["CFBundleName": "x"]) == nil)
    }
}
