import CodeSignature
import Foundation
import IPAArchive
import MachO
import Testing
import TestSupport

/// zsign, an independent re-signer, signs the same input with the same identity and profiles;
/// the two outputs must agree on every seal and on every CodeDirectory's page hashes and
/// special slots, except where the test explains the difference.
@Suite struct ZsignComparisonTests {
    @Test(.enabled(if: ZsignOracle.unavailable == nil, "\(ZsignOracle.unavailable ?? "")"))
    func sealsAndCodeDirectoriesMatchZsign() throws {
        let scratch = try ScratchDirectory("zsign-compare")
        let input = try scratch.write("Sample.ipa", SignCommandTests.app().bytes())
        let ours = scratch.path("ipawrap.ipa")
        let result = try SignCommandTests.sign(input, ours, scratch)
        #expect(result.status == 0, "\(result.stderr)")
        let app = try scratch.write("app-z.mobileprovision", ProfileBuilder.signingFixture(.app))
        let share = try scratch.write("share-z.mobileprovision", ProfileBuilder.signingFixture(.share))
        let theirs = scratch.path("zsign.ipa")
        try ZsignOracle.sign(input, output: theirs, profile: app, extraArguments: ["-m", share])

        let mine = try ZipArchive(path: ours)
        let zsign = try ZipArchive(path: theirs)
        let machO = Set(try SignedOutput.machOPaths(mine))
        // The seals: same files, digests and rules, parsed. A Mach-O file's digest covers its
        // signature, whose CMS signing time and certificates order differ between signers;
        // everything else must be equal.
        for entry in mine.entries where entry.path.hasSuffix("_CodeSignature/CodeResources") {
            let other = try #require(zsign.entry(named: entry.path), "zsign wrote no \(entry.path)")
            let a = try CodeResources(bytes: mine.read(entry, maximumSize: 16 << 20))
            let b = try CodeResources(bytes: zsign.read(other, maximumSize: 16 << 20))
            let bundle = String(entry.path.dropLast("_CodeSignature/CodeResources".count))
            func comparable(_ seals: [CodeResources.Seal]?) -> [String: CodeResources.Seal] {
                Dictionary(
                    (seals ?? []).filter { !machO.contains(bundle + $0.path) }.map { ($0.path, $0) },
                    uniquingKeysWith: { first, _ in first })
            }
            #expect(comparable(a.files) == comparable(b.files), "\(entry.path): files")
            #expect(comparable(a.files2) == comparable(b.files2), "\(entry.path): files2")
            #expect(Set((a.files2 ?? []).map(\.path)) == Set((b.files2 ?? []).map(\.path)), "\(entry.path): sealed paths")
            #expect(a.rules == b.rules && a.rules2 == b.rules2, "\(entry.path): rules")
        }
        // The CodeDirectories: the SHA-256 one of each binary, page by page and slot by slot.
        for path in machO.sorted() {
            let a = try SignedOutput.codeDirectory(path, in: mine, hashType: .sha256)
            let b = try SignedOutput.codeDirectory(path, in: zsign, hashType: .sha256)
            #expect(a.identifier == b.identifier, "\(path)")
            #expect(a.teamIdentifier == b.teamIdentifier, "\(path)")
            #expect(a.codeLimit == b.codeLimit, "\(path): code limit")
            #expect(a.codeSlots == b.codeSlots, "\(path): page hashes")
            // Slot 1 Info.plist and 3 CodeResources must agree. Slot 2 (requirements): both write
            // the iOS designated requirement. Slots 5 and 7 (entitlements): zsign copies the
            // profile's entitlements unexpanded and in its own key order, so they may differ.
            for slot in [CodeDirectory.SpecialSlot.infoPlist, .resourceDirectory, .requirements] {
                #expect(a.hash(for: slot) == b.hash(for: slot), "\(path): special slot \(slot)")
            }
        }
    }
}
