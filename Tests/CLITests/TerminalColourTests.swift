import Foundation
import Testing
import TestSupport

/// The text report of `inspect` and `check` is coloured only on a terminal, and never with
/// NO_COLOR set (https://no-color.org). The terminal is a pseudo-terminal made by `script`
/// (util-linux), as in BatchTerminalTests.
@Suite struct TerminalColourTests {
    /// What the command writes to a pseudo-terminal (stdout and stderr both go to it), with
    /// NO_COLOR set to `noColor`, or not set at all for nil.
    private func onTerminal(_ arguments: [String], noColor: String?) throws -> String {
        let unset = noColor == nil ? ["/usr/bin/env", "-u", "NO_COLOR"] : []
        let command = (unset + [Command.ipawrapPath] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            .joined(separator: " ")
        let result = try Command.run("script", ["-qec", command, "/dev/null"], environment: ["NO_COLOR": noColor ?? "1", "COLUMNS": "100"])
        return result.stdout
    }

    /// An app with an error (no icon) and a warning (a dangling icon name), so the report has
    /// every coloured part: the title, the error and warning labels and the remedies.
    private func app(in scratch: ScratchDirectory) throws -> String {
        var builder = IPABuilder()
        builder.info["CFBundleIconFiles"] = ["Gone"]
        return try scratch.write("App.ipa", builder.bytes())
    }

    static let commands = ["inspect", "check"]

    @Test(.enabled(if: Command.exists("script"), "needs script (util-linux) for a pseudo-terminal"), arguments: commands)
    func aTerminalGetsColour(_ command: String) throws {
        let scratch = try ScratchDirectory("cli-colour")
        let input = try app(in: scratch)
        let screen = try onTerminal([command, input, "--at", "2026-06-01"], noColor: nil)
        #expect(screen.contains("ICON_NOT_FOUND"), "\(screen.debugDescription)")
        #expect(screen.contains("\u{1B}[1mSample"), "the title is bold: \(screen.debugDescription)")
        #expect(screen.contains("\u{1B}[31merror"), "errors are red: \(screen.debugDescription)")
        #expect(screen.contains("\u{1B}[33mwarning"), "warnings are yellow: \(screen.debugDescription)")
        #expect(screen.contains("\u{1B}[0m"))
    }

    @Test(.enabled(if: Command.exists("script"), "needs script (util-linux) for a pseudo-terminal"), arguments: commands)
    func noColorTurnsColourOffOnATerminal(_ command: String) throws {
        let scratch = try ScratchDirectory("cli-colour")
        let input = try app(in: scratch)
        let screen = try onTerminal([command, input, "--at", "2026-06-01"], noColor: "1")
        #expect(screen.contains("ICON_NOT_FOUND"), "\(screen.debugDescription)")
        #expect(!screen.contains("\u{1B}"), "\(screen.debugDescription)")
    }

    @Test(arguments: commands)
    func aPipeGetsNoColourEvenWithoutNoColor(_ command: String) throws {
        let scratch = try ScratchDirectory("cli-colour")
        let input = try app(in: scratch)
        // Command.run sets NO_COLOR=1; env -u takes it away again.
        let result = try Command.run("/usr/bin/env", ["-u", "NO_COLOR", Command.ipawrapPath, command, input, "--at", "2026-06-01"])
        #expect(result.status == (command == "check" ? 1 : 0), "\(result.stderr)")
        #expect(result.stdout.contains("ICON_NOT_FOUND"))
        #expect(!result.stdout.contains("\u{1B}") && !result.stderr.contains("\u{1B}"), "\(result.stdout.debugDescription)")
    }
}
