import Foundation
import TestSupport
import Testing

/// Every hostile Mach-O of the corpus, as the app's executable, through `ipawrap verify`: a clear
/// finding (exit 1) or a refused input (exit 65), never a crash.
@Suite struct HostileSignatureTests {
    static func cases() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Fixtures.path("macho/hostile")).filter { $0.hasSuffix(".macho") }.sorted()
    }

    @Test(arguments: try cases())
    func hostileExecutableGivesAFindingOrExit65(name: String) throws {
        let scratch = try ScratchDirectory("verify-hostile")
        var ipa = IPABuilder()
        ipa.executable = try Fixtures.bytes("macho/hostile/" + name)
        let path = try scratch.write("hostile.ipa", try ipa.bytes())
        let result = try Command.ipawrap(["verify", path, "--json"])
        #expect(result.status == 1 || result.status == 65, "\(name): \(result.status) \(result.stderr)")
        if result.status == 65 {
            #expect(result.stdout.isEmpty && result.stderr.hasPrefix("ipawrap: error["), "\(name)")
            return
        }
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let findings = report?["findings"] as? [[String: Any]] ?? []
        let codes = findings.compactMap { $0["code"] as? String }
        let executable = findings.filter { $0["path"] as? String == "Payload/Sample.app/Sample" }
        #expect(!executable.isEmpty, "\(name): \(codes)")
        if name.hasPrefix("MACHO_SIGNATURE--") {
            let malformed = findings.first { $0["code"] as? String == "SIGNATURE_MALFORMED" }
            #expect((malformed?["message"] as? String)?.contains("SIGNATURE") == true, "\(name): \(findings)")
        }
    }
}
