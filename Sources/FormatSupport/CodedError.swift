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

/// Why an input was refused: an enum whose raw value is the stable code a user searches for.
/// Its category is invalid input (exit 65) unless the reason says otherwise.
public protocol ErrorReason: RawRepresentable, Hashable, Sendable where RawValue == String {
    var category: ErrorCategory { get }
}

extension ErrorReason {
    public var category: ErrorCategory { .invalidInput }
}

/// A coded error whose code and category are its reason's: the one mechanism the formats'
/// errors share. Each type adds only what places the error (a file, a slice, a byte, a line).
public protocol ReasonCodedError: CodedError {
    associatedtype Reason: ErrorReason
    var reason: Reason { get }
}

extension ReasonCodedError {
    public var code: String { reason.rawValue }
    public var category: ErrorCategory { reason.category }
}

/// The common error: a reason, one sentence saying what is wrong, and the file the input was
/// read from when known (the description puts it first). CMS, code signatures, provisioning
/// profiles and signing identities all report with it, each with its own `Reason`.
public struct InputError<Reason: ErrorReason>: ReasonCodedError, Equatable {
    public let reason: Reason
    /// One sentence saying what is wrong.
    public let message: String
    /// The file the input was read from, when known.
    public let file: String?

    public init(_ reason: Reason, _ message: String, file: String? = nil) {
        self.reason = reason
        self.message = message
        self.file = file
    }

    public var description: String {
        if let file { "\(file): \(message)" } else { message }
    }

    /// The same error naming the file it came from, unless it names one already.
    public func inFile(_ path: String) -> Self {
        file == nil ? Self(reason, message, file: path) : self
    }

    /// The same error with `context` in front of its message ("slot 0x1000: …").
    public func prefixed(_ context: String) -> Self {
        Self(reason, "\(context): \(message)", file: file)
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
