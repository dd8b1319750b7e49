import Deflate
import FormatSupport

/// Changes a repack makes; everything else is copied byte for byte.
public struct ArchiveEdits: Sendable, Equatable {
    /// What an added entry holds.
    public enum Content: Sendable, Equatable {
        /// A file on disk, or a folder added with everything in it (symlinks stay symlinks).
        case file(path: String)
        case bytes([UInt8])
        case directory
        case symlink(target: String)
    }

    public struct Addition: Sendable, Equatable {
        /// Path inside the archive, e.g. `Payload/Sample.app/MDXPolicy.bundle/Info.plist`.
        public var name: String
        public var content: Content
        /// Permission bits; nil chooses 0644 for files, 0755 for folders and Mach-O files.
        public var permissions: UInt16?
        /// Store the content as is instead of deflating it (for content that is already
        /// compressed, such as an IPA inside an .mdx).
        public var stored: Bool
        /// For a file of an app folder: the file the walk saw, the only one packing will read.
        package var walked: WalkedFile?
        /// The bytes revise the entry they replace in place, most of them unchanged (a re-signed
        /// binary: a few header fields and the signature differ), so the writer may reuse that
        /// entry's deflate stream where the two agree (`DeflateSplice`) instead of compressing
        /// everything again.
        public var revisesReplacedEntry: Bool
        /// The revision's deflate stream up to `DeflatedPrefix.length` bytes, made before the rest
        /// of the bytes existed: the entry is that stream and the rest in stored blocks, so its
        /// size was known early (`RepackForecast`).
        public var deflatedPrefix: DeflatedPrefix?

        public init(
            name: String, content: Content, permissions: UInt16? = nil, stored: Bool = false, revisesReplacedEntry: Bool = false
        ) {
            self.name = name
            self.content = content
            self.permissions = permissions
            self.stored = stored
            self.revisesReplacedEntry = revisesReplacedEntry
        }
    }

    /// The start of a deflate stream that ends on a byte boundary (`DeflateSplice.deflatePrefix`),
    /// checked when it was made to inflate to the first `length` bytes of the revision, whose
    /// CRC-32 is `crc`: the writer uses it for bytes that start with those (same CRC: the signer
    /// only appends its signature to the bytes it was made from) without inflating it again. Only
    /// `ArchiveEntrySource.deflatedPrefix`, which checks it, makes one.
    public struct DeflatedPrefix: Sendable, Equatable {
        public let stream: [UInt8]
        public let length: Int
        public let crc: UInt32

        init(stream: [UInt8], length: Int, crc: UInt32) {
            self.stream = stream
            self.length = length
            self.crc = crc
        }

        /// The size of the whole entry's data when the revision is `totalLength` bytes long.
        public func encodedSize(totalLength: Int) -> Int {
            stream.count + DeflateSplice.storedBlocksSize(max(0, totalLength - length))
        }
    }

    /// Added entries; an addition whose name exists replaces that entry.
    public var additions: [Addition]
    /// Paths to remove; a folder's path removes everything inside it too.
    public var removals: [String]
    /// Write an addition that replaces a file where that file was, keeping the archive's order
    /// (what signing does); otherwise replacements go after the kept entries with the others.
    public var replacesInPlace: Bool

    public init(additions: [Addition] = [], removals: [String] = [], replacesInPlace: Bool = false) {
        self.additions = additions
        self.removals = removals
        self.replacesInPlace = replacesInPlace
    }
}

/// The modification time written into added entries. Never the wall clock unless asked, so the
/// same input and options give the same bytes.
public enum NewEntryTimestamp: Sendable, Equatable {
    /// The newest timestamp already in the archive (deterministic; looks natural in listings).
    case latestInArchive
    case secondsSince1970(Int64)
}

public struct RepackOptions: Sendable, Equatable {
    public var timestamp: NewEntryTimestamp
    /// How hard added entries are compressed (unchanged entries are never recompressed).
    public var compressionLevel: DeflateLevel
    /// Flush the output to disk before publishing it (durability across power loss).
    public var synchronize: Bool

    public init(timestamp: NewEntryTimestamp = .latestInArchive, compressionLevel: DeflateLevel = .standard, synchronize: Bool = false) {
        self.timestamp = timestamp
        self.compressionLevel = compressionLevel
        self.synchronize = synchronize
    }
}

public struct RepackSummary: Sendable, Equatable {
    public var output: String
    /// Entries copied raw from the input.
    public var copiedEntries: Int
    public var addedEntries: Int
    public var removedEntries: Int
    public var outputSize: UInt64
    /// Bytes of the output an `EarlyCopy` had already written, kept rather than copied again.
    public var earlyCopiedBytes: UInt64 = 0
}

/// A repack request that cannot be carried out as asked (exit 64).
public struct RepackRequestError: ReasonCodedError, Equatable {
    /// The stable code a user can search for.
    public enum Reason: String, ErrorReason, CaseIterable {
        case noSuchEntry = "REPACK_NO_SUCH_ENTRY"
        case invalidName = "REPACK_INVALID_NAME"
        case nameConflict = "REPACK_NAME_CONFLICT"
        case duplicateAddition = "REPACK_DUPLICATE_ADDITION"
        case outputIsInput = "REPACK_OUTPUT_IS_INPUT"
        case unreadableSource = "REPACK_SOURCE_UNREADABLE"
        case entryTooLarge = "REPACK_ENTRY_TOO_LARGE"
        case nameTooLong = "ARCHIVE_NAME_TOO_LONG"

        public var category: ErrorCategory {
            switch self {
            case .unreadableSource: .io
            // The name comes from the input when a wrap adds beneath a very long app folder name.
            case .nameTooLong: .invalidInput
            default: .usage
            }
        }
    }

    /// What is wrong, with the facts the message names.
    public enum Fault: Sendable, Equatable {
        case noSuchEntry(String)
        case invalidName(String, reason: String)
        case nameConflict(String, reason: String)
        case duplicateAddition(String)
        case outputIsInput(String)
        case unreadableSource(String, reason: String)
        case entryTooLarge(String)
        /// A name of more than 65,535 bytes, which no zip header can hold (its length).
        case nameTooLong(String, length: Int)
    }

    public let fault: Fault

    public init(_ fault: Fault) {
        self.fault = fault
    }

    public var reason: Reason {
        switch fault {
        case .noSuchEntry: .noSuchEntry
        case .invalidName: .invalidName
        case .nameConflict: .nameConflict
        case .duplicateAddition: .duplicateAddition
        case .outputIsInput: .outputIsInput
        case .unreadableSource: .unreadableSource
        case .entryTooLarge: .entryTooLarge
        case .nameTooLong: .nameTooLong
        }
    }

    public var description: String {
        switch fault {
        case .noSuchEntry(let name):
            "--remove \(name): the archive has no such entry"
        case .invalidName(let name, let why):
            "cannot add '\(name)': \(why)"
        case .nameConflict(let name, let why):
            "cannot add '\(name)': \(why)"
        case .duplicateAddition(let name):
            "'\(name)' is added more than once"
        case .outputIsInput(let path):
            "the output \(path) is the input archive; write to another path (the input is never modified)"
        case .unreadableSource(let path, let why):
            "\(path): cannot be read to add it: \(why)"
        case .entryTooLarge(let path):
            "\(path): cannot be added: files of 4 GiB or more are not supported"
        case .nameTooLong(let name, let length):
            "cannot add '\(name.prefix(80))…': the name is \(length) bytes, and zip names are at most 65,535; nothing was written"
        }
    }
}

extension NewEntryTimestamp {
    /// The Unix time of the entries a repack of `archive` adds (nil: a new archive, whose
    /// newest entry is the earliest DOS time).
    func unixTime(in archive: ZipArchive?) -> Int64 {
        switch self {
        case .latestInArchive: (archive?.store.table.latestModification ?? .earliest).secondsSince1970
        case .secondsSince1970(let seconds): seconds
        }
    }
}
