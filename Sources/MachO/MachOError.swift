import FormatSupport

/// A Mach-O file, or one of the structures inside it, is malformed.
///
/// Every check on an offset, a count or a size derived from the file ends here instead of in a
/// trap, so a hostile binary is reported (exit 65 at the command line) rather than crashing the scan.
public struct MachOError: ReasonCodedError, Equatable {
    /// The stable code a user can search for.
    public enum Reason: String, ErrorReason, CaseIterable {
        /// The bytes do not start with a thin or fat Mach-O magic number.
        case badMagic = "MACHO_BAD_MAGIC"
        /// The file or slice ends before a structure it declares (header, fat table, slice, commands).
        case truncated = "MACHO_TRUNCATED"
        /// The fat header is inconsistent: no or too many architectures, a nested fat file, a slice
        /// whose own header names another CPU, or the same architecture twice.
        case fatHeader = "MACHO_FAT_HEADER"
        /// Two fat slices overlap each other, or a slice overlaps the fat header.
        case fatOverlap = "MACHO_FAT_OVERLAP"
        /// The load-command area is inconsistent: `ncmds` past `sizeofcmds`, a `cmdsize` of zero,
        /// misaligned or past the area, or an area larger than the slice or the size limit.
        case loadCommands = "MACHO_LOAD_COMMANDS"
        /// One load command is malformed: too small for its type, a string outside the command,
        /// or a command that may appear only once appearing twice.
        case loadCommand = "MACHO_LOAD_COMMAND"
        /// The embedded code signature (SuperBlob, CodeDirectory, blobs) is malformed or lies
        /// outside the slice.
        case signature = "MACHO_SIGNATURE"
        /// The symbol or string table is malformed or lies outside the slice.
        case symbolTable = "MACHO_SYMBOL_TABLE"
        /// A section's file range lies outside the slice.
        case section = "MACHO_SECTION"

        // Why a slice cannot be given a new embedded signature (see `SigningLayout`).

        /// The slice has no `LC_CODE_SIGNATURE` and the gap between its load commands and its
        /// first section is too small to add one: it must be relinked with a larger `-headerpad`.
        case noRoomForSignature = "MACHO_NO_ROOM_FOR_SIGNATURE"
        /// The slice is FairPlay-encrypted (`cryptid` non-zero), as App Store downloads are.
        case encrypted = "MACHO_ENCRYPTED"
        /// `__LINKEDIT` does not allow the signature at its end: missing or twice, not the last
        /// segment, not ending the slice, or an `LC_CODE_SIGNATURE` outside it or not at its end.
        case linkedit = "MACHO_LINKEDIT"
        /// The grown slice or file would need an offset or size its 32-bit fields cannot hold.
        case tooLarge = "MACHO_TOO_LARGE"
        /// A signature size that cannot be reserved, or a signature larger than its reservation.
        case signatureSpace = "MACHO_SIGNATURE_SPACE"
        /// The work on the input ran past `--time-limit` (the archive's time-limit code).
        case timeLimit = "ARCHIVE_TIME_LIMIT"
    }

    public let reason: Reason
    /// One sentence naming the structure and the offending value.
    public let message: String
    /// The architecture of the slice concerned, e.g. `arm64`, when the error is inside a slice.
    public let slice: String?

    public init(_ reason: Reason, _ message: String, slice: String? = nil) {
        self.reason = reason
        self.message = message
        self.slice = slice
    }

    public var description: String {
        if let slice, reason != .timeLimit { "\(slice) slice: \(message)" } else { message }
    }

    /// The same error with the file's path in front of its message (`path: …`), for a caller that
    /// reads several files.
    public func naming(_ path: String) -> MachOError {
        MachOError(reason, "\(path): \(message)", slice: slice)
    }

    /// The same error naming the slice it concerns, unless it already names one.
    func inSlice(_ name: String) -> MachOError {
        slice == nil ? MachOError(reason, message, slice: name) : self
    }
}
