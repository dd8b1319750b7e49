import Foundation
import Testing
import TestSupport

/// The progress line on a terminal, through a pseudo-terminal made by `script` (util-linux).
@Suite struct BatchTerminalTests {
    private func onTerminal(_ arguments: [String], noColor: String) throws -> String {
        let command = ([Command.ipawrapPath] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            .joined(separator: " ")
        let result = try Command.run("script", ["-qec", command, "/dev/null"], environment: ["NO_COLOR": noColor, "COLUMNS": "100"])
        return result.stdout
    }

    @Test(.enabled(if: Command.exists("script"), "needs script (util-linux) for a pseudo-terminal"))
    func aTerminalGetsAProgressLineAndColour() throws {
        let sample = try BatchSampleFolder("batch-tty")
        let screen = try onTerminal(["batch", "check", sample.folder, "--jobs", "1"], noColor: "")
        // The progress line is redrawn in place and cleared before each result and at the end.
        #expect(screen.contains("\r[0/6]") || screen.contains("\r[1/6]"), "\(screen.debugDescription)")
        #expect(screen.contains("\r\u{1B}[K"))
        #expect(screen.contains("failed"))
        #expect(screen.contains("\u{1B}[32mok"), "results are coloured on a terminal")
        #expect(screen.contains("6 inputs: 2 ok, 1 with findings, 3 failed"))
    }

    @Test(.enabled(if: Command.exists("script"), "needs script (util-linux) for a pseudo-terminal"))
    func noColorTurnsColourOffButKeepsProgress() throws {
        let sample = try BatchSampleFolder("batch-tty")
        let screen = try onTerminal(["batch", "check", sample.folder], noColor: "1")
        #expect(screen.contains("\r\u{1B}[K"))
        #expect(!screen.contains("\u{1B}[3"), "no colour with NO_COLOR")
        let plain = try onTerminal(["batch", "check", sample.folder, "--no-progress"], noColor: "1")
        #expect(!plain.contains("\r\u{1B}[K"))
    }

    @Test func withoutATerminalThereAreOnlyPlainLines() throws {
        let sample = try BatchSampleFolder("batch-plain")
        let result = try Command.ipawrap(["batch", "check", sample.folder])
        #expect(!result.stdout.contains("\r") && !result.stderr.contains("\r"))
        #expect(!result.stdout.contains("\u{1B}") && !result.stderr.contains("\u{1B}"))
    }
}
