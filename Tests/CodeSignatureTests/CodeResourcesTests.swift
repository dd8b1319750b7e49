import CodeSignature
import Foundation
import PropertyList
import TestSupport
import Testing

/// `_CodeSignature/CodeResources` read, written, evaluated and rebuilt: against the seal of the
/// generated Xcode-shaped app (`XcodeShapedApp`, written independently in codesign's layout) and
/// against the one Xcode 7.2 wrote for isign's Test.app (`../shared`). Both list files the bundle
/// does not hold.
struct XcodeSeal {
    let app: URL
    let mainExecutable: String
    /// Listed in the seal but absent from the bundle.
    let trimmed: [String]
    let hashTypes: [HashType]
    /// Kept alive while `app` is used.
    let scratch: ScratchDirectory?

    var codeResources: [UInt8] {
        get throws { try Fixtures.bytesAt(app.appendingPathComponent("_CodeSignature/CodeResources").path) }
    }

    static func generated() throws -> XcodeSeal {
        let scratch = try ScratchDirectory("xcode-seal")
        return XcodeSeal(
            app: try XcodeShapedApp.folder(in: scratch), mainExecutable: XcodeShapedApp.appName,
            trimmed: XcodeShapedApp.trimmed.sorted(), hashTypes: [.sha1, .sha256], scratch: scratch)
    }

    static func isign() -> XcodeSeal {
        XcodeSeal(
            app: IsignFixture.appURL, mainExecutable: "isignTestApp",
            trimmed: [
                "Frameworks/libswiftCore.dylib", "Frameworks/libswiftCoreGraphics.dylib", "Frameworks/libswiftCoreImage.dylib",
                "Frameworks/libswiftDarwin.dylib", "Frameworks/libswiftDispatch.dylib", "Frameworks/libswiftFoundation.dylib",
                "Frameworks/libswiftObjectiveC.dylib", "Frameworks/libswiftUIKit.dylib", "embedded.mobileprovision",
            ],
            hashTypes: [.sha1], scratch: nil)
    }

    func writesBackByteForByte() throws {
        let bytes = try codeResources
        #expect(try CodeResources(bytes: bytes).serialized() == bytes)
    }

    /// Python's plistlib reads the same seal.
    func pythonReadsTheSameSeal() throws {
        let resources = try CodeResources(bytes: try codeResources)
        let script = """
            import plistlib, sys
            p = plistlib.load(open(sys.argv[1], 'rb'))
            for key in ('files', 'files2'):
                for path, value in p[key].items():
                    h = value if isinstance(value, bytes) else value['hash']
                    print(key, path, h.hex(), 'optional' if isinstance(value, dict) and value.get('optional') else '')
            """
        let result = try Command.run("python3", ["-c", script, app.appendingPathComponent("_CodeSignature/CodeResources").path])
        try #require(result.status == 0, "\(result.stderr)")
        var lines: [String] = []
        for (key, seals) in [("files", resources.files ?? []), ("files2", resources.files2 ?? [])] {
            for seal in seals {
                guard case .file(let hashes) = seal.content, let sha1 = hashes[.sha1] else { continue }
                lines.append("\(key) \(seal.path) \(hex(sha1)) \(seal.isOptional ? "optional" : "")")
            }
        }
        #expect(lines == result.stdout.split(separator: "\n").map(String.init))
    }

    /// Rebuilding the seal from the bundle with its own rules gives the seal, less the files the
    /// bundle no longer has.
    func rebuildingGivesTheSeal() throws {
        let resources = try CodeResources(bytes: try codeResources)
        let builder = CodeResourcesBuilder(
            rules: try #require(resources.rules), rules2: try #require(resources.rules2), hashTypes: hashTypes)
        let entries = try BundleOnDisk.entries(of: app)
        let plan = try builder.plan(for: entries, mainExecutable: mainExecutable)
        let built = try builder.build(plan, facts: try BundleOnDisk.facts(for: plan.requests, in: app))
        let present = { (seal: CodeResources.Seal) in !trimmed.contains(seal.path) }
        #expect(built.files == resources.files?.filter(present))
        #expect(built.files2 == resources.files2?.filter(present))
        #expect(built.rules == resources.rules)
        #expect(built.rules2 == resources.rules2)
    }

    /// Verifying the bundle against its seal finds exactly the trimmed files missing; changing a
    /// sealed file, adding one and replacing one by a symlink are each reported.
    func verificationFindsWhatChanged() throws {
        let resources = try CodeResources(bytes: try codeResources)
        let entries = try BundleOnDisk.entries(of: app)
        func check(_ entries: [ResourceEntry], root: URL) throws -> [ResourceDiscrepancy] {
            let facts = try BundleOnDisk.facts(for: try resources.verificationRequests(for: entries), in: root)
            return try resources.discrepancies(for: entries, mainExecutable: mainExecutable, facts: facts)
        }
        #expect(try check(entries, root: app) == trimmed.map { .missing(path: $0) })

        let scratch = try ScratchDirectory("code-resources")
        let copy = scratch.url.appendingPathComponent("Copy.app")
        try FileManager.default.copyItem(at: app, to: copy)
        try Data("changed".utf8).write(to: copy.appendingPathComponent("Assets.car"))
        try Data("new".utf8).write(to: copy.appendingPathComponent("Added.txt"))
        try FileManager.default.removeItem(at: copy.appendingPathComponent("PkgInfo"))
        try FileManager.default.createSymbolicLink(atPath: copy.appendingPathComponent("PkgInfo").path, withDestinationPath: "Info.plist")
        let changed = try check(try BundleOnDisk.entries(of: copy), root: copy)
        #expect(changed.contains(.modified(path: "Assets.car")))
        #expect(changed.contains(.unsealed(path: "Added.txt")))
        // files2 omits PkgInfo: verification of a version 2 seal ignores it.
        #expect(!changed.contains { $0.path == "PkgInfo" })
        #expect(changed.count == trimmed.count + 2)
    }
}

@Suite struct XcodeShapedCodeResourcesTests {
    @Test func writesBackByteForByte() throws {
        let seal = try XcodeSeal.generated()
        try seal.writesBackByteForByte()
        let resources = try CodeResources(bytes: try seal.codeResources)
        #expect(resources.files?.count == 13)
        #expect(resources.files2?.count == 11)
        #expect(resources.rules?.map(\.pattern) == ResourceRule.iOSRules.map(\.pattern).sorted())
        #expect(resources.rules2?.count == 10)
        // Current codesign seals files2 with SHA-1 and SHA-256; lproj files other than Base.lproj's
        // are optional.
        guard case .file(let hashes)? = resources.seal(for: "Assets.car")?.content else {
            Issue.record("Assets.car is not sealed as a file")
            return
        }
        #expect(Set(hashes.keys) == [.sha1, .sha256])
        #expect(resources.seal(for: XcodeShapedApp.optionalResource)?.optional == true)
        #expect(resources.seal(for: "Base.lproj/Main.storyboardc/Info.plist")?.isOptional == false)
    }

    @Test func pythonReadsTheSameSeal() throws { try XcodeSeal.generated().pythonReadsTheSameSeal() }

    /// Current rules2: Info.plist and PkgInfo omitted (weight 20), the main executable and
    /// `_CodeSignature` excluded, a Swift dylib sealed as a plain file, `fr.lproj` optional.
    @Test func rulesDecideAsCodesignDoes() throws {
        let seal = try XcodeSeal.generated()
        let resources = try CodeResources(bytes: try seal.codeResources)
        let rules2 = try ResourceRuleSet(try #require(resources.rules2))
        let decisions = try rules2.decide(try BundleOnDisk.entries(of: seal.app), mainExecutable: seal.mainExecutable)
        let outcome = Dictionary(uniqueKeysWithValues: decisions.map { ($0.path, $0.outcome) })
        #expect(outcome["Info.plist"] == .omitted)
        #expect(outcome["PkgInfo"] == .omitted)
        #expect(outcome[seal.mainExecutable] == .excluded)
        #expect(outcome["_CodeSignature"] == .excluded)
        #expect(outcome[XcodeShapedApp.dylibPath] == .sealed)
        #expect(outcome["Assets.car"] == .sealed)
        #expect(decisions.first { $0.path == XcodeShapedApp.optionalResource }?.isOptional == true)
        #expect(decisions.first { $0.path == "Base.lproj/Main.storyboardc/Info.plist" }?.isOptional == false)
    }

    @Test func rebuildingGivesTheSeal() throws { try XcodeSeal.generated().rebuildingGivesTheSeal() }
    @Test func verificationFindsWhatChanged() throws { try XcodeSeal.generated().verificationFindsWhatChanged() }
}

/// Xcode 7.2's seal of isign's `Test.app` (`../shared`).
@Suite(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
struct CodeResourcesTests {
    @Test func xcodesFileWritesBackByteForByte() throws {
        let seal = XcodeSeal.isign()
        try seal.writesBackByteForByte()
        let resources = try CodeResources(bytes: try seal.codeResources)
        #expect(resources.files?.count == 20)
        #expect(resources.files2?.count == 18)
        #expect(resources.rules?.map(\.pattern) == ["^", "^.*\\.lproj/", "^.*\\.lproj/locversion.plist$", "^version.plist$"])
        #expect(resources.rules2?.count == 12)
        // Xcode 7 wrote SHA-1 only: plain <data> for plain files, {hash, optional} for lproj ones.
        let assets = try #require(resources.seal(for: "Assets.car"))
        #expect(assets.optional == nil)
        let nib = try #require(resources.seal(for: "Base.lproj/Main.storyboardc/Info.plist"))
        #expect(nib.optional == true)
        guard case .file(let hashes) = nib.content else {
            Issue.record("a nib is sealed as \(nib.content)")
            return
        }
        #expect(Array(hashes.keys) == [.sha1])
    }

    @Test func pythonReadsTheSameSeal() throws { try XcodeSeal.isign().pythonReadsTheSameSeal() }

    /// Xcode 7's rules2 tie at weight 20 between `^` and `^Info\.plist$`: Info.plist and PkgInfo
    /// were left out of files2, as the omitting rule wins ties. Frameworks' dylibs are plain
    /// files (`^` at 20 beats the nested rule at 10), the main executable is excluded.
    @Test func rulesDecideAsXcodeDid() throws {
        let seal = XcodeSeal.isign()
        let resources = try CodeResources(bytes: try seal.codeResources)
        let rules2 = try ResourceRuleSet(try #require(resources.rules2))
        let decisions = try rules2.decide(try BundleOnDisk.entries(of: seal.app), mainExecutable: "isignTestApp")
        let outcome = Dictionary(uniqueKeysWithValues: decisions.map { ($0.path, $0.outcome) })
        #expect(outcome["Info.plist"] == .omitted)
        #expect(outcome["PkgInfo"] == .omitted)
        #expect(outcome["isignTestApp"] == .excluded)
        #expect(outcome["_CodeSignature"] == .excluded)
        #expect(outcome["_CodeSignature/CodeResources"] == nil)
        #expect(outcome["Frameworks/libswiftContacts.dylib"] == .sealed)
        #expect(outcome["Assets.car"] == .sealed)
        #expect(decisions.first { $0.path == "Base.lproj/Main.storyboardc/Info.plist" }?.isOptional == true)
    }

    @Test func rebuildingGivesXcodesSeal() throws { try XcodeSeal.isign().rebuildingGivesTheSeal() }
    @Test func verificationFindsWhatChanged() throws { try XcodeSeal.isign().verificationFindsWhatChanged() }
}

/// Apple's iOS rules, and nested code, on bundles made for the case.
@Suite struct ResourceRuleTests {
    static func file(_ path: String) -> ResourceEntry { ResourceEntry(path: path, kind: .file) }

    @Test func iOSRulesDecideEachKindOfFile() throws {
        let entries = [
            Self.file("App"), Self.file("Info.plist"), Self.file("PkgInfo"), Self.file("Assets.car"),
            Self.file("embedded.mobileprovision"), Self.file("_CodeSignature/CodeResources"),
            Self.file("Base.lproj/Main.storyboardc/Info.plist"), Self.file("fr.lproj/Localizable.strings"),
            Self.file("fr.lproj/locversion.plist"), Self.file("images/.DS_Store"), Self.file("App.app.dSYM/Contents/Info.plist"),
            Self.file("Frameworks/Kit.framework/Kit"), Self.file("Frameworks/Kit.framework/_CodeSignature/CodeResources"),
            ResourceEntry(path: "Frameworks/Kit.framework/Current", kind: .symlink(target: "Kit")),
        ]
        let decisions = try ResourceRuleSet(ResourceRule.iOSRules2).decide(entries, mainExecutable: "App")
        let outcome = Dictionary(uniqueKeysWithValues: decisions.map { ($0.path, $0.outcome) })
        let optional = Set(decisions.filter(\.isOptional).map(\.path))
        #expect(outcome["App"] == .excluded)
        #expect(outcome["_CodeSignature"] == .excluded)
        #expect(outcome["Info.plist"] == .omitted)
        #expect(outcome["PkgInfo"] == .omitted)
        #expect(outcome["fr.lproj/locversion.plist"] == .omitted)
        #expect(outcome["images/.DS_Store"] == .omitted)
        for sealed in ["Assets.car", "embedded.mobileprovision", "Base.lproj/Main.storyboardc/Info.plist",
                       "fr.lproj/Localizable.strings", "App.app.dSYM/Contents/Info.plist", "Frameworks/Kit.framework/Kit",
                       "Frameworks/Kit.framework/_CodeSignature/CodeResources", "Frameworks/Kit.framework/Current"] {
            #expect(outcome[sealed] == .sealed, "\(sealed)")
        }
        // Base.lproj (weight 1010) is not optional; other localizations (1000) are.
        #expect(optional == ["fr.lproj/Localizable.strings"])
        // The version 1 rules seal Info.plist and PkgInfo too.
        let version1 = try ResourceRuleSet(ResourceRule.iOSRules).decide(entries, mainExecutable: "App")
        #expect(version1.first { $0.path == "Info.plist" }?.outcome == .sealed)
    }

    /// With a `nested` rule, a folder with an extension is one piece of nested code and hides
    /// its contents; a Mach-O file under the rule is nested too, a symlink never is.
    @Test func nestedRulesTakeBundlesWhole() throws {
        let rules = [
            ResourceRule.seal("^.*"),
            .rule("^(Frameworks|PlugIns)/", weight: 10, nested: true),
        ]
        let entries = [
            Self.file("Frameworks/Kit.framework/Kit"), Self.file("Frameworks/Kit.framework/Info.plist"),
            Self.file("Frameworks/libswiftCore.dylib"), Self.file("PlugIns/Share.appex/Share"),
            ResourceEntry(path: "Frameworks/Link.dylib", kind: .symlink(target: "libswiftCore.dylib")),
            Self.file("Frameworks/Headers/Kit.h"),
        ]
        let decisions = try ResourceRuleSet(rules).decide(entries, mainExecutable: nil)
        #expect(decisions.map(\.path) == [
            "Frameworks/Headers/Kit.h", "Frameworks/Kit.framework", "Frameworks/Link.dylib", "Frameworks/libswiftCore.dylib",
            "PlugIns/Share.appex",
        ])
        #expect(decisions.map(\.outcome) == [.nested, .nested, .sealed, .nested, .nested])
        #expect(decisions.map(\.isNested) == [true, true, false, true, true])

        let builder = CodeResourcesBuilder(rules: rules, rules2: rules, hashTypes: [.sha256])
        let plan = try builder.plan(for: entries, mainExecutable: nil)
        #expect(plan.requests.map(\.path) == ["Frameworks/Headers/Kit.h", "Frameworks/Kit.framework", "Frameworks/libswiftCore.dylib", "PlugIns/Share.appex"])
        let digest = [UInt8](repeating: 7, count: 32)
        let resources = try builder.build(
            plan,
            facts: [
                // A file under a nested rule that is not code is sealed by its digests.
                "Frameworks/Headers/Kit.h": .digests([.sha1: Array(digest.prefix(20)), .sha256: digest]),
                "Frameworks/Kit.framework": .nestedCode(cdhash: Array(digest.prefix(20)), requirement: "identifier Kit"),
                "Frameworks/libswiftCore.dylib": .nestedCode(
                    cdhash: Array(digest.prefix(20)), requirement: "cdhash H\"07\"", digests: [.sha1: Array(digest.prefix(20))]),
                "PlugIns/Share.appex": .nestedCode(cdhash: Array(digest.prefix(20)), requirement: "identifier Share"),
            ])
        #expect(resources.files2?.map(\.path) == decisions.map(\.path))
        #expect(resources.seal(for: "Frameworks/Link.dylib")?.content == .symlink(target: "libswiftCore.dylib"))
        #expect(resources.seal(for: "Frameworks/Headers/Kit.h")?.content == .file([.sha256: digest]))
        #expect(resources.seal(for: "PlugIns/Share.appex")?.content == .nestedCode(cdhash: Array(digest.prefix(20)), requirement: "identifier Share"))
        // files (version 1) holds only regular files, with {hash, optional} for flagged rules.
        #expect(resources.files?.map(\.path) == ["Frameworks/Headers/Kit.h", "Frameworks/libswiftCore.dylib"])
        #expect(resources.files?.map(\.optional) == [false, false])

        // What was built reads back the same, and verifies against the same facts.
        let reread = try CodeResources(bytes: try resources.serialized())
        #expect(reread == resources)
        let facts: [String: ResourceFacts] = [
            "Frameworks/Headers/Kit.h": .digests([.sha256: digest]),
            "Frameworks/Kit.framework": .nestedCode(cdhash: Array(digest.prefix(20)), requirement: "identifier Kit"),
            "Frameworks/libswiftCore.dylib": .nestedCode(cdhash: [UInt8](repeating: 8, count: 20), requirement: "x"),
            "PlugIns/Share.appex": .nestedCode(cdhash: Array(digest.prefix(20)), requirement: "identifier Share"),
        ]
        var changed = entries
        changed[4] = ResourceEntry(path: "Frameworks/Link.dylib", kind: .symlink(target: "elsewhere"))
        #expect(try reread.discrepancies(for: changed, mainExecutable: nil, facts: facts) == [
            .symlinkChanged(path: "Frameworks/Link.dylib", sealed: "libswiftCore.dylib", actual: "elsewhere"),
            .nestedCodeChanged(path: "Frameworks/libswiftCore.dylib"),
        ])
    }

    /// A seal that names nested code's designated requirement holds only for code with that
    /// requirement (white space aside), even when the cdhash matches; code with no explicit
    /// designated requirement, or a seal without one, is checked by cdhash alone.
    @Test func nestedCodeIsCheckedByItsDesignatedRequirementToo() throws {
        let rules = [ResourceRule.seal("^.*"), .rule("^Frameworks/", weight: 10, nested: true)]
        let entries = [Self.file("Frameworks/Kit.framework/Kit")]
        let cdhash = [UInt8](repeating: 7, count: 20)
        let sealed = "identifier \"com.example.Kit\" and anchor apple generic"
        let builder = CodeResourcesBuilder(rules: rules, rules2: rules, hashTypes: [.sha256])
        let resources = try builder.build(
            try builder.plan(for: entries, mainExecutable: nil),
            facts: ["Frameworks/Kit.framework": .nestedCode(cdhash: cdhash, requirement: sealed)])
        func check(_ requirement: String) throws -> [ResourceDiscrepancy] {
            try resources.discrepancies(
                for: entries, mainExecutable: nil,
                facts: ["Frameworks/Kit.framework": .nestedCode(cdhash: cdhash, requirement: requirement)])
        }
        #expect(try check(sealed).isEmpty)
        #expect(try check("identifier  \"com.example.Kit\"\n and anchor apple generic").isEmpty)
        #expect(try check("").isEmpty)
        #expect(try check("identifier \"com.example.Other\" and anchor apple generic") == [
            .nestedCodeChanged(path: "Frameworks/Kit.framework")
        ])
    }

    @Test func aDSStoreSymlinkIsRefused() {
        let entries = [ResourceEntry(path: "x/.DS_Store", kind: .symlink(target: "../Info.plist"))]
        #expect(throws: CodeSignatureError.self) { try ResourceRuleSet(ResourceRule.iOSRules2).decide(entries, mainExecutable: nil) }
    }

    @Test(arguments: [
        ("^(a)\\1$", "a back-reference"), ("^[", "a bracket that never closes"), ("(", "a parenthesis that never closes"),
        (String(repeating: "a", count: 1025), "a pattern over the length limit"),
    ])
    func badPatternsAreRefused(_ pattern: String, _ what: String) {
        do {
            _ = try ResourceRuleSet([.seal(pattern)])
            Issue.record("\(what) was accepted")
        } catch {
            #expect(error.code == "CODE_RESOURCES_RULE_INVALID", "\(what)")
        }
    }

    /// An escaped backslash before a digit is a literal, not a back-reference.
    @Test func escapedBackslashBeforeADigitIsALiteral() throws {
        let rules = try ResourceRuleSet([.seal("^a\\\\1$")])
        #expect(rules.rule(for: "a\\1") != nil)
        #expect(rules.rule(for: "a1") == nil)
    }

    /// Weights as Apple reads them into an `unsigned int`.
    @Test func weightsAreClamped() {
        #expect(ResourceRule.rule("x", weight: -5).effectiveWeight == 0)
        #expect(ResourceRule.rule("x", weight: 1e20).effectiveWeight == UInt32.max)
        #expect(ResourceRule.rule("x", weight: .nan).effectiveWeight == 0)
        #expect(ResourceRule.seal("x").effectiveWeight == 1)
        #expect(ResourceRule("x", .options(.init(weight: .integer(-1)))).effectiveWeight == 0)
    }
}

/// CodeResources that are not what signers write are refused with `CODE_RESOURCES_INVALID`.
@Suite struct HostileCodeResourcesTests {
    static func plist(_ body: String) -> [UInt8] {
        Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>\(body)</dict></plist>
            """.utf8)
    }

    @Test(arguments: [
        ("<key>files</key><array/>", "files is an array"),
        ("<key>extra</key><true/>", "an unknown top-level key"),
        ("<key>files2</key><dict><key>a</key><string>x</string></dict>", "a seal that is a string"),
        ("<key>files2</key><dict><key>a</key><dict/></dict>", "an empty seal"),
        ("<key>files2</key><dict><key>a</key><dict><key>hash</key><data>AA==</data><key>symlink</key><string>b</string></dict></dict>", "a seal that is both file and symlink"),
        ("<key>files2</key><dict><key>a</key><dict><key>hash0</key><data>AA==</data></dict></dict>", "a hash key with a leading zero"),
        ("<key>files2</key><dict><key>a</key><dict><key>hash2</key><string>x</string></dict></dict>", "a hash that is a string"),
        ("<key>files2</key><dict><key>a</key><dict><key>cdhash</key><data>AA==</data><key>optional</key><integer>1</integer></dict></dict>", "optional as an integer"),
        ("<key>rules2</key><dict><key>^</key><string>x</string></dict>", "a rule that is a string"),
        ("<key>rules2</key><dict><key>^</key><dict><key>weight</key><string>x</string></dict></dict>", "a weight that is a string"),
        ("<key>rules2</key><dict><key>^</key><dict><key>shiny</key><true/></dict></dict>", "a rule with an unknown key"),
    ])
    func malformedSealsAreRefused(_ body: String, _ what: String) {
        do {
            _ = try CodeResources(bytes: Self.plist(body))
            Issue.record("\(what) was accepted")
        } catch {
            #expect(error.code == "CODE_RESOURCES_INVALID", "\(what): \(error)")
        }
    }

    @Test func notAPropertyList() {
        #expect(throws: CodeSignatureError.self) { try CodeResources(bytes: Array("{}".utf8)) }
        #expect(throws: CodeSignatureError.self) { try CodeResources(bytes: Array("<plist version=\"1.0\"><array/></plist>".utf8)) }
    }

    @Test func verifyingNeedsRules() throws {
        let resources = try CodeResources(bytes: Self.plist("<key>files2</key><dict/>"))
        #expect(throws: CodeSignatureError.self) { try resources.verificationRequests(for: []) }
    }
}
