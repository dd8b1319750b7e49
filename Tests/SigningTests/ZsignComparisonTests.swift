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
        let symlinks = Set(mine.entries.filter { $0.kind == .symlink }.map(\.path))
        // The seals, parsed: same sealed paths, digests and rules, except for what is explained:
        // - a Mach-O file's digest covers its signature (CMS signing time, reserved size);
        // - a nested `_CodeSignature/CodeResources` digest covers its bytes, and zsign writes the
        //   rules2 dictionary's keys in another order (the parsed seals are compared on their own);
        // - zsign seals a symlink as the file it points to, Apple's rules as a symlink (files2 only);
        // - zsign seals an extension's previous embedded.mobileprovision in the extension's seal,
        //   though it writes the new one (its output would not verify; ours seals what it writes).
        for entry in mine.entries where entry.path.hasSuffix("_CodeSignature/CodeResources") {
            let other = try #require(zsign.entry(named: entry.path), "zsign wrote no \(entry.path)")
            let a = try CodeResources(bytes: mine.read(entry, maximumSize: 16 << 20))
            let b = try CodeResources(bytes: zsign.read(other, maximumSize: 16 << 20))
            let bundle = String(entry.path.dropLast("_CodeSignature/CodeResources".count))
            let isExtension = bundle.hasSuffix(".appex/")
            func explained(_ path: String) -> Bool {
                let full = bundle + path
                return machO.contains(full) || symlinks.contains(full) || path.hasSuffix("_CodeSignature/CodeResources")
                    || (isExtension && path == "embedded.mobileprovision")
            }
            func comparable(_ seals: [CodeResources.Seal]?) -> [String: CodeResources.Seal] {
                Dictionary(
                    (seals ?? []).filter { !explained($0.path) }.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
            }
            #expect(comparable(a.files) == comparable(b.files), "\(entry.path): files")
            #expect(comparable(a.files2) == comparable(b.files2), "\(entry.path): files2")
            #expect(!comparable(a.files2).isEmpty, "\(entry.path): nothing compared")
            #expect(Set((a.files2 ?? []).map(\.path)) == Set((b.files2 ?? []).map(\.path)), "\(entry.path): sealed paths")
            func byPattern(_ rules: [ResourceRule]?) -> [String: ResourceRule] {
                Dictionary((rules ?? []).map { ($0.pattern, $0) }, uniquingKeysWith: { first, _ in first })
            }
            #expect(byPattern(a.rules) == byPattern(b.rules), "\(entry.path): rules")
            #expect(byPattern(a.rules2) == byPattern(b.rules2), "\(entry.path): rules2")
        }
        // Nested code: Apple's iOS rules2 have no `nested` rule (Xcode 7's `^` at weight 20 beat
        // its nested rule at 10, see CodeResourcesTests), so both signers seal a framework's and an
        // extension's files one by one in the app's files2, and in files (version 1, SHA-1) too;
        // neither writes a {cdhash, requirement} seal.
        for archive in [mine, zsign] {
            let entry = try #require(archive.entry(named: "Payload/Sample.app/_CodeSignature/CodeResources"))
            let seal = try CodeResources(bytes: archive.read(entry, maximumSize: 16 << 20))
            for path in ["Frameworks/Kit.framework/Kit", "PlugIns/Share.appex/Share", "Frameworks/libswiftCore.dylib"] {
                guard case .file(let hashes)? = seal.seal(for: path)?.content else {
                    Issue.record("\(archive.path): \(path) is not sealed as a file")
                    continue
                }
                #expect(hashes.keys.sorted() == [.sha1, .sha256], "\(archive.path): \(path)")
                #expect((seal.files ?? []).contains { $0.path == path }, "\(archive.path): \(path) in files")
            }
            #expect(!(seal.files2 ?? []).contains { if case .nestedCode = $0.content { true } else { false } })
        }
        // The CodeDirectories: the SHA-256 one of each binary, page by page and slot by slot.
        for path in machO.sorted() {
            let a = try SignedOutput.codeDirectory(path, in: mine, hashType: .sha256)
            let b = try SignedOutput.codeDirectory(path, in: zsign, hashType: .sha256)
            let isLooseDylib = path.hasSuffix(".dylib")
            // A loose dylib's identifier: codesign's default is the file name without its
            // extension; zsign keeps the extension.
            #expect(a.identifier == (isLooseDylib ? String(b.identifier.dropLast(".dylib".count)) : b.identifier), "\(path)")
            #expect(a.teamIdentifier == b.teamIdentifier, "\(path)")
            #expect(a.codeLimit == b.codeLimit, "\(path): code limit")
            // Page 0 holds the header, which records the size each signer reserved for the
            // signature; every other page must hash alike.
            let pages = (a.codeSlots.count, b.codeSlots.count)
            #expect(pages.0 == pages.1 && pages.0 > 1, "\(path): page count")
            for page in 1..<min(pages.0, pages.1) {
                #expect(a.hash(forCodeSlot: page) == b.hash(forCodeSlot: page), "\(path): page \(page)")
            }
            // Slot 1 (Info.plist) must agree, and slot 2 (the designated requirement) for bundles.
            // Slot 3 hashes CodeResources' bytes, whose key order differs (compared parsed
            // above); slots 5 and 7: zsign signs with the profile's entitlements unexpanded.
            #expect(a.hash(for: .infoPlist) == b.hash(for: .infoPlist), "\(path): Info.plist slot")
            if !isLooseDylib {
                #expect(a.hash(for: .requirements) == b.hash(for: .requirements), "\(path): requirements slot")
            }
        }
    }

    /// An app zsign signed re-signs, and every signature reads back.
    @Test(.enabled(if: ZsignOracle.unavailable == nil, "\(ZsignOracle.unavailable ?? "")"))
    func reSigningZsignOutput() throws {
        let scratch = try ScratchDirectory("zsign-resign")
        let input = try scratch.write("Sample.ipa", SignCommandTests.app().bytes())
        let app = try scratch.write("app-z.mobileprovision", ProfileBuilder.signingFixture(.app))
        let share = try scratch.write("share-z.mobileprovision", ProfileBuilder.signingFixture(.share))
        let zsigned = scratch.path("zsign.ipa")
        try ZsignOracle.sign(input, output: zsigned, profile: app, extraArguments: ["-m", share])
        let output = scratch.path("resigned.ipa")
        let result = try SignCommandTests.sign(zsigned, output, scratch)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let signed = try SignedOutput(archive: ZipArchive(path: output))
        for (path, problem) in signed.problems { Issue.record("\(path): \(problem)") }
        #expect(signed.cmsChecked == 4)
        try SignCommandTests.expectVerifies(output)
    }
}
