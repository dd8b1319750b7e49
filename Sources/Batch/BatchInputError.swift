import FormatSupport

/// Why the inputs of a batch cannot be gathered, or its request cannot be carried out. These stop
/// the batch before it starts; a bad input file is not one of them (it fails on its own).
public enum BatchInputError: ReasonCodedError, Equatable {
    /// The stable code a user can search for.
    public enum Reason: String, ErrorReason, CaseIterable {
        case listUnreadable = "BATCH_LIST_UNREADABLE"
        case folderUnreadable = "BATCH_FOLDER_UNREADABLE"
        case noInputs = "BATCH_NO_INPUTS"
        case outputCollision = "BATCH_OUTPUT_COLLISION"
        case outputIsInput = "BATCH_OUTPUT_IS_INPUT"
        case invalidShard = "BATCH_SHARD_INVALID"
        case folderTooLarge = "BATCH_FOLDER_TOO_LARGE"
        case folderTimeLimit = "BATCH_FOLDER_TIME_LIMIT"

        public var category: ErrorCategory {
            switch self {
            case .listUnreadable, .folderUnreadable: .io
            case .noInputs, .outputCollision, .outputIsInput, .invalidShard: .usage
            case .folderTooLarge, .folderTimeLimit: .invalidInput
            }
        }
    }

    /// A `--from` list cannot be read.
    case listUnreadable(String, reason: String)
    /// A folder argument (or one below it) cannot be listed.
    case folderUnreadable(String, reason: String)
    /// Nothing to do: no argument named an input, or the folders held no `.ipa` file.
    case noInputs(searched: [String])
    /// Two inputs would write the same output file.
    case outputCollision(output: String, first: String, second: String)
    /// An output would replace an input.
    case outputIsInput(output: String)
    /// `--shard` is not `I/N` with 1 ≤ I ≤ N.
    case invalidShard(String)
    /// Searching a folder argument for inputs met more entries than the batch takes.
    case folderTooLarge(String, limit: Int)
    /// Gathering the inputs (searching the folders, resolving the paths) took longer than
    /// `--time-limit`; the path is where it stopped.
    case folderTimeLimit(String, seconds: Double)

    public var reason: Reason {
        switch self {
        case .listUnreadable: .listUnreadable
        case .folderUnreadable: .folderUnreadable
        case .noInputs: .noInputs
        case .outputCollision: .outputCollision
        case .outputIsInput: .outputIsInput
        case .invalidShard: .invalidShard
        case .folderTooLarge: .folderTooLarge
        case .folderTimeLimit: .folderTimeLimit
        }
    }

    public var description: String {
        switch self {
        case .listUnreadable(let file, let reason):
            "\(file): the input list cannot be read: \(reason)"
        case .folderUnreadable(let folder, let reason):
            "\(folder): the folder cannot be listed: \(reason)"
        case .noInputs(let searched):
            searched.isEmpty
                ? "no inputs: name .ipa files or folders, or give a list with --from"
                : "no .ipa files found in \(searched.joined(separator: ", "))"
        case .outputCollision(let output, let first, let second):
            "\(first) and \(second) would both be written to \(output); give inputs with different names"
        case .outputIsInput(let output):
            "the output \(output) would replace its input; choose another --out-dir"
        case .invalidShard(let text):
            "--shard expects I/N with 1 <= I <= N (e.g. 2/4), got '\(text)'"
        case .folderTooLarge(let folder, let limit):
            "\(folder): the folder tree has more than \(limit) entries to search; name its subfolders or list the inputs with --from"
        case .folderTimeLimit(let folder, let seconds):
            "\(folder): gathering the batch's inputs took longer than the limit of "
                + "\(WorkClock.describe(seconds: seconds)) s; raise --time-limit or name fewer folders"
        }
    }
}
