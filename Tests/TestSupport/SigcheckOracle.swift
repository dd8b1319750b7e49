import Foundation
import Testing

/// `../shared/oracles/sigcheck.py`: an independent checker of iOS code signatures (page hashes,
/// special slots, CodeResources both ways, nested code and teams, entitlements, CMS attributes),
/// written from Apple's published formats and sharing no code with ipawrap. The signing tests run
/// it on every output `sign` and `wrap --sign` write (`expectAccepted`). It needs `../shared` (CI
/// has it); the oracle Python environment adds its CMS attribute checks (`asn1crypto`), else the
/// system `python3` runs it without them. Without `../shared`, `expectAccepted` does nothing and
/// `SigcheckPresenceTests` skips with `skipNote` to say so.
public enum SigcheckOracle {
    public static let script = "oracles/sigcheck.py"

    /// Whether the checker can run here.
    public static var isAvailable: Bool { SharedFolder.has(script) }

    /// Why a test needing the checker skips.
    public static var skipNote: Comment { SharedFolder.skipNote(script) }

    /// The problems the checker finds in `path` (an .ipa or .app), one line each (`[]` when every
    /// check holds). `ca` makes it verify the signer chain against that CA; `team` sets the team
    /// every CodeDirectory must carry (by default the main executable's).
    /// - Throws: when the checker cannot read the input (its exit status 2) or does not run.
    public static func problems(in path: String, ca: String? = nil, team: String? = nil) throws -> [String] {
        var arguments = [SharedFolder.path(script), path]
        if let ca { arguments += ["--ca", ca] }
        if let team { arguments += ["--team", team] }
        let python = FileManager.default.isExecutableFile(atPath: PythonOracle.interpreter) ? PythonOracle.interpreter : "python3"
        let result = try Command.run(python, arguments)
        switch result.status {
        case 0: return []
        case 1: return result.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        default: throw PythonOracle.Failure(description: "sigcheck failed (\(result.status)) on \(path): \(result.stderr)")
        }
    }

    /// The problems with the test CA (`SigningFixtures.rootPEM`) as the trust anchor, so the CMS
    /// chain is checked too.
    public static func problemsWithTestCA(in path: String, team: String? = nil) throws -> [String] {
        try problems(in: path, ca: SigningFixtures.rootPEM, team: team)
    }

    /// Records an issue for each problem the checker finds in a signed output at `path`, checked
    /// against the test CA, other than those starting with a prefix in `expected` (a known,
    /// explained deviation); does nothing where the checker is not available.
    public static func expectAccepted(
        _ path: String, except expected: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        guard isAvailable else { return }
        for problem in try problemsWithTestCA(in: path) where !expected.contains(where: { problem.hasPrefix($0) }) {
            Issue.record("sigcheck: \(problem)", sourceLocation: sourceLocation)
        }
    }
}
