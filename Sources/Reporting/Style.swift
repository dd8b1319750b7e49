import Foundation

/// Terminal styling: colour only when stdout is a terminal and NO_COLOR is not set
/// (https://no-color.org).
public struct Style: Sendable {
    public let enabled: Bool

    public init(enabled: Bool) {
        self.enabled = enabled
    }

    public static let standardOutput = Style(
        enabled: isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true)

    public func bold(_ text: String) -> String { wrap(text, "1") }
    public func red(_ text: String) -> String { wrap(text, "31") }
    public func yellow(_ text: String) -> String { wrap(text, "33") }
    public func green(_ text: String) -> String { wrap(text, "32") }
    public func dim(_ text: String) -> String { wrap(text, "2") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
