/// What kind of failure an error is, which decides the command line's exit status.
public enum ErrorCategory: Sendable, Equatable {
    /// The input is not a readable, safe iOS app archive, profile or policy file (exit 65).
    case invalidInput
    /// The output could not be written, or an input could not be read from disk (exit 74).
    case io
    /// The request itself is wrong, e.g. an option naming an entry that does not exist (exit 64).
    case usage
}

/// An error a user can search for: a stable code, a category and one clear sentence.
///
/// Every format parser throws errors conforming to this protocol, so the command line can print
/// `error[CODE]: message` and choose the exit status without knowing each format.
public protocol CodedError: Error, CustomStringConvertible, Sendable {
    /// A stable, upper-case code such as `ARCHIVE_SYMLINK_ESCAPE` or `PLIST_CYCLE`.
    var code: String { get }
    var category: ErrorCategory { get }
}

/// A coded error about one input file (a profile, a signing identity): a reason whose raw value
/// is the code, one sentence, and the file when known, which the description puts first.
public protocol FileInputError: CodedError {
    associatedtype Reason: RawRepresentable where Reason.RawValue == String
    var reason: Reason { get }
    /// One sentence saying what is wrong.
    var message: String { get }
    /// The file the input was read from, when known.
    var file: String? { get }
}

extension FileInputError {
    public var code: String { reason.rawValue }

    public var description: String {
        if let file { "\(file): \(message)" } else { message }
    }
}

/// The exit statuses of the command-line contract (README, *Exit codes and errors*; docs/commands.md), in one place: the
/// command line, the batch results and the HTML report all read them from here.
public enum ExitStatus {
    /// Done: for `check`, no error finding; for `batch`, no input failed.
    public static let success: Int32 = 0
    /// `check` found an error, `wrap` wrote nothing because of one, or a batch input failed.
    public static let findings: Int32 = 1
    /// `ErrorCategory.usage`.
    public static let usage: Int32 = 64
    /// `ErrorCategory.invalidInput`.
    public static let invalidInput: Int32 = 65
    /// A defect of ipawrap: an error that is not a `CodedError`.
    public static let internalError: Int32 = 70
    /// `ErrorCategory.io`.
    public static let io: Int32 = 74
}

extension ErrorCategory {
    /// The exit status of an error of this category.
    public var exitStatus: Int32 {
        switch self {
        case .usage: ExitStatus.usage
        case .invalidInput: ExitStatus.invalidInput
        case .io: ExitStatus.io
        }
    }
}

/// A format parser's error placed in the file it was read from (and the entry inside an archive):
/// the same code and category, the location first in the message, as the error line promises
/// (`error[PNG_CRC_MISMATCH]: App.ipa: Payload/A.app/Icon.png: ...`).
public struct LocatedError: CodedError {
    public let location: String
    public let underlying: any CodedError

    public init(_ underlying: any CodedError, in location: String) {
        self.underlying = underlying
        self.location = location
    }

    public var code: String { underlying.code }
    public var category: ErrorCategory { underlying.category }
    public var description: String { "\(location): \(underlying)" }
}

extension CodedError {
    /// This error placed in `location`, unless its message already starts with it.
    public func located(in location: String) -> any CodedError {
        String(describing: self).hasPrefix(location) ? self : LocatedError(self, in: location)
    }
}

/// Runs `body`, placing any coded error it throws in `location` (see `LocatedError`).
public func inLocation<T>(_ location: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as CodedError {
        throw error.located(in: location)
    }
}
