import FormatSupport
import Policy
import XMLSupport
// Foundation proper would bring its own ICU module, whose C enums clash with the system ICU that
// libxml2's headers include; FoundationEssentials has what this file needs and no ICU.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Templates` folder the tool ships with: `toolkit.json` (the toolkit version, and later other
/// data), `policies/*.xml` (the policy templates) and `schema/policy_metadata.xsd`.
public struct TemplateDirectory: Sendable, Equatable {
    /// Names a Templates folder, overriding the search next to the executable.
    public static let environmentVariable = "IPAWRAP_TEMPLATES"

    /// Largest `toolkit.json` read; it holds a handful of keys.
    static let maximumToolkitInfoSize = 1024 * 1024
    /// Largest schema read.
    static let maximumSchemaSize = 1024 * 1024

    /// The folder itself.
    public let url: URL

    /// Uses `url` if it is a Templates folder (it holds `toolkit.json` and `policies/`).
    public init(at url: URL) throws(TemplateDirectoryError) {
        guard TemplateDirectory.isTemplateDirectory(url) else {
            throw TemplateDirectoryError(reason: .notFound(searched: [url.path]), category: .usage)
        }
        self.url = url.standardizedFileURL
    }

    private init(unchecked url: URL) {
        self.url = url.standardizedFileURL
    }

    public var toolkitInfoURL: URL { url.appendingPathComponent("toolkit.json") }
    public var policiesURL: URL { url.appendingPathComponent("policies", isDirectory: true) }
    public var schemaURL: URL { url.appendingPathComponent("schema/policy_metadata.xsd") }

    // MARK: Locating

    /// Finds the Templates folder of the running tool, in this order:
    /// 1. `explicitPath` (`--templates`), which must be a Templates folder;
    /// 2. the `IPAWRAP_TEMPLATES` environment variable, likewise;
    /// 3. from each executable's folder up to the root: `Templates` and `share/ipawrap/Templates`
    ///    there, which finds an installed `bin/../share/ipawrap/Templates` as well as the checkout's
    ///    `Templates` above `.build/debug/ipawrap`.
    ///
    /// Never the source tree the tool was compiled from: a binary moved elsewhere finds its data
    /// by these rules or says how to point at it. A folder only counts when it holds
    /// `toolkit.json` and `policies/`, so an unrelated `~/Templates` is never picked up.
    public static func locate(
        explicitPath: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executableURLs: [URL] = TemplateDirectory.runningExecutableURLs()
    ) throws(TemplateDirectoryError) -> TemplateDirectory {
        if let explicitPath {
            let url = URL(fileURLWithPath: explicitPath)
            guard isTemplateDirectory(url) else {
                throw TemplateDirectoryError(reason: .notFound(searched: ["\(url.path) (from --templates)"]), category: .usage)
            }
            return TemplateDirectory(unchecked: url)
        }
        if let path = environment[environmentVariable], !path.isEmpty {
            let url = URL(fileURLWithPath: path)
            guard isTemplateDirectory(url) else {
                throw TemplateDirectoryError(
                    reason: .notFound(searched: ["\(url.path) (from \(environmentVariable))"]), category: .usage)
            }
            return TemplateDirectory(unchecked: url)
        }
        var searched: [String] = []
        for candidate in executableURLs.flatMap(candidates(aroundExecutable:)) where !searched.contains(candidate.path) {
            searched.append(candidate.path)
            if isTemplateDirectory(candidate) { return TemplateDirectory(unchecked: candidate) }
        }
        throw TemplateDirectoryError(reason: .notFound(searched: searched), category: .io)
    }

    /// `Templates` and `share/ipawrap/Templates` in the executable's folder and each folder above it.
    public static func candidates(aroundExecutable executable: URL) -> [URL] {
        var result: [URL] = []
        var folder = executable.standardizedFileURL.deletingLastPathComponent()
        // A path has a bounded number of components; the cap only guards against a loop.
        for _ in 0..<64 {
            result.append(folder.appendingPathComponent("Templates", isDirectory: true))
            result.append(folder.appendingPathComponent("share/ipawrap/Templates", isDirectory: true))
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return result
    }

    /// The running executable as the system resolved it, and as invoked when that differs (a
    /// symlink in `bin/` may point into another prefix).
    public static func runningExecutableURLs() -> [URL] {
        var urls: [URL] = []
        #if os(Linux)
        if let resolved = try? FileSystem.symlinkTarget("/proc/self/exe") {
            urls.append(URL(fileURLWithPath: resolved))
        }
        #elseif canImport(Darwin)
        if let resolved = Bundle.main.executableURL { urls.append(resolved) }
        #endif
        if let invoked = PathEncoding.invokedProgram(), invoked.contains("/") {
            let url = URL(fileURLWithPath: invoked)
            if !urls.contains(where: { $0.standardizedFileURL.path == url.standardizedFileURL.path }) {
                urls.append(url)
            }
        }
        return urls
    }

    public static func isTemplateDirectory(_ url: URL) -> Bool {
        FileSystem.isRegularFile(url.appendingPathComponent("toolkit.json").path)
            && FileSystem.isFolder(url.appendingPathComponent("policies").path)
    }

    // MARK: Contents

    /// The public issuer certificates in `certificates/` (DER `.cer` files, Apple's WWDR G3
    /// intermediate and root), sorted by name; none when the folder is absent or unreadable.
    /// Signing appends them to an identity exported without its chain.
    public func issuerCertificates() -> [[UInt8]] {
        let folder = url.appendingPathComponent("certificates", isDirectory: true)
        let names = (try? FileSystem.names(inFolder: folder.path, unreadable: { $0 })) ?? []
        return names.filter { $0.hasSuffix(".cer") }.sorted().compactMap { name in
            // A certificate is a few KiB; anything larger is not one of these.
            try? FileByteSource.contents(ofFile: folder.appendingPathComponent(name).path, limit: 1 << 16)
        }
    }

    /// `ToolkitVersion` from `toolkit.json`: the MDX toolkit version an embedded SDK must match,
    /// labelled as coming from there. The one reader of that file: `ToolData` (unless
    /// `--toolkit-version` is given) and `policy list` both call it.
    public func toolkitVersion() throws(TemplateDirectoryError) -> ToolkitVersion {
        let bytes = try TemplateDirectory.read(toolkitInfoURL, limit: TemplateDirectory.maximumToolkitInfoSize)
        let info: ToolkitInfo
        do {
            info = try JSONDecoder().decode(ToolkitInfo.self, from: Data(bytes))
        } catch {
            throw TemplateDirectoryError(
                reason: .invalidToolkitInfo(path: toolkitInfoURL.path, detail: "it is not a JSON object with a string ToolkitVersion"),
                category: .invalidInput)
        }
        // The same rule as `--toolkit-version` (`ToolkitVersion`): numbers separated by dots.
        guard let version = ToolkitVersion(toolkitInfo: info.toolkitVersion) else {
            throw TemplateDirectoryError(
                reason: .invalidToolkitInfo(path: toolkitInfoURL.path, detail: "ToolkitVersion '\(info.toolkitVersion)' is not a version such as 20.10.5"),
                category: .invalidInput)
        }
        return version
    }

    /// The policy templates, by name (`premium` for `policies/premium.xml`), sorted.
    public func policyTemplateNames() throws(TemplateDirectoryError) -> [String] {
        let entries = try FileSystem.names(inFolder: policiesURL.path, unreadable: { error in
            TemplateDirectoryError(reason: .unreadable(path: policiesURL.path, detail: "the folder cannot be listed (\(error))"), category: .io)
        })
        return entries.filter { $0.hasSuffix(".xml") && !$0.hasPrefix(".") }
            .map { String($0.dropLast(4)) }
            .sorted()
    }

    /// The file of template `name` (with or without `.xml`). Names are plain file names, so a
    /// name can never reach outside `policies/`.
    public func policyTemplateURL(named name: String) throws(TemplateDirectoryError) -> URL {
        let base = name.hasSuffix(".xml") ? String(name.dropLast(4)) : name
        let available = try policyTemplateNames()
        guard TemplateDirectory.isPlainName(base), available.contains(base) else {
            throw TemplateDirectoryError(
                reason: .unknownTemplate(name: name, available: available,
                                         suggestions: NameSuggestions.closest(to: base, among: available)),
                category: .usage)
        }
        return policiesURL.appendingPathComponent(base + ".xml")
    }

    /// Compiles `schema/policy_metadata.xsd`. Throws `TemplateDirectoryError` or `XMLSchemaError`.
    public func loadSchema() throws -> XMLSchema {
        try XMLSchema(bytes: TemplateDirectory.read(schemaURL, limit: TemplateDirectory.maximumSchemaSize))
    }

    /// Reads and validates template `name` against `schema` (loaded from this folder when nil).
    /// Throws `TemplateDirectoryError`, `XMLSchemaError` or `PolicyValidationError`.
    public func loadPolicyTemplate(named name: String, schema: XMLSchema? = nil) throws -> PolicyTemplate {
        let url = try policyTemplateURL(named: name)
        let bytes = try TemplateDirectory.read(url, limit: PolicyDocument.maximumSize + 1)
        return try PolicyTemplate(bytes: bytes, schema: schema ?? loadSchema())
    }

    /// The policy called `name` as `policy show` describes it: from `template`, or the first
    /// template (by name) that defines it, with every template that does. Throws
    /// `PolicyOverrideError` (`POLICY_UNKNOWN_NAME`, with the closest names) when none does, and what
    /// `loadPolicyTemplate` throws.
    public func policy(named name: String, inTemplate template: String? = nil) throws -> (policy: Policy, templates: [String]) {
        let names = try template.map { [$0] } ?? policyTemplateNames()
        var found: Policy?
        var foundIn: [String] = []
        var allNames: [String] = []
        for templateName in names {
            let loaded = try loadPolicyTemplate(named: templateName)
            allNames += loaded.names
            if let policy = loaded.policy(named: name) {
                found = found ?? policy
                foundIn.append(templateName)
            }
        }
        guard let policy = found else {
            throw PolicyOverrideError(
                reason: .unknownName, name: name, suggestions: NameSuggestions.closest(to: name, among: Array(Set(allNames)).sorted()))
        }
        return (policy, foundIn)
    }

    // MARK: Helpers

    private struct ToolkitInfo: Decodable {
        let toolkitVersion: String

        enum CodingKeys: String, CodingKey {
            case toolkitVersion = "ToolkitVersion"
        }
    }

    /// Reads a regular file of at most `limit` bytes; anything else is an error rather than a
    /// large allocation or a read that never ends.
    static func read(_ url: URL, limit: Int) throws(TemplateDirectoryError) -> [UInt8] {
        do {
            return try FileByteSource.wholeFile(url.path, limit: limit)
        } catch {
            throw TemplateDirectoryError(reason: .unreadable(path: url.path, detail: error.detail), category: .io)
        }
    }

    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first != UInt8(ascii: "."), name.utf8.count <= 128 else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }
}

/// The Templates folder, or something in it, could not be found or read.
public struct TemplateDirectoryError: CodedError, Equatable {
    public enum Reason: Sendable, Equatable {
        /// No Templates folder at the given place, or anywhere searched.
        case notFound(searched: [String])
        /// No policy template of that name.
        case unknownTemplate(name: String, available: [String], suggestions: [String])
        /// A file or folder in it cannot be read.
        case unreadable(path: String, detail: String)
        /// `toolkit.json` is not what the tool expects.
        case invalidToolkitInfo(path: String, detail: String)
    }

    public let reason: Reason
    public let category: ErrorCategory

    public init(reason: Reason, category: ErrorCategory) {
        self.reason = reason
        self.category = category
    }

    public var code: String {
        switch reason {
        case .notFound: "TEMPLATES_NOT_FOUND"
        case .unknownTemplate: "TEMPLATE_NOT_FOUND"
        case .unreadable: "TEMPLATES_UNREADABLE"
        case .invalidToolkitInfo: "TOOLKIT_INFO_INVALID"
        }
    }

    public var description: String {
        switch reason {
        case .notFound(let searched):
            let places = searched.isEmpty ? "nowhere (the running executable could not be found)" : searched.joined(separator: ", ")
            return "no ipawrap Templates folder (one holding toolkit.json and policies/) was found; looked in " + places
                + "; pass --templates DIR or set \(TemplateDirectory.environmentVariable) to the Templates folder"
        case .unknownTemplate(let name, let available, let suggestions):
            var text = "there is no policy template named '\(name)'; available: " + available.joined(separator: ", ")
            if let best = suggestions.first { text += "; did you mean '\(best)'?" }
            return text
        case .unreadable(let path, let detail):
            return "\(path): \(detail)"
        case .invalidToolkitInfo(let path, let detail):
            return "\(path): \(detail)"
        }
    }
}
