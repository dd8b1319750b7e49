/// The ISV app mode a policy file is written for.
///
/// The MDX toolkit wraps an ISV app in one of two modes: Premium for apps the enterprise
/// distributes (every policy applies; unmanaged apps read the template's defaults), General for
/// App Store apps (a subset; unmanaged apps get no policy values at all).
public enum AppMode: String, Sendable, Equatable, CaseIterable {
    case premium
    case general
}

/// A text in one language, such as a policy's title or help text.
public struct LocalizedText: Sendable, Equatable {
    /// An XML language tag, e.g. `en` or `zh-CN`.
    public let language: String
    public let text: String

    public init(language: String, text: String) {
        self.language = language
        self.text = text
    }
}

/// One allowed value of an enum policy.
public struct PolicyEnumValue: Sendable, Equatable {
    /// What the app reads, e.g. `TunneledFullVPN`.
    public let identifier: String
    /// How a management console shows it, e.g. "Tunneled - Full VPN".
    public let title: String

    public init(identifier: String, title: String) {
        self.identifier = identifier
        self.title = title
    }
}

/// One policy of a policy file: `/PolicyMetadata/Policies/Policy`.
public struct Policy: Sendable, Equatable {
    /// `PolicyName`: the key an app passes to `getValueOfPolicy:error:`, e.g. `DisableCamera`.
    public let name: String
    /// `PolicyType`, with the allowed values or range that go with it.
    public let type: PolicyValueType
    /// `PolicyDefault`: the value an app gets until an administrator changes it.
    public internal(set) var defaultValue: String
    /// `PolicyHidden`: whether the management console hides the policy.
    public let hidden: Bool
    /// `PolicyCategory`: the console section, e.g. `AppRestrictions`.
    public let category: String
    /// `PolicyTitle` elements: the console label, per language.
    public let titles: [LocalizedText]
    /// `PolicyDescription` elements: the console help text, per language.
    public let descriptions: [LocalizedText]
    /// 1-based line of the `Policy` element in its file.
    public let line: Int

    public init(
        name: String, type: PolicyValueType, defaultValue: String, hidden: Bool, category: String,
        titles: [LocalizedText], descriptions: [LocalizedText], line: Int
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.hidden = hidden
        self.category = category
        self.titles = titles
        self.descriptions = descriptions
        self.line = line
    }

    /// The title in `language`, else in English, else the first one.
    public func title(language: String = "en") -> String {
        Policy.pick(titles, language)
    }

    /// The help text in `language`, else in English, else the first one.
    public func helpText(language: String = "en") -> String {
        Policy.pick(descriptions, language)
    }

    private static func pick(_ texts: [LocalizedText], _ language: String) -> String {
        let wanted = language.lowercased()
        return (texts.first { $0.language.lowercased() == wanted }
            ?? texts.first { $0.language.lowercased() == "en" }
            ?? texts.first)?.text ?? ""
    }
}
