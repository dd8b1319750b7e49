import CMS
import Crypto
import Foundation
import SwiftASN1
import X509

/// An X.509 certificate in a profile: one of its `DeveloperCertificates` (an identity allowed to
/// sign apps with the profile), or one of the CMS signing chain (Apple's profile-signing
/// certificate). Apple names the team in a developer certificate's organizational unit and puts
/// the role and team in its common name, e.g. `Apple Distribution: Example Corp (ABCDE12345)`.
public struct ProfileCertificate: Sendable, Hashable {
    /// The certificate as stored in the profile (DER).
    public let derBytes: [UInt8]
    /// The subject, RFC 4514 style (`CN=…,OU=…,O=…,C=…`).
    public let subject: String
    /// The subject's common name: the identity name `codesign` and Xcode show.
    public let commonName: String?
    /// The subject's organizational unit: Apple's team ID.
    public let teamIdentifier: String?
    /// The subject's organization: the team's name.
    public let organization: String?
    /// The issuer's common name (`Apple Worldwide Developer Relations Certification Authority`).
    public let issuerCommonName: String?
    /// The serial number in upper-case hex, as Keychain Access and `openssl x509 -serial` print it.
    public let serialNumber: String
    public let notValidBefore: Date
    public let notValidAfter: Date
    /// SHA-1 of the DER bytes in upper-case hex: the "fingerprint" signing tools take (`codesign
    /// -s`, the Intune wrapper's `-c`) to pick an identity.
    public let sha1Fingerprint: String
    /// SHA-256 of the DER bytes in upper-case hex.
    public let sha256Fingerprint: String

    /// Parses a DER X.509 certificate.
    public init(derEncoded bytes: [UInt8]) throws(ProfileError) {
        let certificate: Certificate
        do {
            certificate = try Certificate(derEncoded: bytes)
        } catch {
            throw ProfileError(.fieldInvalid, "the certificate \(CertificateDiagnosis.unreadable(bytes))")
        }
        derBytes = bytes
        subject = certificate.subject.description
        commonName = Self.attribute(ASN1ObjectIdentifier.RDNAttributeType.commonName, in: certificate.subject)
        teamIdentifier = Self.attribute(
            ASN1ObjectIdentifier.RDNAttributeType.organizationalUnitName, in: certificate.subject)
        organization = Self.attribute(
            ASN1ObjectIdentifier.RDNAttributeType.organizationName, in: certificate.subject)
        issuerCommonName = Self.attribute(
            ASN1ObjectIdentifier.RDNAttributeType.commonName, in: certificate.issuer)
        var serial = certificate.serialNumber.bytes
        // DER prefixes a zero byte when the high bit is set; it is not part of the number.
        if serial.count > 1, serial.first == 0 { serial = serial.dropFirst() }
        serialNumber = Self.hex(serial)
        notValidBefore = certificate.notValidBefore
        notValidAfter = certificate.notValidAfter
        sha1Fingerprint = Self.hex(Insecure.SHA1.hash(data: bytes))
        sha256Fingerprint = Self.hex(SHA256.hash(data: bytes))
    }

    /// Whether the certificate is outside its validity period at `date`.
    public func isExpired(at date: Date) -> Bool {
        date > notValidAfter
    }

    private static func attribute(_ type: ASN1ObjectIdentifier, in name: DistinguishedName) -> String? {
        for relative in name {
            for attribute in relative where attribute.type == type {
                if let text = String(attribute.value) { return text }
            }
        }
        return nil
    }

    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
