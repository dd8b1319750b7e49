// Fuzzes the policy validator, `PolicyDocument.validate` against the shipped
// Templates/schema/policy_metadata.xsd, and the `XMLDocument` it rests on. Checks that:
// - a file is valid exactly when it has no issues, and then has a template;
// - every element of a parsed document can be walked (names, lines, text, attributes);
// - changing one default of a valid file and writing it back gives a valid file with that one
//   default changed and every other policy as it was, for values that need XML escaping too.
import Foundation
import FuzzDriver
import Policy
import XMLSupport

/// The schema the command line ships, compiled once.
let schema: XMLSchema = {
    let path = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Templates/schema/policy_metadata.xsd").path
    guard let bytes = FileManager.default.contents(atPath: path), let schema = try? XMLSchema(bytes: [UInt8](bytes)) else {
        preconditionFailure("cannot compile the schema at \(path)")
    }
    return schema
}()

/// Elements visited per document.
let walkLimit = 4096

func fuzzOne(_ bytes: [UInt8]) {
    if let document = try? XMLDocument(bytes: bytes) {
        var pending = document.root.map { [$0] } ?? []
        var visited = 0
        while let element = pending.popLast(), visited < walkLimit {
            visited += 1
            precondition(element.line >= 0, "negative line")
            _ = (element.name, element.text.utf8.count, element.attribute("AppMode"), element.hasElementChildren)
            pending.append(contentsOf: element.children)
        }
    }

    let validation = PolicyDocument.validate(bytes, schema: schema)
    precondition(validation.isValid == (validation.template != nil), "a template exists exactly for a valid file")
    guard let template = validation.template else { return }
    precondition(!template.policies.isEmpty, "a valid file has no policies")
    for policy in template.policies.prefix(4) {
        guard let value = candidates(for: policy).first(where: { policy.type.problem(with: $0) == nil && $0 != policy.defaultValue }) else { continue }
        var changed = template
        do {
            try changed.set(name: policy.name, value: value)
        } catch {
            preconditionFailure("a value the type accepts is refused: \(error)")
        }
        let written: [UInt8]
        do {
            written = try changed.serialized()
        } catch {
            preconditionFailure("writing a changed default failed: \(error)")
        }
        let reread = PolicyDocument.validate(written, schema: schema)
        guard let again = reread.template else {
            preconditionFailure("the written file is not valid: \(reread.issues.map(\.description))")
        }
        precondition(again.names == template.names, "writing changed the policy names")
        for (before, after) in zip(changed.policies, again.policies) {
            precondition(before.defaultValue == after.defaultValue, "policy \(before.name) reads back '\(after.defaultValue)', not '\(before.defaultValue)'")
        }
    }
}

/// Values to try for a policy: ones its type may accept, some needing XML escaping.
func candidates(for policy: Policy) -> [String] {
    switch policy.type {
    case .boolean:
        return ["true", "false"]
    case .integer(let minimum, let maximum):
        return [minimum, maximum].compactMap { $0.map(String.init) } + ["0", "1", "-1"]
    case .string:
        return ["a<b>&c\"d'e", "]]> & caf\u{E9} \u{1F600}", ""]
    case .enumeration:
        return policy.type.enumValues.map(\.identifier)
    case .stringList:
        return ["a<b,c&d", "x", ""]
    }
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
