import AppBundle
import FormatSupport
import Foundation
import OutputFiles
import PropertyList
import Zip

/// The `.mdx` container (docs/commands.md, "`wrap`"): a zip holding
/// `policy_metadata.xml` at its root, the wrapped `.ipa` (stored, not recompressed), the icon as
/// `icon.png` (a standard PNG) and `metadata.plist` (name, bundle id, versions, minimum OS, app
/// mode, toolkit version).
enum MDXContainer {
    static let metadataFileName = "metadata.plist"
    static let iconFileName = "icon.png"

    static func write(
        wrapping archive: AppArchive, icon: IconResolution, edits: ArchiveEdits, policy: PolicyBundle,
        request: WrapRequest
    ) throws -> UInt64 {
        // The wrapped IPA is built as an unnamed file beside the output; it never gets a name, so
        // nothing is left behind whatever happens.
        let wrapped = try AtomicOutputFile(destination: request.output)
        defer { wrapped.discard() }
        _ = try ArchiveWriter.write(archive.archive.zip, into: wrapped, edits: edits, options: request.repack, verifying: ArchiveWriter.verifyingIPA)

        let app = archive.app
        // A label inside the container, which must be text: an input name that is not UTF-8 shows U+FFFD.
        let ipaName = URL(fileURLWithPath: PathEncoding.replacingCarriedBytes(request.input)).deletingPathExtension().lastPathComponent + ".ipa"
        var metadata: PropertyListDictionary = [
            "AppMode": .string(policy.mode.rawValue),
            "PolicySHA256": .string(policy.sha256),
            "PolicyTemplate": .string(policy.templateName),
            "ToolkitVersion": .string(policy.toolkitVersion.text),
            "WrappedIPA": .string(ipaName),
        ]
        metadata["AppName"] = app.displayName.map { .string($0) }
        metadata["BundleIdentifier"] = app.bundleIdentifier.map { .string($0) }
        metadata["ShortVersion"] = app.shortVersion.map { .string($0) }
        metadata["BundleVersion"] = app.buildVersion.map { .string($0) }
        metadata["MinimumOSVersion"] = app.minimumOSVersion.map { .string($0) }

        var additions: [ArchiveEdits.Addition] = [
            .init(name: PolicyBundle.policyFileName, content: .bytes(policy.policyXML)),
            .init(name: ipaName, content: .file(path: wrapped.readablePath), stored: true),
            .init(name: metadataFileName, content: .bytes(try PropertyList(root: .dictionary(metadata.sortedByKey()), format: .xml).serialized())),
        ]
        if let resolved = icon.icon {
            additions.append(.init(name: iconFileName, content: .bytes(try archive.iconPNG(resolved)), stored: true))
        }
        // Entries carry the input's newest timestamp, so the container is as reproducible as the IPA.
        let newest = (archive.archive.zip.entries.map(\.modified).max() ?? .earliest).secondsSince1970
        var options = request.repack
        if options.timestamp == .latestInArchive { options.timestamp = .secondsSince1970(newest) }
        return try ArchiveWriter.create(at: request.output, additions: additions, options: options).outputSize
    }
}
