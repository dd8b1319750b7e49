import FormatSupport
// Foundation proper would bring its own ICU module, whose C enums clash with the system ICU that
// libxml2's headers include (this module imports XMLSupport); FoundationEssentials has what this
// file needs and no ICU.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The management SDKs ipawrap recognises (`Templates/sdk-catalog.json`): for each family, the
/// framework bundles it ships, the Objective-C classes that give it away when it is linked
/// statically, and the Info.plist keys only it uses. The catalog is data so that a new framework
/// name or SDK needs no new release of the code.
public struct SDKCatalog: Sendable, Equatable {
    /// The file's name in the Templates folder.
    public static let fileName = "sdk-catalog.json"
    /// The `FormatVersion` this reader understands.
    public static let formatVersion = 1
    /// Largest catalog read; the shipped one is about 2 KB.
    public static let maximumSize = 1 << 20

    /// One SDK, e.g. Citrix MDX.
    public struct Family: Sendable, Equatable {
        /// The name the report uses (`sdks[].family`), e.g. `Citrix MDX`.
        public let name: String
        /// Whether the SDK manages the app (policies, encryption); two such SDKs in one app are a
        /// warning.
        public let isManagement: Bool
        /// Whether the SDK's frameworks must have the version of the toolkit that wraps the app.
        public let matchesToolkitVersion: Bool
        /// Framework bundle names without `.framework`, e.g. `CTXMAMCore`.
        public let frameworks: [String]
        /// Objective-C classes of the SDK, e.g. `MdxManager`.
        public let markerClasses: [String]
        /// Top-level Info.plist keys the SDK reads, e.g. `IntuneMAMSettings`.
        public let infoPlistKeys: [String]

        public init(
            name: String, isManagement: Bool, matchesToolkitVersion: Bool, frameworks: [String],
            markerClasses: [String], infoPlistKeys: [String]
        ) {
            self.name = name
            self.isManagement = isManagement
            self.matchesToolkitVersion = matchesToolkitVersion
            self.frameworks = frameworks
            self.markerClasses = markerClasses
            self.infoPlistKeys = infoPlistKeys
        }
    }

    public let families: [Family]

    /// A catalog of these families, checked as the file is: names present and unique, and no
    /// framework or class claimed by two families.
    public init(families: [Family], source: String = SDKCatalog.fileName) throws(SDKCatalogError) {
        var familyNames: Set<String> = []
        var frameworkOwners: [String: String] = [:]
        var classOwners: [String: String] = [:]
        for (index, family) in families.enumerated() {
            let label = "Families[\(index)]"
            guard Self.isPlainName(family.name) else {
                throw SDKCatalogError(.invalid(path: source, detail: "\(label).Name is empty or has control characters"))
            }
            guard familyNames.insert(family.name).inserted else {
                throw SDKCatalogError(.invalid(path: source, detail: "the family '\(family.name)' is listed twice"))
            }
            for framework in family.frameworks {
                guard Self.isPlainName(framework), !framework.contains("/"), !framework.hasSuffix(".framework") else {
                    throw SDKCatalogError(.invalid(
                        path: source,
                        detail: "\(label).Frameworks has '\(framework)'; give the bundle name without a path or .framework"))
                }
                if let owner = frameworkOwners.updateValue(family.name, forKey: framework) {
                    throw SDKCatalogError(.invalid(
                        path: source, detail: "the framework '\(framework)' is listed by both '\(owner)' and '\(family.name)'"))
                }
            }
            for name in family.markerClasses {
                guard Self.isPlainName(name) else {
                    throw SDKCatalogError(.invalid(path: source, detail: "\(label).MarkerClasses has an empty or invalid name"))
                }
                if let owner = classOwners.updateValue(family.name, forKey: name) {
                    throw SDKCatalogError(.invalid(
                        path: source, detail: "the class '\(name)' is listed by both '\(owner)' and '\(family.name)'"))
                }
            }
            for key in family.infoPlistKeys where !Self.isPlainName(key) {
                throw SDKCatalogError(.invalid(path: source, detail: "\(label).InfoPlistKeys has an empty or invalid key"))
            }
        }
        self.families = families
    }

    /// Parses the JSON of `sdk-catalog.json`; `source` names the file in errors. Unknown keys are
    /// refused, so a misspelt `Framworks` is an error rather than an SDK silently not detected.
    public init(jsonBytes: [UInt8], source: String = SDKCatalog.fileName) throws(SDKCatalogError) {
        guard jsonBytes.count <= Self.maximumSize else {
            throw SDKCatalogError(.invalid(path: source, detail: "it is larger than \(Self.maximumSize) bytes"))
        }
        let file: CatalogFile
        do {
            file = try JSONDecoder().decode(CatalogFile.self, from: Data(jsonBytes))
        } catch let error as DecodingError {
            throw SDKCatalogError(.invalid(path: source, detail: Self.describe(error)))
        } catch let error as UnknownKeyError {
            let place = error.codingPath.isEmpty ? "the top level" : Self.path(error.codingPath)
            throw SDKCatalogError(.invalid(
                path: source,
                detail: "\(place) has the unknown key '\(error.key)' (known: \(error.known.joined(separator: ", ")))"))
        } catch {
            throw SDKCatalogError(.invalid(path: source, detail: "it is not valid JSON"))
        }
        guard file.formatVersion == Self.formatVersion else {
            throw SDKCatalogError(.invalid(
                path: source,
                detail: "FormatVersion is \(file.formatVersion); this ipawrap reads version \(Self.formatVersion)"))
        }
        try self.init(families: file.families, source: source)
    }

    /// The family that ships a framework called `name` (without `.framework`).
    public func family(ofFramework name: String) -> Family? {
        families.first { $0.frameworks.contains(name) }
    }

    // MARK: Helpers

    private static func isPlainName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 256 && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// `Families[1].Frameworks`, or "the top level".
    private static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        return text.isEmpty ? "the top level" : text
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) is not \(expected(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) is null, expected \(expected(type))"
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return parent == "the top level" ? "the key \(key.stringValue) is missing" : "\(parent) has no key \(key.stringValue)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "it is not valid JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "it does not have the catalog's structure"
        }
    }

    private static func expected(_ type: Any.Type) -> String {
        switch type {
        case is Bool.Type: return "true or false"
        case is Int.Type: return "an integer"
        case is String.Type: return "a string"
        default:
            // The decoder names containers by their storage type (`Array<Any>`, `Dictionary<String, Any>`).
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "a list" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "the expected kind of value"
        }
    }
}

/// The JSON layout of the file.
private struct CatalogFile: Decodable {
    let formatVersion: Int
    let families: [SDKCatalog.Family]

    private static let keys: Set<String> = ["About", "FormatVersion", "Families"]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        try AnyKey.refuseUnknown(container, allowed: Self.keys)
        formatVersion = try container.decode(Int.self, forKey: AnyKey("FormatVersion"))
        families = try container.decode([SDKCatalog.Family].self, forKey: AnyKey("Families"))
        if container.contains(AnyKey("About")) { _ = try container.decode(String.self, forKey: AnyKey("About")) }
    }
}

extension SDKCatalog.Family: Decodable {
    private static let keys: Set<String> = [
        "Name", "Management", "MatchesToolkitVersion", "Frameworks", "MarkerClasses", "InfoPlistKeys",
    ]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        try AnyKey.refuseUnknown(container, allowed: Self.keys)
        name = try container.decode(String.self, forKey: AnyKey("Name"))
        isManagement = try container.decode(Bool.self, forKey: AnyKey("Management"))
        matchesToolkitVersion = try container.decode(Bool.self, forKey: AnyKey("MatchesToolkitVersion"))
        frameworks = try container.decode([String].self, forKey: AnyKey("Frameworks"))
        markerClasses = try container.decode([String].self, forKey: AnyKey("MarkerClasses"))
        infoPlistKeys = try container.decode([String].self, forKey: AnyKey("InfoPlistKeys"))
    }
}

/// Any JSON key, so unknown ones can be found and refused.
private struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    static func refuseUnknown(_ container: KeyedDecodingContainer<AnyKey>, allowed: Set<String>) throws {
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !allowed.contains($0) }) {
            throw UnknownKeyError(codingPath: container.codingPath, key: unknown, known: allowed.sorted())
        }
    }
}

/// A key the catalog does not define.
private struct UnknownKeyError: Error {
    let codingPath: [any CodingKey]
    let key: String
    let known: [String]
}

/// The SDK catalog could not be read or is not what ipawrap expects.
public struct SDKCatalogError: ReasonCodedError, Equatable {
    /// The stable code a user can search for.
    public enum Reason: String, ErrorReason, CaseIterable {
        case unreadable = "SDK_CATALOG_UNREADABLE"
        case invalid = "SDK_CATALOG_INVALID"

        /// A missing catalog is a broken installation (I/O); a malformed one is bad input, like a
        /// malformed `toolkit.json`.
        public var category: ErrorCategory {
            switch self {
            case .unreadable: .io
            case .invalid: .invalidInput
            }
        }
    }

    /// What is wrong, with the facts the message names.
    public enum Fault: Sendable, Equatable {
        /// The file is missing or cannot be read.
        case unreadable(path: String)
        /// The file is not a valid catalog.
        case invalid(path: String, detail: String)
    }

    public let fault: Fault

    public init(_ fault: Fault) {
        self.fault = fault
    }

    public var reason: Reason {
        switch fault {
        case .unreadable: .unreadable
        case .invalid: .invalid
        }
    }

    public var description: String {
        switch fault {
        case .unreadable(let path):
            "\(path): the SDK catalog does not exist or cannot be read"
        case .invalid(let path, let detail):
            "\(path): \(detail)"
        }
    }
}
