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
