import FormatSupport

/// A code signature, or one of the structures it is made of, is malformed, or a value cannot be
/// encoded into one.
///
/// Every count, offset and length read from a signature is checked; a failing check ends here
/// (exit 65 at the command line), never in a trap. Read through a Mach-O slice
/// (`MachOSlice.readCodeSignature(from:)`), these errors become `MACHO_SIGNATURE`.
public typealias CodeSignatureError = InputError<CodeSignatureErrorReason>

/// The stable code a user can search for: why a code signature was refused.
public enum CodeSignatureErrorReason: String, ErrorReason, CaseIterable {
    /// The SuperBlob or a blob's framing: magic, length, index, offsets past the end,
    /// overlapping blobs, a slot listed twice, a blob in the wrong slot.
    case blob = "SIGNATURE_BLOB_INVALID"
    /// A CodeDirectory: header fields, strings, hash arrays, scatter vector or page count.
    case codeDirectory = "SIGNATURE_CODE_DIRECTORY_INVALID"
    /// A requirement set or a requirement expression (unknown opcode, cut-off data, nesting
    /// deeper than the limit).
    case requirement = "SIGNATURE_REQUIREMENT_INVALID"
    /// The XML entitlements blob is not a property list whose root is a dictionary.
    case entitlements = "ENTITLEMENTS_XML_INVALID"
    /// DER entitlements that do not follow Apple's encoding, or values that encoding cannot hold.
    case derEntitlements = "ENTITLEMENTS_DER_INVALID"
    /// `_CodeSignature/CodeResources` is not the property list Apple's signers write, or a
    /// bundle entry cannot be sealed (a `.DS_Store` symlink).
    case codeResources = "CODE_RESOURCES_INVALID"
    /// A resource rule's pattern is not a POSIX extended regular expression this reader
    /// accepts.
    case resourceRule = "CODE_RESOURCES_RULE_INVALID"
    /// The work on the input ran past `--time-limit` while a seal was decided.
    case timeLimit = "ARCHIVE_TIME_LIMIT"
}

/// Upper-case hexadecimal digits of `value` (callers write the `0x`).
func hex(_ value: some BinaryInteger) -> String {
    String(value, radix: 16, uppercase: true)
}
