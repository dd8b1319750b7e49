// Fuzzes the code-signature model: `EmbeddedSignature(bytes:)`, `CodeDirectory(bytes:)`,
// `RequirementSet(bytes:)`, `Requirement(bytes:)`, `DEREntitlements(derEncoded:)` and
// `CodeResources(bytes:)` with its rules compiled and evaluated. Checks that:
// - every refusal is a `CodeSignatureError` (the readers throw typed errors);
// - what reads writes back and reads again as the same value, and a SuperBlob laid out as
//   codesign lays it out writes back byte for byte, as does each CodeDirectory in Apple's layout;
// - requirements print (depth- and size-bounded), DER entitlements re-encode to what they decode
//   to, and resource rules decide a fixed bundle without trapping.
import CodeSignature
import FuzzDriver
import PropertyList

/// Every field but the bytes, which differ when the input was not laid out in Apple's order.
func sameFields(_ a: CodeDirectory, _ b: CodeDirectory) -> Bool {
    a.version == b.version && a.flags == b.flags && a.identifierBytes == b.identifierBytes
        && a.teamIdentifierBytes == b.teamIdentifierBytes && a.hashType == b.hashType && a.hashSize == b.hashSize
        && a.platform == b.platform && a.pageSizeLog2 == b.pageSizeLog2 && a.spare2 == b.spare2 && a.spare3 == b.spare3
        && a.codeLimit32 == b.codeLimit32 && a.codeLimit64 == b.codeLimit64 && a.scatter == b.scatter
        && a.executableSegment == b.executableSegment && a.runtime == b.runtime && a.preEncryptHashes == b.preEncryptHashes
        && a.linkage == b.linkage && a.specialSlots == b.specialSlots && a.codeSlots == b.codeSlots
}

func roundTrip(_ directory: CodeDirectory) {
    guard let written = try? directory.serialized(), let reread = try? CodeDirectory(bytes: written) else {
        preconditionFailure("a CodeDirectory that reads cannot be written and read back")
    }
    precondition(sameFields(reread, directory), "a CodeDirectory changed on the way back")
    // Apple's layout is a fixed point.
    precondition((try? reread.serialized()) == written, "writing a written CodeDirectory changed it")
    precondition(directory.codeSlots.storage.count == directory.codeSlotCount * directory.hashSize, "code slots of the wrong size")
    _ = (directory.cdhash, directory.pageSize, directory.identifier, directory.teamIdentifier)
}

func roundTrip(_ requirements: RequirementSet) {
    _ = requirements.text
    guard let written = try? requirements.serialized(), let reread = try? RequirementSet(bytes: written) else {
        preconditionFailure("a requirement set that reads cannot be written and read back")
    }
    precondition(reread == requirements, "a requirement set changed on the way back")
}

func roundTrip(_ entitlements: DEREntitlements) {
    // Not every decoded dictionary re-encodes (nothing it holds is unencodable, but nesting
    // counts differ); when it does, it decodes to the same dictionary.
    if let encoded = try? DEREntitlements(dictionary: entitlements.dictionary).derEncoded() {
        precondition((try? DEREntitlements(derEncoded: encoded))?.dictionary == entitlements.dictionary,
                     "DER entitlements re-encode to a different dictionary")
    }
}

let bundle: [ResourceEntry] = [
    ResourceEntry(path: "Info.plist", kind: .file), ResourceEntry(path: "App", kind: .file),
    ResourceEntry(path: "Base.lproj/Main.nib", kind: .file), ResourceEntry(path: "fr.lproj/locversion.plist", kind: .file),
    ResourceEntry(path: "Frameworks/Kit.framework/Kit", kind: .file),
    ResourceEntry(path: "Frameworks/Link", kind: .symlink(target: "Kit.framework/Kit")),
    ResourceEntry(path: "_CodeSignature/CodeResources", kind: .file), ResourceEntry(path: "a/.DS_Store", kind: .file),
]

func fuzzOne(_ bytes: [UInt8]) {
    do {
        let signature = try EmbeddedSignature(bytes: bytes)
        let written = try signature.serialized()
        let reread = try EmbeddedSignature(bytes: written)
        precondition(reread == signature, "a signature changed on the way back")
        if signature.superBlob.isCanonicalLayout {
            precondition(written == Array(bytes.prefix(written.count)), "a canonical SuperBlob did not write back byte for byte")
        }
        for directory in signature.codeDirectories {
            roundTrip(directory)
        }
        if let requirements = signature.requirements { roundTrip(requirements) }
        if let entitlements = try? signature.derEntitlements() { roundTrip(entitlements) }
        _ = try? signature.entitlements?.dictionary()
        _ = (signature.isAdHoc, signature.identifier, signature.blobs.count)
    } catch {
        _ = error.code
    }
    if let directory = try? CodeDirectory(bytes: bytes) { roundTrip(directory) }
    if let requirements = try? RequirementSet(bytes: bytes) { roundTrip(requirements) }
    if let requirement = try? Requirement(bytes: bytes) {
        _ = requirement.text
        precondition((try? Requirement(bytes: requirement.serialized())) == requirement, "a requirement changed on the way back")
    }
    if let entitlements = try? DEREntitlements(derEncoded: bytes) { roundTrip(entitlements) }
    if bytes.first == UInt8(ascii: "<") || bytes.starts(with: Array("bplist".utf8)) {
        if let resources = try? CodeResources(bytes: bytes) {
            guard let written = try? resources.serialized(), let reread = try? CodeResources(bytes: written) else {
                preconditionFailure("CodeResources that read cannot be written and read back")
            }
            precondition(reread == resources, "CodeResources changed on the way back")
            for rules in [resources.rules2, resources.rules].compactMap({ $0 }) {
                if let set = try? ResourceRuleSet(rules) {
                    _ = try? set.decide(bundle, mainExecutable: "App")
                }
            }
            if let requests = try? resources.verificationRequests(for: bundle) {
                var facts: [String: ResourceFacts] = [:]
                for request in requests { facts[request.path] = .digests([.sha1: Array(repeating: 0, count: 20)]) }
                _ = try? resources.discrepancies(for: bundle, mainExecutable: "App", facts: facts)
            }
        }
    }
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
