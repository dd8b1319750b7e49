// Fuzzes the provisioning-profile reader: `ProvisioningProfile(bytes:)` (BER/DER CMS, the signed
// property list, its fields and the developer certificates), `CMSSignedData(berEncoded:)` with
// each embedded certificate, and `DEREntitlements(derEncoded:)` on the same bytes. Checks that:
// - every DeveloperCertificates entry is either a certificate or one problem sentence;
// - a certificate keeps its DER bytes and has hex SHA-1/SHA-256 fingerprints;
// - the App ID matches, and resolves for, the bundle ID it names when it is explicit.
// Every refusal is a `ProfileError` by the readers' typed throws.
import CMS
import CodeSignature
import Foundation
import FuzzDriver
import PropertyList
import ProvisioningProfile

let isHex: (String, Int) -> Bool = { text, length in
    text.utf8.count == length && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }
}

func fuzzOne(_ bytes: [UInt8]) {
    if let signedData = try? CMSSignedData(berEncoded: bytes) {
        for der in signedData.certificates.prefix(8) {
            guard let certificate = try? ProfileCertificate(derEncoded: der) else { continue }
            check(certificate, der)
        }
        // A profile is CMS first, so only inputs that got this far can be one.
        if let profile = try? ProvisioningProfile(bytes: bytes) {
            check(profile)
        }
    }
    if let entitlements = try? DEREntitlements(derEncoded: bytes) {
        _ = entitlements.dictionary.count
    }
}

func check(_ certificate: ProfileCertificate, _ der: [UInt8]) {
    precondition(certificate.derBytes == der, "a certificate does not keep its DER bytes")
    precondition(isHex(certificate.sha1Fingerprint, 40), "odd SHA-1 fingerprint \(certificate.sha1Fingerprint)")
    precondition(isHex(certificate.sha256Fingerprint, 64), "odd SHA-256 fingerprint \(certificate.sha256Fingerprint)")
    _ = certificate.isExpired(at: Date(timeIntervalSince1970: 1_700_000_000))
}

func check(_ profile: ProvisioningProfile) {
    let declared = profile.plist["DeveloperCertificates"]?.array?.count ?? 0
    precondition(profile.developerCertificates.count + profile.certificateProblems.count == declared,
                 "\(declared) DeveloperCertificates gave \(profile.developerCertificates.count) certificates and \(profile.certificateProblems.count) problems")
    for certificate in profile.developerCertificates {
        check(certificate, certificate.derBytes)
    }
    _ = (profile.signingCertificates.count, profile.distribution, profile.isForIOS, profile.teamIdentifier)
    _ = profile.isExpired(at: Date(timeIntervalSince1970: 1_700_000_000))
    let appID = profile.applicationIdentifier
    if !appID.isWildcard {
        precondition(appID.matches(appID.bundlePattern), "an explicit App ID does not match its own bundle ID")
        precondition(appID.resolved(for: appID.bundlePattern) == appID.rawValue, "an explicit App ID does not resolve to itself")
    } else if let stem = appID.wildcardStem {
        precondition(appID.matches(stem + "x"), "a wildcard App ID does not match a bundle ID under its stem")
        precondition(!appID.matches(stem), "a wildcard App ID matches its bare stem")
    }
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
