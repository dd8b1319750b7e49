import ArgumentParser
import Checks
import FormatSupport
import Foundation
import Policy
import Reporting
import ToolData

@main
struct IPAWrap: ParsableCommand {
    static func main() {
        // Every date ipawrap prints or writes is UTC. Fixing the zone also stops glibc from
        // re-reading /etc/localtime for each of libzip's per-entry mktime calls.
        setenv("TZ", "UTC", 1)
        // The arguments as bytes (`PathEncoding`): a path that is not UTF-8 still names its file.
        parseAndRun(PathEncoding.commandLineArguments())
    }

    static let configuration = CommandConfiguration(
        commandName: "ipawrap",
        abstract: "Wrap and inspect iOS app archives (.ipa) on Linux.",
        discussion: """
            Exit codes: 0 success, 1 error findings (check, wrap, sign, verify; stderr ends with \
            error[ERROR_FINDINGS] naming their codes), 64 usage error, \
            65 input that is not a readable, safe iOS app archive (or a malformed policy or profile), \
            74 the output cannot be written.
            """,
        subcommands: [
            InspectCommand.self,
            CheckCommand.self,
            IconCommand.self,
            WrapCommand.self,
            SignCommand.self,
            RepackCommand.self,
            PolicyCommand.self,
            AssetsCommand.self,
            ProfileCommand.self,
            BatchCommand.self,
            VerifyCommand.self,
        ]
    )

    // Not ArgumentParser's built-in `--version`, which can only print a fixed string: the toolkit
    // version comes from the Templates folder the installed tool finds at run time.
    @Flag(help: ArgumentHelp(
        "Print the version of ipawrap and of the MDX toolkit its Templates folder targets.",
        discussion: "The Templates folder is found as for wrap: IPAWRAP_TEMPLATES, then beside the executable."))
    var version = false

    func run() throws {
        guard version else { throw CleanExit.helpRequest(self) }
        print("\(ToolInfo.name) \(ToolInfo.version)")
        try reportingErrors {
            // The same resolution every command makes (ToolData), so the version printed is the one wrap uses.
            let data = try ToolData.resolve()
            print("toolkit \(data.toolkitVersion.text) (templates: \(data.templates.url.path))")
        }
    }
}

enum ToolInfo {
    static let name = "ipawrap"
    static let version = "0.1.0"
    static let tool = Report.Tool(name: name, version: version)
}
