import Foundation
import TestSupport
import Testing

@testable import CodeSignature

/// Inputs `Scripts/fuzz fuzz-signature` once failed on, kept in
/// `Tests/Fixtures/signature/fuzz-regressions/`.
@Suite struct FuzzRegressionTests {
    /// Xcode's CodeResources with `^embed+++…+ded\.provisionprofile$` (60 stacked `+`) as a rule:
    /// glibc's regcomp doubled the pattern for each `+` until memory ran out. The rule is refused.
    @Test func stackedRepetitionsAreRefusedBeforeCompiling() throws {
        let resources = try CodeResources(
            bytes: try Fixtures.bytes("signature/fuzz-regressions/rule-with-60-stacked-plus.plist"))
        let rules = try #require(resources.rules2)
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
