extension RequirementExpression {
    /// `1.2.840.113635.100.6.2.1`: the Apple Worldwide Developer Relations intermediate's marker
    /// extension, which makes a chain an iOS/Apple-issued development or distribution chain.
    public static let wwdrIntermediateMarker: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x06, 0x02, 0x01]
    /// `1.2.840.113635.100.6.2.6`: the Developer ID intermediate's marker.
    public static let developerIDIntermediateMarker: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x06, 0x02, 0x06]
    /// `1.2.840.113635.100.6.1.13`: the Developer ID Application leaf's marker.
    public static let developerIDLeafMarker: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x06, 0x01, 0x0D]

    /// `a and (b and (c …))`, the right-nested shape Apple's requirement maker writes.
    public static func all(_ terms: [RequirementExpression]) -> RequirementExpression {
        guard let last = terms.last else { return .always }
        return terms.dropLast().reversed().reduce(last) { .and($1, $0) }
    }
}

extension Requirement {
    /// The designated requirement codesign (`DRMaker`) writes for code signed with an
    /// Apple-issued iOS development or distribution certificate:
    ///
    ///     identifier "<id>" and anchor apple generic and certificate leaf[subject.CN] = "<leaf CN>"
    ///       and certificate 1[field.1.2.840.113635.100.6.2.1] /* exists */
    public static func iOSDesignated(identifier: String, leafCommonName: String) -> Requirement {
        Requirement(
            .all([
                .identifier(Array(identifier.utf8)),
                .anchorAppleGeneric,
                .certificateField(
                    certificate: CertificateSlot.leaf, field: Array("subject.CN".utf8),
                    .equal(Array(leafCommonName.utf8))),
                .certificateGeneric(certificate: 1, oid: RequirementExpression.wwdrIntermediateMarker, .exists),
            ]))
    }

    /// The designated requirement codesign writes for a Developer ID chain: the team, not the
    /// certificate's name, identifies the signer.
    ///
    ///     identifier "<id>" and anchor apple generic and certificate 1[field.1.2.840.113635.100.6.2.6] /* exists */
    ///       and certificate leaf[field.1.2.840.113635.100.6.1.13] /* exists */ and certificate leaf[subject.OU] = <team>
    public static func developerIDDesignated(identifier: String, teamIdentifier: String) -> Requirement {
        Requirement(
            .all([
                .identifier(Array(identifier.utf8)),
                .anchorAppleGeneric,
                .certificateGeneric(certificate: 1, oid: RequirementExpression.developerIDIntermediateMarker, .exists),
                .certificateGeneric(
                    certificate: CertificateSlot.leaf, oid: RequirementExpression.developerIDLeafMarker, .exists),
                .certificateField(
                    certificate: CertificateSlot.leaf, field: Array("subject.OU".utf8),
                    .equal(Array(teamIdentifier.utf8))),
            ]))
    }

    /// The implicit designated requirement of ad-hoc code: its cdhash.
    public static func adHocDesignated(cdhash: [UInt8]) -> Requirement {
        Requirement(.cdhash(cdhash))
    }
}
