/// The time limit of the work on one input, passed down into the loops whose length the input
/// chooses (archive records and names, property-list objects, XML elements, Mach-O load commands,
/// PNG rows, Assets.car trees). A loop counts its work with `isExpired(after:)`, which reads the
/// clock only every 16,384 units, so the check costs nothing next to the work and fires within
/// milliseconds of the deadline.
///
/// A parser that finds the deadline passed throws its own error with the code `ARCHIVE_TIME_LIMIT`
/// and `timeLimitMessage`; the archive's `checkLimits()` then reports the input as a whole.
public struct WorkClock: Sendable, Equatable {
    /// When the work must have ended.
    public let deadline: ContinuousClock.Instant
    /// The limit as the user gave it (for the message).
    public let seconds: Double
    /// The input the work is on, named in the message.
    public let file: String
    private var work = 0

    /// The code every time-limit error carries, whichever parser throws it.
    public static let timeLimitCode = "ARCHIVE_TIME_LIMIT"

    public init(deadline: ContinuousClock.Instant, seconds: Double, file: String) {
        self.deadline = deadline
        self.seconds = seconds
        self.file = file
    }

    /// A clock whose deadline is `seconds` from now.
    public init(seconds: Double, file: String) {
        self.init(deadline: Self.deadline(after: seconds), seconds: seconds, file: file)
    }

    /// No limit worth the name (for parsers called on their own, such as in tests).
    public static let unlimited = WorkClock(seconds: .infinity, file: "")

    /// The instant `seconds` from now; far beyond any run (and beyond what `Duration` holds)
    /// counts as no limit.
    public static func deadline(after seconds: Double) -> ContinuousClock.Instant {
        let bounded = seconds.isFinite ? min(max(seconds, 0), 1e9) : 1e9
        return ContinuousClock.now.advanced(by: .milliseconds(Int64(bounded * 1000)))
    }

    /// Counts `units` of work and says whether the deadline has passed (the clock is read once
    /// every 16,384 units).
    public mutating func isExpired(after units: Int) -> Bool {
        work += units
        guard work >= 1 << 14 else { return false }
        work = 0
        return isPastDeadline
    }

    /// Whether the deadline has passed, read now.
    public var isPastDeadline: Bool { ContinuousClock.now > deadline }

    /// The sentence of the time-limit error.
    public var timeLimitMessage: String {
        let limit = Self.describe(seconds: seconds)
        let subject = file.isEmpty ? "the input" : file
        return "\(subject) took longer than the limit of \(limit) s to process; raise --time-limit if the file is genuine"
    }

    /// A limit as the user gave it: `5` for 5.0, `0.25` as is.
    public static func describe(seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }

    public static func == (lhs: WorkClock, rhs: WorkClock) -> Bool {
        lhs.deadline == rhs.deadline && lhs.seconds == rhs.seconds && lhs.file == rhs.file
    }
}
