import ArgumentParser
import Checks
import Foundation
import OutputFiles
import Reporting
import Wrapping
import Zip

struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Re-sign an IPA on Linux with a .p12 (or PEM certificate and key) and provisioning profiles.",
        discussion: """
            Runs every check as `ipawrap check --for sign` does (profiles are assigned as it assigns them: \
            --profile, --profile BUNDLE_ID=PATH, --profiles-dir, embedded): the rules of wrapping \
            (\(FindingCode.wrappingRuleList)) are warnings; on any other error finding (a Simulator build, \
            encrypted code, a missing or mismatched profile...) it writes nothing and exits 1. Otherwise it \
            signs every piece of code innermost first: loose dylibs and helper executables, frameworks, \
            test bundles, loadable bundles, XPC services, extensions, watch apps, app clips, the app (apps, \
            extensions, watch apps and clips with their profile's entitlements, the rest with none; Apple's \
            _WatchKitStub stays as it is), each bundle's _CodeSignature/CodeResources and every Mach-O \
            slice, in one archive write. Unchanged entries are copied byte for byte; with --signing-time \
            (or SOURCE_DATE_EPOCH) the output is reproducible.
            Exit codes: 0 written, 1 error findings (nothing written), 64 usage error, 65 bad input, \
            74 output not written.
            """
    )

    @Argument(help: "The .ipa (or an unzipped .app folder, or an Xcode .xcarchive) to sign.")
    var ipa: String

    @Option(name: [.short, .customLong("output")], help: "Where to write the signed .ipa.")
    var output: String

    @Flag(help: "Print the report as JSON.")
    var json = false

    @OptionGroup(title: "Signing") var signing: SigningOptionGroup
    @OptionGroup(title: "Profiles and checks") var checks: CheckOptionGroup
    @OptionGroup(title: "Input limits") var limits: ArchiveLimitOptions

    @Flag(help: "Flush the output to disk before it appears (durability across power loss).")
    var fsync = false

    func validate() throws {
        try signing.validateSigningTime()
    }

    func run() throws {
        let written = try reportingErrors(json: json ? ipa : nil) {
            try OutputDestination.check(output, inputs: [ipa] + checks.inputFiles + signing.inputFiles)
            let toolData = try checks.toolData()
            let request = try signing.request(templates: toolData.templates, timeLimit: limits.timeLimit)
            let outcome = try Resigner.sign(
                input: ipa, output: output, checks: try checks.checkOptions(), toolData: toolData, limits: limits.limits,
                repack: RepackOptions(timestamp: .latestInArchive, synchronize: fsync), signing: request, tool: ToolInfo.tool)
            let summary = outcome.outputSize.map { size in
                "Signed \(ipa) into \(output) (\(size) bytes) as \(request.identity.commonName ?? "?")"
            }
            try ReportRendering.printOutcome(outcome.report, json: json, input: ipa, summary: summary, notDone: "not signed")
            return outcome.written
        }
        if !written { throw ExitCode(1) }
    }
}
