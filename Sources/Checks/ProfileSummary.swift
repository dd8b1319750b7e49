import Foundation
import ProvisioningProfile
import Reporting

extension ProfileSummary {
    /// The summary of a decoded profile read from `file`, with the findings `check` would give it
    /// (judged at `now`).
    public init(_ profile: ProvisioningProfile, file: String, now: Date, allowWildcard: Bool = false) {
        let devices = profile.provisionedDevices ?? []
        let certificates = profile.developerCertificates.map { certificate in
            Certificate(
                subject: certificate.subject, commonName: certificate.commonName, teamId: certificate.teamIdentifier,
                organization: certificate.organization, issuer: certificate.issuerCommonName,
                serialNumber: certificate.serialNumber, notValidBefore: certificate.notValidBefore,
                notValidAfter: certificate.notValidAfter, expired: certificate.isExpired(at: now),
                sha1: certificate.sha1Fingerprint)
        }
        let container = Container(
            encoding: profile.signedData.usesIndefiniteLengths ? "BER" : "DER",
            digestAlgorithms: profile.signedData.digestAlgorithms, signerCount: profile.signedData.signerCount,
            signedBy: profile.signingCertificates.map { $0.commonName ?? $0.subject },
            contentChunks: profile.signedData.contentChunkCount)
        // `profile show` reads a file on disk. Every finding of one profile has its file as path,
        // so the report order is severity, then code.
        let findings = ProfileChecks.profileFindings(profile, file: .file(file), bundle: nil, now: now, allowWildcard: allowWildcard)
            .sorted(by: Finding.reportOrder)
        self.init(
            file: file, name: profile.name, uuid: profile.uuid, appIdName: profile.appIDName,
            appIdentifier: profile.applicationIdentifier.rawValue, appIdKind: profile.applicationIdentifier.kind,
            applicationIdentifierPrefix: profile.applicationIdentifierPrefixes,
            teamId: profile.teamIdentifier, teamName: profile.teamName, platforms: profile.platforms,
            creationDate: profile.creationDate, expirationDate: profile.expirationDate, expired: profile.isExpired(at: now),
            timeToLive: profile.timeToLive, kind: profile.distribution, devices: devices,
            provisionsAllDevices: profile.provisionsAllDevices, xcodeManaged: profile.isXcodeManaged,
            entitlements: JSONValue(.dictionary(profile.entitlements)), certificates: certificates, container: container,
            findings: findings)
    }
}
