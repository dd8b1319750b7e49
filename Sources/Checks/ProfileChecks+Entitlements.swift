import AppBundle
import CodeSignature
import FormatSupport
import Foundation
import MachO
import PropertyList
import ProvisioningProfile
import Reporting
import Verification
import Zip

/// The entitlements of a bundle's code signature against its profile, and the app's Data
/// Protection class.
extension ProfileChecks {
    /// `ENTITLEMENT_NOT_IN_PROFILE`: keys the executable is signed with that the profile lacks.
    static func entitlementFindings(_ assignment: ProfileAssignment, context: CheckContext) -> [Finding] {
        let bundle = assignment.bundle
        guard let path = bundle.executablePath else { return [] }
        let signed: PropertyListDictionary
        switch context.signatureReading(of: bundle).entitlements {
        case .none:
            return []
        case .entitlements(let entitlements):
            signed = entitlements
        case .signatureUnreadable(let architecture, let reason):
            // A damaged signature hides what the bundle is entitled to: say so rather than
            // report a clean bundle.
            return [Finding(
                .profile(.signatureUnreadable(executablePath: path, architecture: architecture, reason: reason)), at: .archive(path))]
        case .entitlementsUnreadable(let reason):
            return [Finding(
                .profile(.signedEntitlementsUnreadable(executablePath: path, reason: reason)),
                at: .archive(path))]
        }
        let missing = signed.keys.filter { assignment.profile.entitlements[$0] == nil }.sorted()
        guard !missing.isEmpty else { return [] }
        return [Finding(
            .profile(.entitlementsNotGranted(
                executablePath: path, profile: describe(assignment.profile, file: assignment.file), entitlements: missing)),
            at: .archive(path))]
    }

    /// The entitlements of the first slice whose signature has some, slice by slice; the first
    /// slice whose signature cannot be read, or whose entitlements cannot be parsed, stops it.
    static func signedEntitlements(_ slices: SignatureSummary.Slices, clock: WorkClock) -> EntitlementsInSignature {
        for index in slices.file.slices.indices {
            guard let read = slices.signature(at: index) else { continue }
            let signature: EmbeddedSignature
            switch read.signature {
            case .success(let readable):
                signature = readable
            case .failure(let error):
                return .signatureUnreadable(architecture: read.slice.architecture.name, reason: BinaryScanner.reason(error))
            }
            do {
                if let entitlements = try entitlements(of: signature, clock: clock) { return .entitlements(entitlements) }
            } catch {
                return .entitlementsUnreadable(reason: "\(error)")
            }
        }
        return .none
    }

    /// The XML entitlements of a signature, else its DER entitlements; nil when it has neither.
    static func entitlements(of signature: EmbeddedSignature, clock: WorkClock) throws -> PropertyListDictionary? {
        if let xml = signature.entitlementsXML {
            let root = try PropertyList(bytes: xml, limits: PropertyListLimits(clock: clock)).root
            guard let dictionary = root.dictionary else {
                throw ProfileError(.entitlementsInvalid, "the XML entitlements' root is \(root.typeName), not a dictionary")
            }
            return dictionary
        }
        if let der = signature.entitlementsDER {
            return try DEREntitlements(derEncoded: der).dictionary
        }
        return nil
    }

    /// `DATA_PROTECTION_NOT_ENABLED` for the app's profile (seeds-digest §3).
    static func dataProtectionFindings(_ assignment: ProfileAssignment) -> [Finding] {
        let profile = assignment.profile
        let value = profile.entitlements[dataProtectionKey]
        if value?.string == "NSFileProtectionComplete" { return [] }
        let subject = describe(profile, file: assignment.file)
        let appID = profile.applicationIdentifier.rawValue
        if let value {
            return [Finding(
                .profile(.dataProtectionWeaker(profile: subject, appID: appID, key: dataProtectionKey, value: "\(value)")),
                at: assignment.location, severity: .info)]
        }
        return [Finding(
            .profile(.dataProtectionNotGranted(profile: subject, appID: appID, key: dataProtectionKey)),
            at: assignment.location)]
    }
}
