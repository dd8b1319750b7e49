import Foundation
import Testing
import TestSupport

/// Every file of `Tests/Fixtures/hostile/` through the command line, as `cases.tsv` says: the exit
/// status and the code, no output written, nothing left in the folder, the input untouched.
@Suite struct HostileCorpusTests {
    /// One line of the manifest.
    struct Line: Sendable, CustomTestStringConvertible {
        let file: String
        let command: String
        let exit: Int32
        let codes: [String]
        let arguments: [String]

        var testDescription: String { "\(command) \(file)" + (arguments.isEmpty ? "" : " " + arguments.joined(separator: " ")) }

        init?(_ text: Substring) {
            let fields = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 6, let exit = Int32(fields[2]) else { return nil }
            file = fields[0]
            command = fields[1]
            self.exit = exit
            codes = fields[3].split(separator: "+").map(String.init)
            arguments = fields[4].split(separator: " ").map(String.init)
        }
    }

    static let folder = Fixtures.path(HostileCorpus.folder)

    static func manifestText() -> String {
        (try? String(contentsOfFile: folder + "/" + HostileCorpus.manifestName, encoding: .utf8)) ?? ""
    }

    static func lines() -> [Line] {
        manifestText().split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap(Line.init)
    }

    @Test func theManifestListsEveryFileAndOnlyThem() throws {
        let text = Self.manifestText()
        let rows = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(rows.count > 100)
        #expect(Self.lines().count == rows.count, "every row parses")
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder)
            .filter { $0 != HostileCorpus.manifestName && $0 != "README.md" }
        #expect(Set(files) == Set(Self.lines().map(\.file)))
    }

    @Test(arguments: lines())
    func eachFileGivesItsCode(_ line: Line) throws {
        let scratch = try ScratchDirectory("hostile-corpus")
        let bytes = try Fixtures.bytes(HostileCorpus.folder + "/" + line.file)
        let input = try scratch.write(line.file, bytes)
        let output = scratch.path("out")
        let arguments: [String]
        switch line.command {
        case "inspect", "check": arguments = [line.command, input, "--json"]
        case "wrap": arguments = ["wrap", input, "-o", output, "--json"]
        case "sign":
            // The committed test identity and the profile for com.example.sample (Tests/Fixtures/signing).
            arguments = ["sign", input, "-o", output, "--json", "--identity", SigningFixtures.PKCS12.openssl.path,
                         "--password-file", SigningFixtures.path("password.txt"),
                         "--profile", Fixtures.path("signing/profiles/app.mobileprovision"), "--signing-time", "1767225600"]
        case "repack", "icon": arguments = [line.command, input, "-o", output]
        case "assets": arguments = ["assets", "list", input]
        case "profile": arguments = ["profile", "show", input]
        case "policy": arguments = ["policy", "validate", input]
        case "verify": arguments = ["verify", input, "--json"]
        default:
            Issue.record("unknown command \(line.command)")
            return
        }
        let result = try Command.ipawrap(arguments + line.arguments)
        #expect(result.status == line.exit, "\(result.stderr)")
        if [64, 65, 74].contains(line.exit), let code = line.codes.first {
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.last?.hasPrefix("ipawrap: error[\(code)]: ") == true, "\(result.stderr)")
            for detail in line.codes.dropFirst() {
                #expect((result.stdout + result.stderr).contains(detail), "\(detail) is not named: \(result.stderr)")
            }
        } else if let code = line.codes.first {
            if line.exit == 1 {
                // Stopped by error findings: the last stderr line is the one-line error form.
                let last = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
                #expect(last.hasPrefix("ipawrap: error[ERROR_FINDINGS]: \(input): ") && last.contains(code), "\(result.stderr)")
            }
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let findings = (report["findings"] as? [[String: Any]] ?? []).filter { $0["code"] as? String == code }
            #expect(!findings.isEmpty, "no \(code) finding: \(result.stdout.prefix(2000))")
            let details = line.codes.dropFirst()
            #expect(
                findings.contains { finding in details.allSatisfy { (finding["message"] as? String ?? "").contains($0) } },
                "no \(code) finding names \(details.joined(separator: ", ")): \(findings)")
        }
        // Nothing written: no output, no temporary file, and the input as it was.
        #expect(scratch.listing() == [line.file])
        #expect(try Fixtures.bytesAt(input) == bytes)
    }

    /// The committed corpus is what `HostileCorpus` makes, so the manifest cannot drift from the
    /// builders (or the builders from the corpus) unnoticed.
    @Test func theCorpusIsWhatItsBuildersMake() throws {
        let items = try HostileCorpus.items()
        #expect(HostileCorpus.manifest(items) == Self.manifestText())
        for item in items {
            #expect(try Fixtures.bytes(HostileCorpus.folder + "/" + item.file) == item.bytes, "\(item.file) differs from its builder")
        }
    }

    /// `IPAWRAP_WRITE_FIXTURES=1 swift test --filter HostileCorpusTests/writeCorpus` writes the
    /// corpus and its manifest again.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["IPAWRAP_WRITE_FIXTURES"] == "1"))
    func writeCorpus() throws {
        let items = try HostileCorpus.items()
        try FileManager.default.createDirectory(atPath: Self.folder, withIntermediateDirectories: true)
        for item in items {
            try Data(item.bytes).write(to: URL(fileURLWithPath: Self.folder + "/" + item.file))
        }
        try HostileCorpus.manifest(items).write(toFile: Self.folder + "/" + HostileCorpus.manifestName, atomically: true, encoding: .utf8)
    }
}
