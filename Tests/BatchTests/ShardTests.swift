import Batch
import Foundation
import Testing
import TestSupport

@Suite struct ShardTests {
    @Test func parsesIOfN() throws {
        #expect(try Shard(parsing: "2/4") == Shard(index: 2, count: 4))
        #expect(try Shard(parsing: "1/1").description == "1/1")
        for bad in ["0/4", "5/4", "a/b", "1/0", "2", "1/2/3", "-1/2", "", "/", "1/", " 1/2", "1/1000001"] {
            #expect(throws: BatchInputError.invalidShard(bad), "\(bad)") { try Shard(parsing: bad) }
        }
    }

    private func names(_ count: Int) -> [String] {
        (0..<count).map { index in
            switch index % 4 {
            case 0: "App\(index).ipa"
            case 1: "team\(index % 7)/App \(index).ipa"
            case 2: "Caf\u{00E9}\(index).ipa"
            default: "深い/アプリ\(index).IPA"
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4, 7, 16])
    func everyInputIsInExactlyOneShard(count: Int) throws {
        let inputs = names(500).map { BatchInput(path: "/somewhere/" + $0, name: $0) }
        var seen: [String: Int] = [:]
        for index in 1...count {
            for input in try Shard(index: index, count: count).select(inputs) {
                seen[input.name, default: 0] += 1
            }
        }
        #expect(seen.count == inputs.count)
        #expect(seen.values.allSatisfy { $0 == 1 })
    }

    @Test func theAssignmentIgnoresOrderPathsAndOtherInputs() throws {
        let names = self.names(200)
        let shard = try Shard(index: 2, count: 3)
        let here = shard.select(names.map { BatchInput(path: "/ci/run-1/apps/" + $0, name: $0) }).map(\.name)
        let there = shard.select(names.reversed().map { BatchInput(path: "/builds/x/" + $0, name: $0) }).map(\.name)
        #expect(Set(here) == Set(there))
        // Adding inputs moves none of the others.
        let more = shard.select((names + ["Extra.ipa", "Another.ipa"]).map { BatchInput(path: $0, name: $0) }).map(\.name)
        #expect(Set(more).subtracting(["Extra.ipa", "Another.ipa"]) == Set(here))
    }

    @Test func decomposedAndPrecomposedNamesShareAShard() {
        for count in [2, 3, 5, 11] {
            #expect(Shard.index(of: "Caf\u{00E9}.ipa", count: count) == Shard.index(of: "Cafe\u{0301}.ipa", count: count))
        }
    }

    @Test func shardsAreBalanced() throws {
        let inputs = names(2000).map { BatchInput(path: $0, name: $0) }
        for index in 1...4 {
            let count = try Shard(index: index, count: 4).select(inputs).count
            #expect((400...600).contains(count), "shard \(index)/4 has \(count) of 2000")
        }
    }

    /// Python's hashlib and unicodedata compute the documented rule independently.
    @Test func matchesTheDocumentedRule() throws {
        let names = ["App.ipa", "team/Deep.ipa", "Cafe\u{0301}.ipa", "深い/アプリ.IPA", "a b c.ipa"]
        let script = """
            import hashlib, json, sys, unicodedata
            for name in json.load(sys.stdin):
                digest = hashlib.sha256(unicodedata.normalize("NFC", name).encode()).digest()
                print(" ".join(str(int.from_bytes(digest[:8], "big") % n + 1) for n in (2, 3, 4, 7, 100)))
            """
        let input = try JSONSerialization.data(withJSONObject: names)
        let result = try Command.run("python3", ["-c", script], input: [UInt8](input))
        try #require(result.status == 0, "\(result.stderr)")
        let expected = result.stdout.split(separator: "\n").map(String.init)
        let ours = names.map { name in [2, 3, 4, 7, 100].map { String(Shard.index(of: name, count: $0)) }.joined(separator: " ") }
        #expect(ours == expected)
    }
}
