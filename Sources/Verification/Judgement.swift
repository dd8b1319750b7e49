import AppBundle
import BundleHashing
import CMS
import Crypto
import CodeSignature
import FormatSupport
import Foundation
import PropertyList
import ProvisioningProfile
import Reporting
import SwiftASN1
import X509

/// Turns what was read and hashed into findings and summaries, unit by unit.
struct Judgement {
    let date: Date
    let results: EntryHashing.Computed
    let units: [Verifier.PreparedUnit]
    /// The input's time limit, for the property lists parsed here (profiles, entitlements).
    let clock: WorkClock

    /// Each bundle's main executable (empty when it has none), by bundle path.
    private let bundleExecutables: [String: String]
    /// The units inside each bundle (nested bundles and dylibs, in `units` order), by bundle path:
    /// indexed once, so judging every bundle's seal stays linear in the units (times their depth).
    private let nestedUnits: [String: [Verifier.CodeUnit]]

    /// SHA-256 of the roots whose own code (signed with Apple's software-signing marker) is
    /// Apple's platform code, which keeps Apple's signature and no team: Apple Root CA's
    /// (`Verifier.appleRootCAFingerprint`), unless a test gives its own.
    let applePlatformRoots: Set<[UInt8]>
    /// The leaf marker of Apple's own software-signing certificates (not a developer's).
    static let appleSoftwareSigningMarker: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 22]

    private var findings: [Finding] = []
    /// The units whose signature is Apple's own (by its anchor), by path.
    private var applePlatformUnits: Set<String> = []
    /// Each signed unit's team: its CodeDirectory's team ID, else its certificate's (OU).
    private(set) var unitTeams: [String: String] = [:]
    /// Each bundle's embedded profile that could be read, by bundle path (for the install rules).
    private(set) var embeddedProfiles: [String: ProvisioningProfile] = [:]
    /// Units judged so far that are signed and hold by themselves (units come innermost first).
    private var intactUnits: Set<String> = []

    init(
        date: Date, results: EntryHashing.Computed, units: [Verifier.PreparedUnit], clock: WorkClock = .unlimited,
        applePlatformRoots: Set<[UInt8]> = [Verifier.appleRootCAFingerprint]
    ) {
        self.date = date
        self.applePlatformRoots = applePlatformRoots
        self.results = results
        self.units = units
        self.clock = clock
        var executables: [String: String] = [:]
        for prepared in units where prepared.unit.bundle != nil && executables[prepared.unit.path] == nil {
            executables[prepared.unit.path] = prepared.unit.executablePath ?? ""
        }
        var nested: [String: [Verifier.CodeUnit]] = [:]
        for prepared in units {
            for folder in Self.bundleFolders(above: prepared.unit.path) where executables[folder] != nil {
                nested[folder, default: []].append(prepared.unit)
            }
        }
        bundleExecutables = executables
        nestedUnits = nested
    }

    mutating func report(input: String) -> VerificationReport {
        var bundles: [BundleSignature] = []
        var teams: [(index: Int, path: String, team: String)] = []
        var deadline = clock
        for prepared in units {
            // Past the time limit the report is not finished: the verifier refuses the input.
            if deadline.isExpired(after: 1 + prepared.entries.count) { break }
            let before = findings.count
            var summary = judge(prepared)
            // Apple's platform code is Apple's, whatever team signed the app around it.
            if let team = unitTeams[summary.path], !summary.facts.adHoc, !applePlatformUnits.contains(summary.path) {
                teams.append((bundles.count, summary.path, team))
            }
            summary.intact = !findings[before...].contains { $0.severity == .error }
            if summary.intact && summary.facts.signed { intactUnits.insert(summary.path) }
            bundles.append(summary)
        }
        // Every bundle must be signed by one team: the app's (the last unit), else the most common.
        let expected = teams.last?.team
        for (index, path, team) in teams where team != expected {
            add(.teamMismatch(bundle: path, team: team, appTeam: expected), path: path)
            bundles[index].intact = false
        }
        return VerificationReport(input: input, verifiedAt: date, bundles: bundles, findings: findings)
    }

    /// Every path verify reports is inside the archive.
    private mutating func add(_ detail: SignatureDetail, path: String?) {
        findings.append(Finding(.signature(detail), at: path.map(FindingLocation.archive)))
    }

    // MARK: One unit

    private mutating func judge(_ prepared: Verifier.PreparedUnit) -> BundleSignature {
        let unit = prepared.unit
        var summary = BundleSignature(kind: unit.kind, path: unit.path)
        let isBundle = unit.bundle != nil
        guard let executable = unit.executablePath, let (slices, problem) = results.machOs[executable] else {
            if isBundle && prepared.codeResourcesBytes != nil {
                // Sealed, but the code that carries the seal's signature is gone.
                summary.facts.signed = true
                add(.sealedExecutableMissing(bundle: unit.path), path: unit.path)
                judgeResources(prepared, isSigned: true)
            } else {
                add(.noExecutable(bundle: unit.path), path: unit.path)
            }
            return summary
        }
        if let problem {
            add(.unreadableMachO(file: executable, problem: "\(problem)"), path: executable)
            return summary
        }
        summary.architectures = slices.map(\.architecture)
        var leaf: Certificate?
        var signedEntitlements: PropertyListDictionary?
        var anySigned = false
        for slice in slices {
            let label = CodeReference(path: executable, architecture: slices.count > 1 ? slice.architecture : nil)
            if let problem = slice.problem {
                add(.unreadableSignature(code: label, problem: "\(problem)"), path: executable)
                continue
            }
            guard let signature = slice.signature else {
                add(.unsigned(code: label), path: executable)
                continue
            }
            anySigned = true
            if summary.identifier == nil {
                summary.identifier = signature.identifier
                summary.facts.teamId = signature.teamIdentifier
                summary.facts.cdhash = signature.codeDirectory?.cdhash.map(Self.hex)
                summary.facts.hashTypes = signature.codeDirectories.map(\.hashType.name)
                summary.facts.adHoc = signature.isAdHoc
            }
            judgePages(slice, signature: signature, label: label, path: executable)
            judgeSpecialSlots(signature, prepared: prepared, label: label, path: executable)
            if signature.hasCMSSignature, let (certificate, isApple) = judgeCMS(signature, label: label, path: executable) {
                leaf = leaf ?? certificate
                if isApple { applePlatformUnits.insert(unit.path) }
            }
            if unitTeams[unit.path] == nil {
                unitTeams[unit.path] = signature.teamIdentifier ?? leaf.flatMap(Self.teamIdentifier)
            }
            if signedEntitlements == nil {
                signedEntitlements = judgeEntitlements(signature, label: label, path: executable)
                for case .wrongType(let key, let expected, let actual) in EntitlementRules.typeProblems(in: signedEntitlements ?? [:]) {
                    add(.entitlementType(code: label, key: key, expected: expected.rawValue, actual: actual), path: executable)
                }
            }
            if let bundle = unit.bundle, let identifier = signature.identifier, let bundleID = bundle.bundleIdentifier,
                identifier != bundleID
            {
                add(.identifierMismatch(code: label, identifier: identifier, bundleID: bundleID), path: executable)
            }
        }
        summary.facts.signed = anySigned
        if summary.facts.adHoc && anySigned {
            add(.adHoc(bundle: unit.path), path: unit.path)
        }
        if let leaf {
            summary.facts.certificate = SigningCertificate(
                subject: leaf.subject.description, commonName: Self.commonName(leaf),
                notValidAfter: leaf.notValidAfter)
        }
        if isBundle {
            judgeResources(prepared, isSigned: anySigned)
            if let leaf, !summary.facts.adHoc {
                judgeProfile(prepared, leaf: leaf, entitlements: signedEntitlements ?? [:])
            }
        }
        return summary
    }

    private mutating func judgePages(_ slice: SliceResult, signature: EmbeddedSignature, label: CodeReference, path: String) {
        for (index, directory) in signature.codeDirectories.enumerated() {
            let slot = signature.codeDirectorySlots[index]
            let which = CodeDirectoryReference(hashType: directory.hashType.name, slot: slot)
            if let offset = slice.signatureOffset, directory.codeLimit != offset {
                add(.codeLimitShort(code: label, directory: which, codeLimit: directory.codeLimit, signatureOffset: offset), path: path)
            }
            if let problem = slice.pageCountProblems[index] {
                add(.pageCount(code: label, directory: which, problem: "\(problem)"), path: path)
            }
            let pages = slice.pageMismatches[index]
            if !pages.isEmpty {
                add(.pagesDiffer(code: label, directory: which, pages: pages, pageCount: directory.codeSlotCount), path: path)
            }
        }
    }

    private mutating func judgeSpecialSlots(
        _ signature: EmbeddedSignature, prepared: Verifier.PreparedUnit, label: CodeReference, path: String
    ) {
        let isBundle = prepared.unit.bundle != nil
        let checks: [(CodeDirectory.SpecialSlot, String, [UInt8]?)] = [
            (.infoPlist, "Info.plist", isBundle ? prepared.infoPlist : nil),
            (.requirements, "the requirements", signature.blob(inSlot: EmbeddedSignature.Slot.requirements)),
            (.resourceDirectory, "_CodeSignature/CodeResources", isBundle ? prepared.codeResourcesBytes : nil),
            (.entitlements, "the entitlements", signature.blob(inSlot: EmbeddedSignature.Slot.entitlements)),
            (.derEntitlements, "the DER entitlements", signature.blob(inSlot: EmbeddedSignature.Slot.derEntitlements)),
        ]
        for directory in signature.codeDirectories {
            for (slot, what, bytes) in checks {
                guard let sealed = directory.hash(for: slot), sealed.contains(where: { $0 != 0 }) else {
                    // What exists must be bound: an empty slot is not "nothing to check".
                    if bytes != nil {
                        add(.specialSlotUnbound(code: label, item: what, hashType: directory.hashType.name, slot: slot.rawValue),
                            path: path)
                    }
                    continue
                }
                // A loose dylib's Info.plist is embedded in the binary, whose pages cover it.
                if slot == .infoPlist && !isBundle { continue }
                guard let bytes else {
                    add(.specialSlotItemMissing(code: label, item: what, hashType: directory.hashType.name), path: path)
                    continue
                }
                guard let digest = directory.hashType.digest(bytes), Array(digest.prefix(directory.hashSize)) == sealed else {
                    add(.specialSlotItemDiffers(code: label, item: what, hashType: directory.hashType.name, slot: slot.rawValue),
                        path: path)
                    continue
                }
            }
        }
    }

    /// The signed entitlements: the XML and DER blobs, each read (one that cannot be read is
    /// malformed, not skipped) and, when both are there, the same dictionary.
    private mutating func judgeEntitlements(
        _ signature: EmbeddedSignature, label: CodeReference, path: String
    ) -> PropertyListDictionary? {
        var xml: PropertyListDictionary?
        var der: PropertyListDictionary?
        if let blob = signature.entitlements {
            do {
                xml = try blob.dictionary(limits: PropertyListLimits(clock: clock, refusesDuplicateKeys: true))
            } catch {
                add(.unreadableEntitlements(code: label, encoding: "XML", problem: "\(error)"), path: path)
            }
        }
        do {
            der = try signature.derEntitlements()?.dictionary
        } catch {
            add(.unreadableEntitlements(code: label, encoding: "DER", problem: "\(error)"), path: path)
        }
        if let xml, let der {
            let keys = Set(xml.keys).union(der.keys).filter { xml[$0] != der[$0] }.sorted()
            if !keys.isEmpty {
                add(.entitlementEncodingsDiffer(code: label, keys: keys), path: path)
            }
        }
        return xml ?? der
    }

    /// Checks the CMS blob; returns the leaf certificate, and whether the signature is Apple's own
    /// (its chain holds and ends at one of `applePlatformRoots`, and the leaf is Apple's
    /// software-signing certificate).
    private mutating func judgeCMS(
        _ signature: EmbeddedSignature, label: CodeReference, path: String
    ) -> (leaf: Certificate, isApple: Bool)? {
        guard let primary = signature.codeDirectory, let bytes = signature.cmsSignature else { return nil }
        let signedData: CMSSignedData
        do {
            signedData = try CMSSignedData(berEncoded: bytes, allowsZeroPadding: true)
        } catch {
            add(.cmsUnreadable(code: label, errorCode: error.code, problem: "\(error)"), path: path)
            return nil
        }
        let verification = signedData.verify(content: primary.bytes, at: date)
        for problem in verification.problems {
            switch problem.kind {
            case .integrity: add(.cmsProblem(code: label, kind: .integrity, problem: "\(problem)"), path: path)
            case .chain: add(.cmsProblem(code: label, kind: .chain, problem: "\(problem)"), path: path)
            case .validity: add(.cmsProblem(code: label, kind: .validity, problem: "\(problem)"), path: path)
            }
        }
        if let attributes = signedData.signerInfos.first?.signedAttributes {
            // Alternate CodeDirectories are bound to the signature only through CDHashes.
            if attributes.cdHashes == nil && signature.codeDirectories.count > 1 {
                add(.cdHashesMissing(code: label, count: signature.codeDirectories.count), path: path)
            }
            if let listed = attributes.cdHashes {
                let actual = signature.codeDirectories.compactMap(\.cdhash)
                if listed.map({ Array($0.prefix(20)) }) != actual {
                    add(.cdHashesNotListed(code: label, attribute: "CDHashes"), path: path)
                }
            }
            if let listed = attributes.cdHashes2 {
                // Every listed digest must be one of the CodeDirectories'; every SHA-256-or-stronger
                // CodeDirectory must be listed. A SHA-1 one may be left out: other signers list only
                // the agile (SHA-256 and up) hashes in this attribute (see CMSBuilder).
                let actual = Set(signature.codeDirectories.compactMap(\.digest))
                let listedDigests = Set(listed.map(\.digest))
                let required = signature.codeDirectories.filter { $0.hashType != .sha1 }.compactMap(\.digest)
                if !listedDigests.isSubset(of: actual) || !required.allSatisfy(listedDigests.contains) {
                    add(.cdHashesNotListed(code: label, attribute: "CDHashes2"), path: path)
                }
            }
        }
        guard let signer = verification.signers.first, let certificate = signer.certificate else { return nil }
        let isApple = verification.problems.isEmpty && signer.root.map(Self.fingerprint).map(applePlatformRoots.contains) == true
            && certificate.extensions.contains { $0.oid == Self.appleSoftwareSigningMarker }
        return (certificate, isApple)
    }

    static func fingerprint(_ certificate: Certificate) -> [UInt8] {
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(certificate)) != nil else { return [] }
        return Array(SHA256.hash(data: serializer.serializedBytes))
    }

    /// A developer certificate's team: its subject's organizational unit.
    static func teamIdentifier(_ certificate: Certificate) -> String? {
        for relative in certificate.subject {
            for attribute in relative where attribute.type == .RDNAttributeType.organizationalUnitName {
                if let text = String(attribute.value) { return text }
            }
        }
        return nil
    }

    // MARK: The seal

    private mutating func judgeResources(_ prepared: Verifier.PreparedUnit, isSigned: Bool) {
        let unit = prepared.unit
        guard prepared.codeResourcesBytes != nil else {
            if isSigned {
                add(.noCodeResources(bundle: unit.path), path: unit.path)
            }
            return
        }
        if let problem = prepared.resourcesProblem {
            add(.unreadableCodeResources(bundle: unit.path, problem: "\(problem)"), path: unit.path + "/_CodeSignature/CodeResources")
            return
        }
        guard let resources = prepared.codeResources else { return }
        // Looked up once per entry: indexed first, so the work stays linear in the entries.
        let seals = resources.sealsByPath()
        let nested = nestedUnits[unit.path] ?? []
        var facts: [String: ResourceFacts] = [:]
        for entry in prepared.entries {
            let full = unit.path + "/" + entry.path
            if let digests = results.digests[full] {
                facts[entry.path] = .digests(digests)
            }
            let code = bundleExecutables[full].map { $0.isEmpty ? full : $0 } ?? full
            if let (slices, problem) = results.machOs[code], problem == nil {
                var sealed: [UInt8]?
                if case .nestedCode(let cdhash, _)? = seals[entry.path]?.content { sealed = cdhash }
                if let code = Self.nestedCode(slices, sealed: sealed) {
                    facts[entry.path, default: ResourceFacts()].nestedCode = code
                }
            }
        }
        // Nested bundles are folders: the archive may not list them as entries.
        for other in nested where other.bundle != nil {
            let relative = String(other.path.dropFirst(unit.path.count + 1))
            guard facts[relative] == nil, let code = other.executablePath, let (slices, problem) = results.machOs[code], problem == nil
            else { continue }
            var sealed: [UInt8]?
            if case .nestedCode(let cdhash, _)? = seals[relative]?.content { sealed = cdhash }
            if let code = Self.nestedCode(slices, sealed: sealed) { facts[relative] = ResourceFacts(nestedCode: code) }
        }
        let discrepancies: [ResourceDiscrepancy]
        do {
            discrepancies = try resources.discrepancies(
                for: prepared.entries, mainExecutable: unit.bundle?.sealExcludedExecutable, facts: facts, clock: clock)
        } catch {
            add(.uncheckableCodeResources(bundle: unit.path, errorCode: error.code, problem: "\(error)"),
                path: unit.path + "/_CodeSignature/CodeResources")
            return
        }
        // Apple's iOS rules seal nested code file by file. Where those files differ but the nested
        // bundle or dylib holds by itself, it was swapped for other signed code: one finding names it.
        let nestedIntact = Set(nested.map(\.path).filter(intactUnits.contains))
        /// The innermost intact nested code that is `path` (loose code) or a bundle holding it.
        func swappedCode(_ path: String) -> String? {
            guard !nestedIntact.isEmpty else { return nil }
            if nestedIntact.contains(path) { return path }
            return Self.bundleFolders(above: path).last { nestedIntact.contains($0) }
        }
        var swapped: [String: [ResourceDiscrepancy]] = [:]
        for discrepancy in discrepancies {
            if let code = swappedCode(unit.path + "/" + discrepancy.path) { swapped[code, default: []].append(discrepancy) }
        }
        for discrepancy in discrepancies {
            let path = unit.path + "/" + discrepancy.path
            if let code = swappedCode(path) {
                guard let differences = swapped.removeValue(forKey: code) else { continue }
                add(.nestedCodeSwapped(
                        bundle: unit.path, nested: String(code.dropFirst(unit.path.count + 1)),
                        differences: differences.map(\.description)),
                    path: code)
                continue
            }
            let kind: SignatureDetail.SealDifferenceKind = switch discrepancy {
            case .modified, .symlinkChanged, .kindChanged: .changed
            case .missing: .missing
            case .unsealed: .unsealed
            case .nestedCodeChanged: .nestedCodeChanged
            }
            add(.sealDiffers(bundle: unit.path, kind: kind, difference: "\(discrepancy)"), path: path)
        }
    }

    /// Nested code's identity in a seal: the cdhash the seal names when one of its
    /// CodeDirectories has it (else the first), and that slice's designated requirement as text.
    private static func nestedCode(_ slices: [SliceResult], sealed: [UInt8]?) -> ResourceFacts.NestedCode? {
        var first: ResourceFacts.NestedCode?
        for slice in slices {
            guard let signature = slice.signature else { continue }
            let requirement = signature.requirements?.designated?.text ?? ""
            for cdhash in signature.codeDirectories.compactMap(\.cdhash) {
                let code = ResourceFacts.NestedCode(cdhash: cdhash, requirement: requirement)
                if cdhash == sealed { return code }
                first = first ?? code
            }
        }
        return first
    }

    // MARK: Profile consistency

    private mutating func judgeProfile(_ prepared: Verifier.PreparedUnit, leaf: Certificate, entitlements: PropertyListDictionary) {
        let unit = prepared.unit
        guard let bytes = prepared.profileBytes else { return }
        let profile: ProvisioningProfile
        do {
            profile = try ProvisioningProfile(bytes: bytes, plistLimits: PropertyListLimits(clock: clock))
        } catch {
            add(.unreadableProfile(bundle: unit.path, problem: EntryHashing.describe(error)),
                path: unit.path + "/embedded.mobileprovision")
            return
        }
        embeddedProfiles[unit.path] = profile
        let profilePath = unit.path + "/embedded.mobileprovision"
        var serializer = DER.Serializer()
        if (try? serializer.serialize(leaf)) != nil {
            let der = serializer.serializedBytes
            if !profile.developerCertificates.contains(where: { $0.derBytes == der }) {
                add(.certificateNotInProfile(bundle: unit.path, signer: CMSSignedData.name(leaf)),
                    path: profilePath)
            }
        }
        let bundleID = unit.bundle?.bundleIdentifier
        // The same rules `sign` checks before it writes (types are judged for every unit, above).
        for problem in EntitlementRules.problems(signed: entitlements, profile: profile, bundleIdentifier: bundleID) {
            switch problem {
            case .wrongType:
                continue
            case .applicationIdentifier(let signed, let expected):
                add(.appIdentifierMismatch(
                        bundle: unit.path, signed: signed, appID: "\(profile.applicationIdentifier)", bundleID: bundleID,
                        expected: expected),
                    path: unit.path)
            case .notGranted(let key):
                add(.entitlementNotGranted(bundle: unit.path, key: key), path: unit.path)
            }
        }
    }

    /// The folders above `path` whose name has a bundle's extension, outermost first: the only
    /// places a bundle can be (so a deep name costs its length, not its length times its depth).
    static func bundleFolders(above path: String) -> [String] {
        var folders: [String] = []
        var start = path.startIndex
        while let slash = path[start...].firstIndex(of: "/") {
            if BundleKind.nested(folderName: path[start..<slash], inFolder: nil) != nil { folders.append(String(path[..<slash])) }
            start = path.index(after: slash)
        }
        return folders
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func commonName(_ certificate: Certificate) -> String? {
        for relative in certificate.subject {
            for attribute in relative where attribute.type == .RDNAttributeType.commonName {
                if let text = String(attribute.value) { return text }
            }
        }
        return nil
    }
}
