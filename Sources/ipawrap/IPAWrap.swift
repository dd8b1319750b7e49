import ArgumentParser
import Checks
import Foundation

@main
struct IPAWrap: ParsableCommand {
    static func main() {
        // Every date ipawrap prints or writes is UTC. Fixing the zone also stops glibc from
        // re-reading /etc/localtime for each of libzip's per-entry mktime calls.
        setenv("TZ", "UTC", 1)
        parseAndRun(Array(CommandLine.arguments.dropFirst()))
    }

    static let configuration = CommandConfiguration(
        commandName: "ipawrap",
        abstract: "Wrap and inspect iOS app archives (.ipa) on Linux.",
        discussion: """
            Exit codes: 0 success, 1 error findings (check, wrap, verify), 64 usage error, \
            65 input that is not a readable, safe iOS app archive (or a malformed policy or profile), \
            74 the output cannot be written.
            """,
        version: ToolInfo.version,
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
}

enum ToolInfo {
    static let name = "ipawrap"
    static let version = "0.1.0"
    static let tool = Report.Tool(name: name, version: version)
}
