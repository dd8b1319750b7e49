// Fuzzes entitlements as `sign` and `verify` read and judge them: the strict property-list reader
// (duplicate keys refused), the XML entitlements blob, Apple's DER encoding and
// `EntitlementRules`. Checks that:
// - the strict reader accepts exactly what the lenient one does, unless the refusal is
//   PLIST_DUPLICATE_KEY, and then reads the same value;
// - a dictionary read from XML encodes to DER and decodes back to itself when DER can hold it;
// - `grants` is reflexive, and a dictionary checked against itself as the profile's grants has
//   only its type problems (and an application-identifier other than the one expected);
// - the same bytes as a DER blob decode without a crash.
import CodeSignature
import FuzzDriver
import PropertyList
import ProvisioningProfile

func fuzzOne(_ bytes: [UInt8]) {
    let lenient = try? PropertyList(bytes: bytes, limits: PropertyListLimits(maximumSize: 1 << 20))
    do {
        let strict = try PropertyList(bytes: bytes, limits: PropertyListLimits(maximumSize: 1 << 20, refusesDuplicateKeys: true))
        precondition(lenient?.root == strict.root, "the strict reader read another value than the lenient one")
    } catch {
        precondition(lenient == nil || error.code == "PLIST_DUPLICATE_KEY", "only duplicate keys separate the readers: \(error.code)")
    }
    if let dictionary = lenient?.root.dictionary {
        judge(dictionary)
        let der = DEREntitlements(dictionary: dictionary)
        if let blob = try? der.blob() {
            let decoded = try? DEREntitlements(derEncoded: Array(blob.dropFirst(8)))
            precondition(decoded?.dictionary == der.dictionary, "DER entitlements do not decode to what they encode")
        }
        if let xml = try? EntitlementsBlob(dictionary: dictionary), let blob = try? xml.blob() {
            _ = try? EntitlementsBlob(blob: blob).dictionary()
        }
    }
    _ = try? DEREntitlements(derEncoded: bytes)
}

func judge(_ dictionary: PropertyListDictionary) {
    for (_, value) in dictionary.prefix(64) {
        precondition(EntitlementRules.grants(value, value), "a value does not grant itself")
    }
    let types = EntitlementRules.typeProblems(in: dictionary)
    let expected = dictionary["application-identifier"]?.string
    let problems = EntitlementRules.problems(signed: dictionary, granted: dictionary, applicationIdentifier: expected)
    for problem in problems {
        switch problem {
        case .wrongType: precondition(types.contains(problem), "a type problem that typeProblems missed")
        case .applicationIdentifier: precondition(dictionary["com.apple.application-identifier"] != nil, "\(problem)")
        case .notGranted: preconditionFailure("a dictionary does not grant itself: \(problem)")
        }
    }
    _ = EntitlementRules.typeProblems(in: dictionary, profileWildcards: true)
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
