import Foundation
import TestSupport
import Testing

@testable import CodeSignature

/// Inputs `Scripts/fuzz fuzz-signature` once failed on, kept in
/// `Tests/Fixtures/signature/fuzz-regressions/`.
@Suite struct FuzzRegressionTests {
    static let stackedPlus = "signature/fuzz-regressions/rule-with-60-stacked-plus.plist"

    /// What the fuzzer found, made again by this project's CodeResources writer: codesign's seal
    /// of a small app with `^embed+++…+ded\.provisionprofile$` (60 stacked `+`) added to rules2.
    static func stackedPlusSeal() -> [UInt8] {
        let seals = [
            CodeSigningParts.Seal(path: "Assets.car", contents: Array("catalog".utf8)),
            CodeSigningParts.Seal(path: "Base.lproj/Main.storyboardc/Info.plist", contents: Array("<plist/>".utf8)),
            CodeSigningParts.Seal(path: "fr.lproj/Localizable.strings", contents: Array("x".utf8), optional: true),
            CodeSigningParts.Seal(path: "Info.plist", contents: Array("info".utf8), inFiles2: false),
        ]
        let pattern = "^embed" + String(repeating: "+", count: 60) + "ded\\.provisionprofile$"
        return CodeSigningParts.codeResources(seals, extraRules2: [(pattern, 20)])
    }

    /// The committed input is what the writer makes (`IPAWRAP_WRITE_FIXTURES=1` rewrites it; it
    /// also seeds `fuzz-signature`).
    @Test func theCommittedInputIsWhatTheWriterMakes() throws {
        if ProcessInfo.processInfo.environment["IPAWRAP_WRITE_FIXTURES"] == "1" {
            try Data(Self.stackedPlusSeal()).write(to: Fixtures.url(Self.stackedPlus))
        }
        #expect(try Fixtures.bytes(Self.stackedPlus) == Self.stackedPlusSeal(), "rewrite with IPAWRAP_WRITE_FIXTURES=1")
    }

    /// A CodeResources with 60 stacked `+` in a rule: glibc's regcomp doubled the pattern for
    /// each `+` until memory ran out. The seal reads; the rule is refused.
    @Test func stackedRepetitionsAreRefusedBeforeCompiling() throws {
        let resources = try CodeResources(bytes: try Fixtures.bytes(Self.stackedPlus))
        let rules = try #require(resources.rules2)
        #expect(rules.contains { $0.pattern.contains(String(repeating: "+", count: 60)) })
        do throws(CodeSignatureError) {
            _ = try ResourceRuleSet(rules)
            Issue.record("the rule was compiled")
        } catch {
            #expect(error.code == "CODE_RESOURCES_RULE_INVALID")
        }
    }

    @Test(arguments: [
        ("^.*\\.lproj/locversion.plist$", 26), ("a+", 2), ("(ab)+", 4), ("a++", 4), ("a{3}", 3), ("a{2,5}", 5),
        ("a{2,}", 3), ("[a+(]+", 2), ("[]+]", 1), ("[[:alpha:]+]*", 1), ("\\++", 2), ("(a|bc)+", 6),
    ])
    func expandedSizesCountWhatGlibcCopies(_ pattern: String, _ size: Int) {
        #expect(POSIXRegularExpression.expandedSize(Array(pattern.utf8)) == size, "\(pattern)")
    }

    @Test(arguments: ["a" + String(repeating: "+", count: 13), "(a{99}){99}", "a{5000}", "((((((((((((ab)+)+)+)+)+)+)+)+)+)+)+)+)+"])
    func explosiveRepetitionsAreRefused(_ pattern: String) {
        #expect(throws: CodeSignatureError.self) { try ResourceRuleSet([.seal(pattern)]) }
    }

    /// Every rule Apple and the fixtures use stays far below the limit.
    @Test func realRulesAreSmall() {
        for rule in ResourceRule.iOSRules + ResourceRule.iOSRules2 {
            #expect(POSIXRegularExpression.expandedSize(Array(rule.pattern.utf8)) < 64, "\(rule.pattern)")
        }
    }
}
