import Checks
import Foundation
import PropertyList
import Reporting
import Testing
import TestSupport
@testable import Zip

/// Each executable is inflated once for every check that reads it: the binary checks' scan, the
/// signature summary and the entitlement check share one pass, however many other executables
/// the app holds (the archive keeps only the last few streams, so the signature is read right
/// after each scan).
struct SharedExecutableReadTests {
    typealias S = ProfileScenario

    @Test func anAppWithManyFrameworksInflatesEachExecutableOnce() throws {
        var signed = ProfileEntitlementTests.granted
        signed["com.apple.security.application-groups"] = ["group.com.example.sample"]
        var builder = S.app()
        builder.executable = try ProfileEntitlementTests.executable(xml: signed)
        for number in 1...6 {
            builder.addFramework("Kit\(number)", bundleIdentifier: "com.example.kit\(number)")
            builder.nested[builder.nested.count - 1].executable = IPABuilder.executable(fileType: 6) { machO in
                machO.codeSignature = MachOBuilder.CodeSignature(identifier: "com.example.kit\(number)", teamIdentifier: "ABCDE12345")
            }
        }
        let scratch = try ScratchDirectory("shared-reads")
        let path = try scratch.write("Sample.ipa", try builder.bytes())
        let inspection = try Inspector.inspect(
            path: path, options: CheckOptions(evaluationDate: S.now), toolData: BinaryFixture.shippedData(),
            tool: Report.Tool(name: "ipawrap", version: "test"))
        let report = inspection.report
        // What each reader found: the summaries and the entitlement finding.
        #expect(report.bundles.count == 9)
        for bundle in report.bundles where bundle.kind == .framework || bundle.kind == .app {
            #expect(bundle.signature?.signed == true, "\(bundle.path)")
            #expect(bundle.signature?.teamId == "ABCDE12345", "\(bundle.path)")
        }
        #expect(report.findings("ENTITLEMENT_NOT_IN_PROFILE").count == 1)
        let zip = inspection.archive.archive.zip
        let executables = inspection.archive.allBundles.compactMap(\.executablePath)
        #expect(executables.count == 9)
        for executable in executables {
            let entry = try #require(zip.entry(named: executable))
            #expect(entry.method == 8, "\(executable) is deflated")
            // Reading the headers restarts a few times within the first 512 bytes; beyond them,
            // nothing is inflated twice.
            let inflated = zip.recentReads.inflatedBytes[entry.index] ?? 0
            #expect(inflated > 0 && inflated <= entry.uncompressedSize + 1_024, "\(executable): \(inflated) bytes inflated")
        }
    }

    /// Each reader stops at the slice it always stopped at: a fat executable whose first slice is
    /// signed, with entitlements, is summarised and checked from that slice, and a later slice's
    /// signature, too large for `--max-memory`, is never reserved (so the input is not refused).
    @Test func readersStopAtTheFirstSliceThatAnswersThem() throws {
        var signed = ProfileEntitlementTests.granted
        signed["com.apple.security.application-groups"] = ["group.com.example.sample"]
        let xml = try PropertyList(root: .dictionary(signed), format: .xml).xmlData()
        var armv7 = MachOBuilder()
        armv7.is64Bit = false
        armv7.cpuType = 12
        armv7.cpuSubtype = 9
        armv7.version = .iOS("12.0", sdk: "17.2")
        var small = MachOBuilder.CodeSignature(identifier: S.appID, teamIdentifier: "ABCDE12345")
        small.entitlementsXML = xml
        armv7.codeSignature = small
        var arm64 = MachOBuilder()
        arm64.version = .iOS("12.0", sdk: "17.2")
        var large = MachOBuilder.CodeSignature(identifier: S.appID, teamIdentifier: "ABCDE12345")
        large.entitlementsXML = xml
        large.reservedSize = 2 << 20
        arm64.codeSignature = large
        var builder = S.app()
        builder.executable = MachOBuilder.fat([MachOBuilder.FatSlice(armv7), MachOBuilder.FatSlice(arm64)])
        let scratch = try ScratchDirectory("shared-reads")
        let path = try scratch.write("Sample.ipa", try builder.bytes())
        let inspection = try Inspector.inspect(
            path: path, options: CheckOptions(evaluationDate: S.now), toolData: BinaryFixture.shippedData(),
            limits: ArchiveLimits(maximumMemory: 1 << 20), tool: Report.Tool(name: "ipawrap", version: "test"))
        let app = try #require(inspection.report.bundles.first)
        #expect(app.signature?.signed == true)
        #expect(app.signature?.teamId == "ABCDE12345")
        #expect(inspection.report.findings("ENTITLEMENT_NOT_IN_PROFILE").count == 1)
        #expect(inspection.report.findings("SIGNED_ENTITLEMENTS_UNREADABLE").isEmpty)
    }
}
