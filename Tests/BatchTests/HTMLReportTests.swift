import Batch
import Checks
import Foundation
import PNG
@testable import Reporting
import Testing
import TestSupport
import XMLSupport

@Suite struct HTMLReportTests {
    static let tool = Report.Tool(name: "ipawrap", version: "test")
    static let now = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28

    static func report(name: String?, id: String?, version: String? = "1.0", findings: [Finding] = [],
                       profiles: [Report.Profile] = [], sdks: [Report.SDK] = []) -> Report {
        var report = Report(
            tool: tool, input: Report.Input(path: "x.ipa", size: 1, sha256: nil, entries: 1),
            app: Report.App(path: "Payload/X.app", bundleId: id, name: name, version: version, build: "7", minimumOS: "15.0",
                            infoPlistFormat: .xml, executable: nil))
        report.findings = findings
        report.profiles = profiles
        report.sdks = sdks
        return report
    }

    static func result(_ name: String, exit: Int32 = 0, report: Report, icon: [UInt8]? = nil) -> BatchResult {
        result(name, exit: exit, outcome: .report(report), icon: icon)
    }

    static func result(_ name: String, exit: Int32 = 0, outcome: InputOutcome, icon: [UInt8]? = nil) -> BatchResult {
        BatchResult(input: BatchInput(path: "/apps/" + name, name: name), exitCode: exit, outcome: outcome,
                    output: nil, seconds: 0.25, iconThumbnail: icon)
    }

    static let hostileName = "</td></tr><script>alert(1)</script><img src=x onerror=alert(2)>"
    static let hostileID = "com.\"quoted\"&'apos'.\u{1}ctl\u{FFFE}.\u{202E}gnp"

    /// Six apps: clean, warnings with a soon-expiring profile, an expired profile with an error, a
    /// hostile Info.plist, a corrupt file, and an SDK app.
    static func results() throws -> [BatchResult] {
        let icon = try IconThumbnail.png(from: IPABuilder.iconPNG(size: 180, seed: 3, cgbi: false))
        let expiring = Report.Profile(bundlePath: "Payload/X.app", source: .embedded, appIdentifier: "TEAM.com.example.warn",
                                      wildcard: false, teamId: "TEAM", expirationDate: Date(timeIntervalSince1970: 1_781_049_600), kind: .enterprise, file: nil)
        let expired = Report.Profile(bundlePath: "Payload/X.app", source: .embedded, appIdentifier: "TEAM.*",
                                     wildcard: true, teamId: "TEAM", expirationDate: Date(timeIntervalSince1970: 1_735_689_600), kind: .adhoc, file: nil)
        return [
            result("Good.ipa", report: report(name: "Good", id: "com.example.good"), icon: icon),
            result("Warn.ipa", report: report(name: "Warn", id: "com.example.warn", version: "1.10",
                                              findings: [Finding(.iconReferenceMissing, message: "Info.plist names Gone")],
                                              profiles: [expiring]), icon: icon),
            result("Expired.ipa", exit: 1, report: report(name: "Expired", id: "com.example.expired", version: "1.9",
                                                         findings: [Finding(code: "PROFILE_EXPIRED", severity: .error, message: "expired",
                                                                            remedy: "Renew the profile.")],
                                                         profiles: [expired])),
            result("Hostile.ipa", report: report(name: hostileName, id: hostileID, version: "<b>2</b>"), icon: icon),
            result("Broken.ipa", exit: 65, outcome: .failure(.init(code: "ARCHIVE_CORRUPT", message: "/apps/Broken.ipa is damaged & <bad>"))),
            result("team/SDK.ipa", report: report(name: "SDK", id: "com.example.sdk",
                                                  sdks: [.init(family: "Citrix MDX", framework: "CTXMAMCore", version: "20.10.5", path: "p")])),
        ]
    }

    static func page(_ results: [BatchResult]) -> String {
        var summary = BatchSummary(total: results.count)
        results.forEach { summary.add($0) }
        return HTMLReport(command: "check", tool: tool, generated: now, summary: summary).render(results)
    }

    @Test func isWellFormedXMLWithOneRowPerInput() throws {
        let results = try Self.results()
        let html = Self.page(results)
        let document = try XMLDocument(bytes: Array(html.utf8))
        let root = try #require(document.root)
        #expect(root.name == "html")
        let rows = try #require(Self.tbody(root)).children.filter { $0.name == "tr" }
        #expect(rows.count == results.count)
        for (row, result) in zip(rows, results) {
            #expect(row.attribute("data-status") == result.status.rawValue)
            #expect(Self.allText(row).contains(result.input.name))
        }
        #expect(html.hasPrefix("<!DOCTYPE html>"))
    }

    @Test func hostileStringsStayText() throws {
        let html = Self.page(try Self.results())
        let root = try #require(try XMLDocument(bytes: Array(html.utf8)).root)
        // The page's own script is the only one, and no element came from an input.
        #expect(Self.elements(root, named: "script").count == 1)
        #expect(Self.elements(root, named: "img").allSatisfy { $0.attribute("src")?.hasPrefix("data:image/png;base64,") == true })
        #expect(Self.elements(root, named: "b").isEmpty)
        let hostileRow = try #require(Self.tbody(root)?.children.first { Self.allText($0).contains("Hostile.ipa") })
        let text = Self.allText(hostileRow)
        #expect(text.contains(Self.hostileName))
        // Control characters and noncharacters cannot be in a document: they become U+FFFD.
        #expect(text.contains("com.\"quoted\"&'apos'.\u{FFFD}ctl\u{FFFD}.\u{202E}gnp"))
        #expect(text.contains("<b>2</b>"))
        #expect(!html.contains("\u{1}"))
        #expect(Self.allText(root).contains("/apps/Broken.ipa is damaged & <bad>"))
    }

    @Test func showsVersionsSDKsProfilesAndRemedies() throws {
        let html = Self.page(try Self.results())
        let root = try #require(try XMLDocument(bytes: Array(html.utf8)).root)
        let rows = try #require(Self.tbody(root)).children.filter { $0.name == "tr" }
        let warn = Self.allText(rows[1])
        #expect(warn.contains("1.10 (7)"))
        #expect(warn.contains("iOS 15.0"))
        #expect(warn.contains("enterprise, expires 2026-06-10"))
        #expect(warn.contains("ICON_REFERENCE_MISSING"))
        #expect(warn.contains("→ " + FindingCode.iconReferenceMissing.remedy))
        #expect(Self.elements(rows[1], named: "span").contains { $0.attribute("class") == "expiring" })
        let expired = Self.allText(rows[2])
        #expect(expired.contains("adhoc, expired 2025-01-01"))
        #expect(expired.contains("→ Renew the profile."))
        #expect(Self.allText(rows[5]).contains("CTXMAMCore 20.10.5"))
        // Failures without a report say what kind of problem it is.
        #expect(Self.allText(rows[4]).contains("not a readable, safe iOS app archive"))
        // The codes table counts apps per code, with the code's own remedy: an app's remedy names
        // that app's bundle and files, which would mislead for the others.
        #expect(html.contains("data-code=\"PROFILE_EXPIRED\""))
        let codes = try #require(Self.elements(root, named: "table").first { $0.attribute("id") != "apps" })
        let expiredCode = try #require(Self.elements(codes, named: "tr").first { Self.allText($0).contains("PROFILE_EXPIRED") })
        let generic = try #require(FindingCode.named("PROFILE_EXPIRED")?.remedy)
        #expect(Self.allText(expiredCode).contains(generic))
        #expect(!Self.allText(expiredCode).contains("Renew the profile."))
    }

    @Test func sortKeysMakeColumnsSortable() throws {
        let root = try #require(try XMLDocument(bytes: Array(Self.page(try Self.results()).utf8)).root)
        let rows = try #require(Self.tbody(root)).children.filter { $0.name == "tr" }
        let statusKeys = rows.map { $0.children.filter { $0.name == "td" }[7].attribute("data-sort") }
        #expect(statusKeys == ["2", "1", "0", "2", "0", "2"])
        let findingKeys = rows.map { Int($0.children.filter { $0.name == "td" }[8].attribute("data-sort") ?? "") ?? -1 }
        #expect(findingKeys[2] > findingKeys[1] && findingKeys[1] > findingKeys[0])
        #expect(findingKeys[4] > findingKeys[2], "an unreadable file sorts above every finding count")
    }

    @Test func iconsAreSmallStandardPNGs() throws {
        let root = try #require(try XMLDocument(bytes: Array(Self.page(try Self.results()).utf8)).root)
        let images = Self.elements(root, named: "img")
        #expect(images.count == 3)
        for image in images {
            let base64 = String(try #require(image.attribute("src")).dropFirst("data:image/png;base64,".count))
            let png = try PNGDecoder.decode([UInt8](try #require(Data(base64Encoded: base64))))
            #expect(png.image.width == IconThumbnail.defaultSide)
            #expect(!png.isCgBI)
        }
    }

    @Test func pythonsHTMLParserFindsEveryElementClosed() throws {
        let scratch = try ScratchDirectory("html")
        let path = try scratch.write("report.html", Array(Self.page(try Self.results()).utf8))
        let result = try Command.run("python3", ["-c", Self.tagBalanceScript, path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("rows 6"))
    }

    @Test func anEmptyOrInterruptedBatchSaysSo() throws {
        var summary = BatchSummary(total: 10)
        summary.add(Self.result("Good.ipa", report: Self.report(name: "Good", id: "com.example.good")))
        let html = HTMLReport(command: "wrap", tool: Self.tool, generated: Self.now, shard: try Shard(index: 2, count: 3),
                              interrupted: true, summary: summary).render([])
        _ = try XMLDocument(bytes: Array(html.utf8))
        #expect(html.contains("interrupted"))
        #expect(html.contains("9 of 10 inputs were not done"))
        #expect(html.contains("shard 2/3"))
        #expect(html.contains("No inputs."))
    }

    @Test func aSigningBatchShowsEachAppsSignature() throws {
        let expiry = Date(timeIntervalSince1970: 2_051_222_400)  // 2035-01-01
        func signature(_ hashTypes: [String]) -> SignatureFacts {
            SignatureFacts(
                signed: true, adHoc: false, cdhash: "00", teamId: "ABCDE12345", hashTypes: hashTypes,
                certificate: SigningCertificate(subject: "CN=<Example & Co>,OU=ABCDE12345", commonName: nil, notValidAfter: expiry))
        }
        let profile = Report.Profile(
            bundlePath: "Payload/X.app", source: .option, appIdentifier: "ABCDE12345.com.example.good", wildcard: false,
            teamId: "ABCDE12345", expirationDate: expiry, kind: .adhoc, file: "/secrets/app.mobileprovision")
        let signed = BatchResult(
            input: BatchInput(path: "/apps/Good.ipa", name: "Good.ipa"), exitCode: 0,
            outcome: .report(Self.report(name: "Good", id: "com.example.good", profiles: [profile])), output: "/out/Good.ipa",
            seconds: 0.25, signedBundles: [
                Report.Bundle(path: "Payload/X.app", kind: .app, bundleId: "com.example.good", version: "1.0", signature: signature(["SHA-256"])),
                Report.Bundle(
                    path: "Payload/X.app/Frameworks/Kit.framework", kind: .framework, bundleId: "com.example.kit", version: "1.0",
                    signature: signature(["SHA-1", "SHA-256"])),
            ])
        let refused = Self.result("NoProfile.ipa", exit: 1, report: Self.report(name: "NoProfile", id: "com.other"))
        var summary = BatchSummary(total: 2)
        [signed, refused].forEach { summary.add($0) }
        let html = HTMLReport(command: "sign", tool: Self.tool, generated: Self.now, summary: summary, signing: true)
            .render([signed, refused])
        let root = try #require(try XMLDocument(bytes: Array(html.utf8)).root)
        #expect(Self.elements(root, named: "th").contains { Self.allText($0) == "Signature" })
        let rows = try #require(Self.tbody(root)).children.filter { $0.name == "tr" }
        let cell = try #require(rows[0].children.filter { $0.name == "td" }.first { $0.attribute("class") == "signature" })
        let text = Self.allText(cell)
        #expect(text.contains("team ABCDE12345"))
        #expect(text.contains("CN=<Example & Co>,OU=ABCDE12345"))
        #expect(text.contains("certificate expires 2035-01-01"))
        #expect(text.contains("X.app SHA-256"))
        #expect(text.contains("Kit.framework SHA-1, SHA-256"))
        #expect(text.contains("profile app.mobileprovision (option)"))
        #expect(Self.allText(rows[1]).contains("not signed"))
        // Every row has as many cells as the header.
        let apps = try #require(Self.elements(root, named: "table").first { $0.attribute("id") == "apps" })
        let headers = Self.elements(apps, named: "th").count
        #expect(rows.allSatisfy { $0.children.filter { $0.name == "td" }.count == headers })
        // A batch that does not sign has no such column.
        #expect(!Self.page(try Self.results()).contains(">Signature<"))
    }

    /// Checks with Python's html.parser (an HTML tokenizer independent of libxml2) that every
    /// element is closed in order, and counts the table rows.
    static let tagBalanceScript = #"""
        import sys
        from html.parser import HTMLParser
        VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
        class Check(HTMLParser):
            def __init__(self):
                super().__init__(convert_charrefs=True)
                self.stack, self.rows, self.errors = [], 0, []
            def handle_starttag(self, tag, attrs):
                if tag == "tr" and "data-status" in dict(attrs):
                    self.rows += 1
                if tag not in VOID:
                    self.stack.append(tag)
            def handle_startendtag(self, tag, attrs):
                if tag not in VOID:
                    self.errors.append("self-closed non-void <%s>" % tag)
            def handle_endtag(self, tag):
                if not self.stack or self.stack[-1] != tag:
                    self.errors.append("</%s> closes %s" % (tag, self.stack[-1:] or "nothing"))
                else:
                    self.stack.pop()
        check = Check()
        check.feed(open(sys.argv[1], encoding="utf-8").read())
        check.close()
        if check.stack:
            check.errors.append("unclosed: %s" % check.stack)
        print("rows", check.rows)
        if check.errors:
            print("\n".join(check.errors))
            sys.exit(1)
        """#

    // MARK: Helpers

    /// The body of the apps table (the codes table has one too).
    static func tbody(_ root: XMLElement) -> XMLElement? {
        elements(root, named: "table").first { $0.attribute("id") == "apps" }?.child(named: "tbody")
    }

    static func elements(_ element: XMLElement, named name: String) -> [XMLElement] {
        var found: [XMLElement] = []
        var pending = [element]
        while let next = pending.popLast() {
            if next.name == name { found.append(next) }
            pending.append(contentsOf: next.children.reversed())
        }
        return found
    }

    static func allText(_ element: XMLElement) -> String {
        element.text
    }
}
