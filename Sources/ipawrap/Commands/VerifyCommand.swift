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
            print(json ? try Self.json(report) : Self.text(report))
            if !report.isIntact { ReportRendering.stoppedByFindings(ipa, report.findings, "not intact because of") }
            return report.isIntact
        }
        if !intact { throw ExitCode(1) }
    }

    static func json(_ report: VerificationReport) throws -> String {
        try ReportJSON.string(report)
    }

    static func text(_ report: VerificationReport, style: Style = .standardOutput) -> String {
        var lines: [String] = [style.bold("Signatures") + "  \(Terminal.escaped(report.input)), certificates judged at \(ReportJSON.timestamp(report.verifiedAt))"]
        for bundle in report.bundles {
            let state = !bundle.facts.signed ? style.red("unsigned") : bundle.intact ? style.green("intact") : style.red("broken")
            var text = "  \(bundle.kind.name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(Terminal.escaped(bundle.path))  \(state)"
            if bundle.facts.signed {
                var facts: [String] = []
                if let identifier = bundle.identifier { facts.append(Terminal.escaped(identifier)) }
                facts.append(bundle.facts.adHoc ? "ad hoc" : "team \(Terminal.escaped(bundle.facts.teamId ?? "?"))")
                if let cdhash = bundle.facts.cdhash { facts.append("cdhash \(cdhash)") }
                if !bundle.facts.hashTypes.isEmpty { facts.append(bundle.facts.hashTypes.joined(separator: "+")) }
                text += "  " + facts.joined(separator: ", ")
            }
            lines.append(text)
            if let certificate = bundle.facts.certificate {
                lines.append("            " + style.dim("signed by \(Terminal.escaped(certificate.commonName ?? certificate.subject)), expires \(ReportJSON.timestamp(certificate.notValidAfter))"))
            }
        }
        lines.append("")
        // Messages quote file names from the archive: escaped like every human-readable output.
        lines.append(contentsOf: TextRendering.findings(report.findings, style: style))
        return lines.joined(separator: "\n")
    }
}
