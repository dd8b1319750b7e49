import ArgumentParser
import Checks
import Foundation
import Reporting
import Verification
import AppBundle

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify every code signature of an IPA: pages, seals, CMS, certificates and profile.",
        discussion: """
            Every bundle holding code and every loose Mach-O, innermost first, and every slice: code page and \
            special slot hashes of every CodeDirectory, CodeResources against the bundle's files and nested code, \
            the CMS signature and its CDHashes, and the certificate, profile, entitlements, identifiers and teams; \
            then what a device's installd and amfid check (each finding names the error a device would give): the \
            bundles' structure, the embedded profiles' dates and teams, and with --device and --os the devices and \
            the iOS version. Entries are inflated (whole up to 64 MiB, with libdeflate) and hashed on two cores; \
            nothing is extracted. An expired \
            certificate is a warning; a broken seal is an error. Exit codes: 0 every signature holds and nothing \
            refuses the install, 1 at least one error finding, 64 usage error, 65 bad input, 74 I/O error.
            """
    )

    @Argument(help: "The .ipa (or an unzipped .app folder, or an Xcode .xcarchive) to verify.")
    var ipa: String

    @Flag(help: "Print the report as JSON.")
    var json = false

    @OptionGroup var at: EvaluationDateOption

    @OptionGroup(title: "Install checks") var install: InstallOptionGroup
    @OptionGroup(title: "Input limits") var limits: ArchiveLimitOptions

    func run() throws {
        let intact = try reportingErrors(json: json ? ipa : nil) {
            let date = at.date ?? Date()
            let report = try Verifier.verify(
                AppArchive(path: ipa, limits: limits.limits), at: date, install: install.options)
            print(json ? try Self.json(report) : TextRendering.verification(report))
            if !report.isIntact { ReportRendering.stoppedByFindings(ipa, report.findings, "not intact because of") }
            return report.isIntact
        }
        if !intact { throw ExitCode(1) }
    }

    static func json(_ report: VerificationReport) throws -> String {
        try ReportJSON.string(report)
    }
}
