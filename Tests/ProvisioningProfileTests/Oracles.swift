import Foundation
import TestSupport

/// Independent readers to compare the decoder against: openssl (CMS and X.509) and Foundation's
/// `PropertyListSerialization` (CoreFoundation's plist parser).
enum ProfileOracle {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Why the openssl oracles cannot run, or nil.
    static let opensslMissing: String? = ProfileBuilder.opensslMissing

    /// The signed content as `openssl cms -verify -noverify` extracts it (signature checked
    /// against the embedded certificate, chain not checked).
    static func cmsContent(_ profile: [UInt8]) throws -> [UInt8] {
        let scratch = try ScratchDirectory("oracle")
        let input = try scratch.write("in.mobileprovision", profile)
        let output = scratch.path("content.plist")
        let result = try Command.run(
            "openssl", ["cms", "-verify", "-noverify", "-binary", "-inform", "DER", "-in", input, "-out", output])
        guard result.status == 0 else { throw Failure(description: "openssl cms -verify failed: \(result.stderr)") }
        return try Fixtures.bytesAt(output)
    }

    /// The same through the older `openssl smime` front end, which streams PKCS #7.
    static func smimeContent(_ profile: [UInt8]) throws -> [UInt8] {
        let scratch = try ScratchDirectory("oracle")
        let input = try scratch.write("in.mobileprovision", profile)
        let output = scratch.path("content.plist")
        let result = try Command.run(
            "openssl", ["smime", "-verify", "-noverify", "-binary", "-inform", "DER", "-in", input, "-out", output])
        guard result.status == 0 else { throw Failure(description: "openssl smime -verify failed: \(result.stderr)") }
        return try Fixtures.bytesAt(output)
    }

    /// Foundation's reading of a property list's top-level dictionary.
    static func foundationDictionary(_ bytes: [UInt8]) throws -> [String: Any] {
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        guard let dictionary = object as? [String: Any] else { throw Failure(description: "root is not a dictionary") }
        return dictionary
    }

    /// `openssl x509` fields of a DER certificate: subject (RFC 2253), serial, dates, SHA-1.
    struct CertificateFields {
        var subject = ""
        var serial = ""
        var notBefore = ""
        var notAfter = ""
        var sha1 = ""
    }

    static func certificate(_ der: [UInt8]) throws -> CertificateFields {
        let scratch = try ScratchDirectory("oracle")
        let input = try scratch.write("cert.der", der)
        let result = try Command.run("openssl", [
            "x509", "-inform", "DER", "-in", input, "-noout", "-nameopt", "RFC2253", "-subject", "-serial",
            "-startdate", "-enddate", "-fingerprint", "-sha1", "-dateopt", "iso_8601",
        ])
        guard result.status == 0 else { throw Failure(description: "openssl x509 failed: \(result.stderr)") }
        var fields = CertificateFields()
        for line in result.stdout.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals]
            let value = String(line[line.index(after: equals)...])
            switch key {
            case "subject": fields.subject = value
            case "serial": fields.serial = value
            case "notBefore": fields.notBefore = value
            case "notAfter": fields.notAfter = value
            case "SHA1 Fingerprint", "sha1 Fingerprint": fields.sha1 = value.replacingOccurrences(of: ":", with: "")
            default: break
            }
        }
        return fields
    }
}
