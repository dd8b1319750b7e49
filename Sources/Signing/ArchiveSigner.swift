import AppBundle
import CodeSignature
import FormatSupport
import Foundation
import MachO
import PropertyList
import ProvisioningProfile
import SigningIdentity
import Zip

/// Plans the signature of every bundle in an archive, innermost first, and returns the entries
/// that change as archive edits, so signing is part of the one archive write of `sign` or
/// `wrap --sign`.
///
/// Every bundle that holds code is signed, whatever its kind and wherever it sits (frameworks,
/// extensions in `PlugIns/` and `Extensions/`, test bundles, loadable bundles, XPC services,
/// watch apps, app clips and the bundles inside them), deepest first so a parent seals its
/// children's new bytes. Per bundle: its loose Mach-O files (dylibs, helper executables) are
/// signed, an app, extension, watch app or app clip gets its profile as `embedded.mobileprovision`
/// and the profile's entitlements, `_CodeSignature/CodeResources` is regenerated with Apple's iOS
/// rules over the bundle's current contents, and the main executable is signed with the bundle
/// ID, the team and the designated requirement. Apple's platform code (`_WatchKitStub/`) and
/// folders without code stay as they are and are sealed as files.
public enum ArchiveSigner {
    /// `edits` (what a wrap adds and removes) plus every entry signing changes.
    public static func edits(
        signing archive: AppArchive, profiles: [BundleProfile], applying edits: ArchiveEdits = ArchiveEdits(),
        request: SigningRequest
    ) throws -> ArchiveEdits {
        try sign(archive, profiles: profiles, applying: edits, request: request).edits
    }

    /// The edits of `edits(signing:…)` and what each bundle was signed with.
    ///
    /// - Parameters:
    ///   - early: an early copy into the output these edits will be written to, started once the
    ///     outermost bundle's executable has its new length: the entries after it are copied to
    ///     where they will go while the resources are hashed (`RepackForecast`).
    ///   - repack: the options the edits will be written with (the outermost executable's entry
    ///     is partly deflated here, at their level): pass the writer's.
    public static func sign(
        _ archive: AppArchive, profiles: [BundleProfile], applying edits: ArchiveEdits = ArchiveEdits(),
        request: SigningRequest, startingEarly early: EarlyCopy? = nil, repack: RepackOptions = RepackOptions()
    ) throws -> SignedArchive {
        let identity = request.identity
        if let problem = identity.validityProblem(at: request.signingTime) { throw problem }
        let profilesByPath = Dictionary(profiles.map { ($0.bundlePath, $0) }, uniquingKeysWith: { first, _ in first })
        try checkEntitlementOverrides(request.entitlements, archive: archive, profiles: profilesByPath)

        var tree = try BundleTree(archive: archive.archive.zip, edits: edits)
        let signer = CodeSigner(
            identity: identity, signingTime: request.signingTime, leafCommonName: identity.commonName ?? "",
            teamIdentifier: identity.teamIdentifier)
        let looseCode = Dictionary(grouping: try archive.looseCode(), by: \.owner)
        let depth = { (path: String) in path.utf8.count(where: { $0 == UInt8(ascii: "/") }) }
        let bundles = archive.allBundles.filter(\.holdsCode).sorted { (depth($0.path), $0.path) > (depth($1.path), $1.path) }
        var signed: [String: SignedBundle] = [:]
        for bundle in bundles {
            try archive.checkLimits()
            // Only the last bundle signed changes nothing after its executable but its own seal.
            let outermost = bundle.path == bundles.last?.path
            signed[bundle.path] = try sign(
                bundle, looseCode: looseCode[bundle.path] ?? [], profile: profilesByPath[bundle.path], tree: &tree,
                signer: signer, request: request,
                outermost: outermost ? Outermost(copy: early, edits: edits, options: repack) : nil)
        }
        return SignedArchive(
            edits: tree.edits(keeping: edits), bundles: archive.allBundles.compactMap { signed[$0.path] },
            teamIdentifier: identity.teamIdentifier, certificateSubject: identity.certificate.subject.description,
            certificateExpiry: identity.certificate.notValidAfter)
    }

    /// What the last bundle signed is signed with besides the others: its executable's entry is
    /// encoded so that its size is known before its signature (`ExecutableSigning.EarlyEncoding`),
    /// and the early copy, if any, started then.
    private struct Outermost {
        let copy: EarlyCopy?
        /// The edits signing was asked to apply.
        let edits: ArchiveEdits
        let options: RepackOptions
    }

    private static func sign(
        _ bundle: BundleInfo, looseCode: [LooseCode], profile: BundleProfile?, tree: inout BundleTree, signer: CodeSigner,
        request: SigningRequest, outermost: Outermost?
    ) throws -> SignedBundle {
        guard let identifier = bundle.bundleIdentifier else {
            throw SigningError(
                .executable, "\(bundle.path) has no CFBundleIdentifier", remedy: "give its Info.plist a bundle ID and sign again")
        }
        guard let executablePath = bundle.executablePath else {
            throw SigningError(
                .executable, "\(bundle.path) names no executable (CFBundleExecutable)",
                remedy: "add the executable and CFBundleExecutable to the bundle")
        }
        var entitlements: SignedEntitlements?
        if bundle.kind.needsProfile {
            guard let profile else {
                throw SigningError(
                    .noProfile, "\(bundle.path) (\(identifier)) has no provisioning profile",
                    remedy: "pass --profile \(identifier)=PATH or --profiles-dir DIR with a profile for it")
            }
            try checkProfile(profile, identity: request.identity, bundle: bundle)
            if let bytes = profile.profileBytes {
                tree.set(bundle.path + "/embedded.mobileprovision", bytes: bytes)
            }
            entitlements = try Self.entitlements(
                for: identifier, profile: profile, override: request.entitlements[identifier])
        }

        // Loose code first: the bundle's seal covers its new bytes.
        try signLooseCode(looseCode, tree: &tree, signer: signer)

        let prefix = bundle.path + "/"
        var entries: [ResourceEntry] = []
        for path in tree.paths(under: prefix) {
            let relative = String(path.dropFirst(prefix.count))
            switch tree.kind(at: path) {
            case .file: entries.append(ResourceEntry(path: relative, kind: .file))
            case .symlink(let target): entries.append(ResourceEntry(path: relative, kind: .symlink(target: target)))
            case .directory, nil: continue
            }
        }
        let builder = CodeResourcesBuilder(hashTypes: [.sha1, .sha256])
        let clock = tree.archive.workClock()
        let plan = try builder.plan(for: entries, mainExecutable: bundle.sealExcludedExecutable, clock: clock)
        // The executable's pages are hashed on a thread of their own while the resources are
        // hashed here; its signature waits for CodeResources. What fails is thrown in the order it
        // always was: the resources first, then the executable.
        let resources = PendingResources()
        let resourcesPath = prefix + "_CodeSignature/CodeResources"
        let executable = tree.isFile(executablePath)
            ? ExecutableSigning(
                tree: tree, path: executablePath, signer: signer,
                inputs: CodeSigningInputs(
                    identifier: identifier, infoPlist: try tree.bytes(at: prefix + "Info.plist"),
                    codeResources: { try resources.wait() }, entitlements: entitlements),
                early: outermost.flatMap { earlyEncoding($0, tree: tree, executable: executablePath, seal: resourcesPath) })
            : nil
        let sealed: [UInt8]
        do {
            var facts: [String: ResourceFacts] = [:]
            try tree.digests(of: plan.requests.map { (prefix + $0.path, $0) }) { path, digests in
                facts[String(path.dropFirst(prefix.count))] = .digests(digests)
            }
            sealed = try builder.build(plan, facts: facts).serialized()
        } catch {
            resources.deliver(nil)
            _ = executable?.finish()
            throw error
        }
        resources.deliver(sealed)
        tree.set(resourcesPath, bytes: sealed)

        guard let outcome = executable?.finish(), let signed = try outcome.get() else {
            throw SigningError(
                .executable, "\(executablePath), the executable of \(bundle.path), is missing or not a Mach-O file",
                remedy: "build the bundle with its executable")
        }
        tree.set(executablePath, bytes: signed.code.bytes, revising: true, deflatedPrefix: signed.deflatedPrefix)
        return SignedBundle(
            path: bundle.path, identifier: identifier, cdhash: signed.code.cdhash,
            hashTypes: signed.file.slices.first?.appleCodeDirectoryHashTypes ?? [])
    }

    /// How the outermost bundle's executable is encoded (nil when it is not the archive's entry:
    /// a wrap rewrote it), and what starts the early copy once its entry's size is known: the
    /// output's entries after it forecast from the edits as they will be, with its bytes and the
    /// seal's still to come (a tree copy and a plan: milliseconds, before the executable's thread
    /// starts).
    private static func earlyEncoding(
        _ outermost: Outermost, tree: BundleTree, executable: String, seal: String
    ) -> ExecutableSigning.EarlyEncoding? {
        guard let entry = tree.archiveEntry(at: executable) else { return nil }
        var startCopy: (@Sendable (UInt64) -> Void)?
        if let copy = outermost.copy {
            var placeholders = tree
            placeholders.set(executable, bytes: [], revising: true)
            placeholders.set(seal, bytes: [])
            if let forecast = try? RepackForecast.make(
                tree.archive, edits: placeholders.edits(keeping: outermost.edits), options: outermost.options,
                pending: executable, unknown: [seal])
            {
                let starter = copy.starter
                startCopy = { size in starter.start(forecast.segments(pendingSize: size)) }
            }
        }
        return ExecutableSigning.EarlyEncoding(options: outermost.options, stored: entry.deflateDidNotShrink, onSizeKnown: startCopy)
    }

    /// Signs a bundle's loose code (dylibs, helpers). Each file is signed on its own, so the
    /// archive's entries are read, hashed and signed on both cores (`ParallelEntryWork`, largest
    /// first); a file a wrap already rewrote is signed from memory. A failure is thrown as for
    /// the files in order (the first damaged one), whatever the scheduling.
    private static func signLooseCode(_ looseCode: [LooseCode], tree: inout BundleTree, signer: CodeSigner) throws {
        var fromArchive: [(code: LooseCode, size: UInt64)] = []
        for code in looseCode where tree.isFile(code.path) {
            if let size = tree.archiveEntrySize(at: code.path) {
                fromArchive.append((code, size))
            } else if let signed = try signLoose(code, source: try tree.source(at: code.path), signer: signer, clock: tree.archive.workClock()) {
                tree.set(code.path, bytes: signed, revising: true)
            }
        }
        let signed = try ParallelEntryWork.run(
            fromArchive.map(\.code), order: fromArchive.indices.sorted { fromArchive[$0].size > fromArchive[$1].size },
            archive: tree.archive, workers: 2
        ) { code, zip in
            try signLoose(
                code, source: .entry(zip.byteSource(for: try zip.requiredEntry(named: code.path))), signer: signer,
                clock: zip.workClock())
        }
        for ((code, _), bytes) in zip(fromArchive, signed) {
            if let bytes { tree.set(code.path, bytes: bytes, revising: true) }
        }
    }

    /// One loose file signed, or nil when it is not Mach-O.
    private static func signLoose(_ code: LooseCode, source: NodeSource, signer: CodeSigner, clock: WorkClock) throws -> [UInt8]? {
        var source = source
        let file: MachOFile
        let identifier: String
        do {
            guard let parsed = try BundleTree.machO(from: &source, clock: clock) else { return nil }
            file = parsed
            identifier = try looseIdentifier(code, file: file, source: source)
        } catch let error as MachOError {
            // Named, as the signer names what it finds: several files are signed at once.
            throw error.naming(code.path)
        }
        return try signer.sign(
            file: file, source: &source, inputs: CodeSigningInputs(identifier: identifier, bindsEmbeddedInfoPlist: true),
            path: code.path
        ).bytes
    }

    /// The identifier codesign gives loose code: its embedded Info.plist's `CFBundleIdentifier`
    /// (the Swift runtime's dylibs carry one), else its file name without `.dylib`.
    private static func looseIdentifier(_ code: LooseCode, file: MachOFile, source: NodeSource) throws -> String {
        guard let slice = file.slices.first else { return code.defaultIdentifier }
        var source = source
        guard let bytes = try CodeSigner.embeddedInfoPlist(of: slice, from: &source),
            let identifier = (try? PropertyList(bytes: bytes))?.root.dictionary?["CFBundleIdentifier"]?.string,
            !identifier.isEmpty
        else { return code.defaultIdentifier }
        return identifier
    }

    // MARK: Profiles and entitlements

    private static func checkProfile(_ profile: BundleProfile, identity: SigningIdentity, bundle: BundleInfo) throws {
        let leaf = identity.certificateDER
        guard profile.profile.developerCertificates.contains(where: { $0.derBytes == leaf }) else {
            throw SigningError(
                .certificateNotInProfile,
                "the signing certificate \(identity.commonName ?? "?") (SHA-1 \(identity.sha1Fingerprint)) is not among the "
                    + "DeveloperCertificates of \(profile.file), the profile of \(bundle.path)",
                remedy: "sign with an identity the profile lists, or regenerate the profile with this certificate")
        }
        if let team = profile.profile.teamIdentifier, let mine = identity.teamIdentifier, team != mine {
            throw SigningError(
                .teamMismatch, "the signing certificate is of team \(mine), but \(profile.file) is of team \(team)",
                remedy: "use a profile and identity of the same team")
        }
    }

    /// The profile's entitlements as Xcode signs with them: a wildcard `application-identifier`
    /// and `TEAM.*` keychain groups expanded to the bundle ID; or the override. Either is checked
    /// with the rules `verify` applies (`EntitlementRules`: Apple's types, the App ID resolved for
    /// the bundle, every value granted by the profile), so `sign` never writes a signature its own
    /// `verify`, or a device, refuses.
    static func entitlements(
        for identifier: String, profile: BundleProfile, override: PropertyListDictionary?
    ) throws -> SignedEntitlements {
        let granted = profile.profile.entitlements
        var chosen = PropertyListDictionary()
        if let override {
            chosen = override
        } else {
            for key in granted.keys {
                guard let value = granted[key] else { continue }
                // `*` for a list (iCloud services, associated domains) grants any value; Xcode signs
                // the app's own values, never the wildcard, which would name none.
                if EntitlementRules.types[key] == .stringArray && value.string == "*" { continue }
                _ = chosen.updateValue(expand(value, key: key, identifier: identifier), forKey: key)
            }
        }
        let source = override != nil ? "--entitlements for \(identifier)" : "the entitlements of \(profile.file)"
        if let problem = EntitlementRules.problems(signed: chosen, profile: profile.profile, bundleIdentifier: identifier).first {
            switch problem {
            case .wrongType(let key, let expected, let actual):
                throw SigningError(
                    .entitlementType,
                    "\(source) give \(key) as \(EntitlementRules.withArticle(actual)); Apple's type for it is \(EntitlementRules.withArticle(expected.rawValue))",
                    remedy: "write \(key) as \(EntitlementRules.withArticle(expected.rawValue))")
            case .applicationIdentifier(let signed, let expected):
                throw SigningError(
                    .entitlementNotGranted,
                    "\(source) give application-identifier \(signed), but \(profile.file) allows \(expected ?? "no value") for \(identifier)",
                    remedy: "leave application-identifier out of the file (the profile's is used), or sign with the profile of that App ID")
            case .notGranted(let key):
                throw SigningError(
                    .entitlementNotGranted,
                    "\(source) ask for \(key) = \(chosen[key].map(Self.describe) ?? "?"), which \(profile.file) does not grant",
                    remedy: "remove \(key) or give a value the profile grants, or use a profile whose App ID has the capability")
            }
        }
        let sorted = PropertyListValue.dictionary(chosen).sortingKeys().dictionary ?? chosen
        do {
            return SignedEntitlements(
                xml: try EntitlementsBlob(dictionary: sorted), der: DEREntitlements(dictionary: sorted),
                getTaskAllow: sorted["get-task-allow"]?.bool ?? false)
        }
    }

    /// A short rendering of an entitlement value for messages.
    private static func describe(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .array(let items): "[" + items.prefix(4).map(describe).joined(separator: ", ") + (items.count > 4 ? ", …" : "") + "]"
        default: value.typeName
        }
    }

    /// `PREFIX.*` → `PREFIX.<bundle ID>` for the identifier-like entitlements.
    private static func expand(_ value: PropertyListValue, key: String, identifier: String) -> PropertyListValue {
        func expanded(_ text: String) -> String {
            text.hasSuffix(".*") ? String(text.dropLast()) + identifier : text == "*" ? identifier : text
        }
        switch (key, value) {
        case ("application-identifier", .string(let text)), ("com.apple.application-identifier", .string(let text)):
            return .string(expanded(text))
        case ("keychain-access-groups", .array(let items)):
            return .array(items.map { item in item.string.map { .string(expanded($0)) } ?? item })
        default:
            return value
        }
    }

    private static func checkEntitlementOverrides(
        _ overrides: [String: PropertyListDictionary], archive: AppArchive, profiles: [String: BundleProfile]
    ) throws {
        let known = Set(archive.allBundles.filter { $0.holdsCode && $0.kind.needsProfile }.compactMap(\.bundleIdentifier))
        for identifier in overrides.keys.sorted() where !known.contains(identifier) {
            throw SigningError(
                .entitlementsFile, "--entitlements \(identifier)=… names no bundle in the archive that takes a profile",
                remedy: "use one of: \(known.sorted().joined(separator: ", "))")
        }
    }
}
