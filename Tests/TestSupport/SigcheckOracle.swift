import Foundation
import Testing

/// `../shared/oracles/sigcheck.py`: an independent checker of iOS code signatures (page hashes,
/// special slots, CodeResources both ways, nested code and teams, entitlements, CMS attributes),
/// written from Apple's published formats and sharing no code with ipawrap. The signing tests run
/// it on every output `sign` writes. It needs `../shared` (CI has it) and the oracle Python
/// environment (`asn1crypto` for the CMS attribute checks); tests skip with `skipNote` without it.
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
        let result = try Command.run(PythonOracle.interpreter, arguments)
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
}
