import Policy
import Testing

/// `--set NAME=VALUE`: each value is checked against the policy's type before anything is written.
@Suite struct OverrideTests {
    private func premium() throws -> PolicyTemplate { try Repo.template("premium") }

    private func expectRejected(_ name: String, _ value: String, containing fragment: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var template = try premium()
        #expect(sourceLocation: sourceLocation) {
            try template.set(name: name, value: value)
        } throws: { error in
            guard let error = error as? PolicyOverrideError else { return false }
            return error.code == "POLICY_INVALID_VALUE" && error.category == .usage
                && error.description.contains(fragment)
        }
        #expect(template.changedNames.isEmpty, sourceLocation: sourceLocation)
    }

    private func expectAccepted(_ name: String, _ value: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var template = try premium()
        try template.set(name: name, value: value)
        #expect(template.policy(named: name)?.defaultValue == value, sourceLocation: sourceLocation)
    }

    @Test func booleans() throws {
        try expectAccepted("DisableCamera", "true")
        try expectAccepted("DisableCamera", "false")
        for bad in ["yes", "TRUE", "1", "", " true"] {
            try expectRejected("DisableCamera", bad, containing: "use true or false")
        }
    }

    @Test func integersWithinTheirRange() throws {
        for good in ["1", "24", "8760"] { try expectAccepted("MaxOfflinePeriod", good) }
        try expectRejected("MaxOfflinePeriod", "0", containing: "below the minimum of 1")
        try expectRejected("MaxOfflinePeriod", "8761", containing: "above the maximum of 8760")
        try expectRejected("MaxOfflinePeriod", "-5", containing: "below the minimum of 1")
        for bad in ["", "abc", "012", "+5", "-0", "1.5", "1e3", " 24", "٣"] {
            try expectRejected("MaxOfflinePeriod", bad, containing: "not a decimal integer")
        }
        try expectRejected("MaxOfflinePeriod", "99999999999999999999", containing: "does not fit in a 64-bit integer")
    }

    @Test func unboundedIntegersReachTheLimitsOfInt64() {
        let type = PolicyValueType.integer(minimum: nil, maximum: nil)
        #expect(type.problem(with: "9223372036854775807") == nil)
        #expect(type.problem(with: "-9223372036854775808") == nil)
        #expect(type.problem(with: "9223372036854775808") != nil)
    }

    @Test func strings() throws {
        for good in ["", "gateway.example.com", "a&b<c>\"d\"", "网关.example.cn"] {
            try expectAccepted("AlternateGatewayAddress", good)
        }
        try expectRejected("AlternateGatewayAddress", "a\nb", containing: "control character U+000A")
        try expectRejected("AlternateGatewayAddress", "a\u{0}b", containing: "control character U+0000")
        try expectRejected("AlternateGatewayAddress", String(repeating: "x", count: 65537), containing: "longer than 65536")
    }

    @Test func enumsByIdentifier() throws {
        for good in ["UsePreviousSettings", "Blocked", "Unrestricted", "TunneledFullVPN", "TunneledWebSSO", "TunneledFullVPNAndWebSSO"] {
            try expectAccepted("NetworkAccess", good)
        }
        try expectRejected("NetworkAccess", "tunneledwebsso", containing: "did you mean 'TunneledWebSSO'?")
        try expectRejected("NetworkAccess", "Tunneled - Web SSO", containing: "is not one of UsePreviousSettings, Blocked")
        try expectRejected("CutAndCopy", "", containing: "is not one of Unrestricted, Blocked, Restricted")
    }

    @Test func stringLists() throws {
        for good in ["", "a", "example.com,intranet.example.com", "^mailto:=ctxmail:,+tel:"] {
            try expectAccepted("NetworkExclusionList", good)
        }
        try expectRejected("NetworkExclusionList", "a,,b", containing: "entry 2 of the list is empty")
        try expectRejected("NetworkExclusionList", "a,", containing: "entry 2 of the list is empty")
        try expectRejected("NetworkExclusionList", ",a", containing: "entry 1 of the list is empty")
        try expectRejected("NetworkExclusionList", "a, b", containing: "entry 2 of the list, ' b', starts or ends with whitespace")
    }

    @Test func unknownNamesSuggestCloseOnes() throws {
        var template = try premium()
        let cases: [(String, String)] = [
            ("DisableCamra", "DisableCamera"), ("disablecamera", "DisableCamera"),
            ("Camera", "DisableCamera"), ("NetworkAcess", "NetworkAccess"),
        ]
        for (typo, suggestion) in cases {
            #expect {
                try template.set(name: typo, value: "true")
            } throws: { error in
                guard let error = error as? PolicyOverrideError else { return false }
                return error.code == "POLICY_UNKNOWN_NAME" && error.category == .usage
                    && error.suggestions.first == suggestion
                    && error.description.contains("no policy named '\(typo)'; did you mean '\(suggestion)'")
            }
        }
        #expect {
            try template.set(name: "Zzzzzzzz", value: "true")
        } throws: { ($0 as? PolicyOverrideError)?.description == "the template has no policy named 'Zzzzzzzz'" }
    }

    @Test func generalRefusesPremiumOnlyPolicies() throws {
        var general = try Repo.template("general")
        #expect(throws: PolicyOverrideError.self) { try general.set(name: "EnableEncryption", value: "false") }
        try general.set(name: "DisableCamera", value: "true")
        #expect(general.changedNames == ["DisableCamera"])
    }

    @Test func argumentsParseAtTheFirstEquals() throws {
        let url = try PolicyOverride(argument: "AllowedURLs=^http:=ctxmobilebrowser:")
        #expect(url == PolicyOverride(name: "AllowedURLs", value: "^http:=ctxmobilebrowser:"))
        #expect(try PolicyOverride(argument: "AlternateGatewayAddress=") == PolicyOverride(name: "AlternateGatewayAddress", value: ""))
        for bad in ["DisableCamera", "=true", "Disable Camera=true", ""] {
            #expect { try PolicyOverride(argument: bad) } throws: { ($0 as? PolicyOverrideError)?.code == "POLICY_SET_SYNTAX" }
        }
    }

    @Test func applyStopsAtTheFirstBadOverrideAndLaterOnesWin() throws {
        var template = try premium()
        try template.apply([
            PolicyOverride(name: "DisableCamera", value: "true"),
            PolicyOverride(name: "DisableCamera", value: "false"),
            PolicyOverride(name: "Paste", value: "Blocked"),
        ])
        #expect(template.changedNames == ["Paste"])
        #expect(throws: PolicyOverrideError.self) {
            try template.apply([PolicyOverride(name: "CutAndCopy", value: "Blocked"), PolicyOverride(name: "Paste", value: "no")])
        }
        #expect(template.changedNames == ["CutAndCopy", "Paste"])
        #expect(template.policy(named: "Paste")?.defaultValue == "Blocked")
    }
}

@Suite struct PolicyValueTypeTests {
    @Test func describesItselfForListings() throws {
        let premium = try Repo.template("premium")
        #expect(premium.policy(named: "DisableCamera")?.type.description == "boolean")
        #expect(premium.policy(named: "MaxOfflinePeriod")?.type.description == "integer 1...8760")
        #expect(premium.policy(named: "CutAndCopy")?.type.description == "enum Unrestricted|Blocked|Restricted")
        #expect(premium.policy(named: "AllowedURLs")?.type.description == "stringlist")
        #expect(PolicyValueType.integer(minimum: nil, maximum: 5).description == "integer ...5")
        #expect(PolicyValueType.integer(minimum: nil, maximum: nil).description == "integer")
    }

    @Test func integerBoundsAreReadAsXMLSchemaLongs() throws {
        let text = """
            <PolicyMetadata AppMode="premium" FormatVersion="1"><Policies><Policy>
            <PolicyName>Retries</PolicyName><PolicyType>integer</PolicyType>
            <PolicyMinimum>5</PolicyMinimum><PolicyMaximum>+9</PolicyMaximum>
            <PolicyDefault>5</PolicyDefault><PolicyHidden>false</PolicyHidden><PolicyCategory>C</PolicyCategory>
            <PolicyTitle lang="en">Retries</PolicyTitle><PolicyDescription lang="en">How often.</PolicyDescription>
            </Policy></Policies></PolicyMetadata>
            """
        let template = try PolicyTemplate(bytes: Array(text.utf8), schema: Repo.schema())
        #expect(template.policy(named: "Retries")?.type == .integer(minimum: 5, maximum: 9))
    }
}
