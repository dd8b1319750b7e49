import Foundation
import Testing
import TestSupport

@Suite struct BatchCommandTests {
    @Test func checkGivesEveryInputTheSingleFileVerdictInOrder() throws {
        let sample = try BatchSampleFolder()
        let result = try Command.ipawrap(["batch", "check", sample.folder, "--jobs", "3"])
        #expect(result.status == 1, "\(result.stderr)")
        let lines = BatchSampleFolder.resultLines(result.stdout)
        #expect(lines.count == BatchSampleFolder.inputs.count, "\(result.stdout)")
        for (line, input) in zip(lines, BatchSampleFolder.inputs) {
            // The oracle: `ipawrap check` on that file alone.
            let single = try Command.ipawrap(["check", sample.path(input.name)])
            #expect(single.status == input.exitCode, "\(input.name): \(single.stderr)")
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            #expect(fields.count > 3, "\(line)")
            #expect(fields.first.map(String.init) == input.status, "\(line)")
            #expect(fields.dropFirst().first.map(String.init) == String(single.status), "\(line)")
            #expect(fields.dropFirst(2).first.map(String.init) == input.name + ":", "\(line)")
        }
        #expect(lines[0].contains("error[ARCHIVE_NOT_ZIP]"))
        #expect(lines[2].contains("1 error (ICON_NOT_FOUND)"))
        #expect(lines[4].contains("ICON_REFERENCE_MISSING"))
        #expect(result.stdout.contains("6 inputs: 2 ok, 1 with findings, 3 failed (1 exit 1, 2 exit 65)"))
        // Colour only on a terminal.
        #expect(!result.stdout.contains("\u{1B}["))
    }

    @Test func inspectFailsOnlyOnUnreadableFilesAndAllGoodIsZero() throws {
        let sample = try BatchSampleFolder()
        let result = try Command.ipawrap(["batch", "inspect", sample.folder])
        #expect(result.status == 1)
        #expect(BatchSampleFolder.resultLines(result.stdout)[2].hasPrefix("findings 0"))
        let good = try Command.ipawrap(["batch", "check", sample.path("Good.ipa"), sample.path("team")])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        #expect(good.stdout.contains("2 inputs: 2 ok, 0 with findings, 0 failed"))
    }

    @Test func jsonLinesCarryTheSingleFileReportOnePerLine() throws {
        let sample = try BatchSampleFolder()
        // One moment for both, so `judgedAt` agrees.
        let result = try Command.ipawrap(["batch", "inspect", sample.folder, "--json-lines", "--jobs", "4", "--at", "2026-06-01"])
        #expect(result.status == 1)
        let records = try BatchSampleFolder.jsonLines(result.stdout)
        #expect(records.map { $0["name"] as? String } == BatchSampleFolder.inputs.map(\.name))
        for record in records {
            let path = try #require(record["input"] as? String)
            let single = try Command.ipawrap(["inspect", path, "--json", "--at", "2026-06-01"])
            #expect(record["exitCode"] as? Int == Int(single.status), "\(path)")
            if single.status == 0 {
                let report = try #require(record["report"] as? NSDictionary)
                let expected = try #require(try JSONSerialization.jsonObject(with: Data(single.stdout.utf8)) as? NSDictionary)
                #expect(report == expected, "\(path)")
                #expect(record["failure"] is NSNull)
            } else {
                #expect(record["report"] is NSNull)
                let failure = try #require(record["failure"] as? [String: Any])
                #expect(single.stderr.contains("error[\(failure["code"] as? String ?? "?")]"))
            }
        }
        // The summary goes to stderr, so stdout is only records.
        #expect(result.stderr.contains("6 inputs: "))
    }

    @Test func inputsComeFromListsAndStandardInput() throws {
        let sample = try BatchSampleFolder()
        let list = try sample.scratch.write("list.txt", Array("""
            # the apps for this release
            \(sample.path("Good.ipa"))

            \(sample.path("team"))
            """.utf8))
        let result = try Command.run(
            Command.ipawrapPath, ["batch", "check", "--from", list, "--from", "-", "--json-lines"],
            input: Array("\(sample.path("Warn.ipa"))\n# not this: \(sample.path("Slip.ipa"))\n".utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try BatchSampleFolder.jsonLines(result.stdout).map { $0["name"] as? String } == ["Good.ipa", "Deep.ipa", "Warn.ipa"])
        let missing = try Command.ipawrap(["batch", "check", "--from", sample.scratch.path("nope.txt")])
        #expect(missing.status == 74)
        #expect(missing.stderr.contains("error[BATCH_LIST_UNREADABLE]"))
    }

    @Test func shardsCoverEveryInputExactlyOnce() throws {
        let sample = try BatchSampleFolder()
        // More inputs: hard links of one app under many names.
        try FileManager.default.createDirectory(atPath: sample.path("many"), withIntermediateDirectories: true)
        for index in 0..<30 {
            #expect(link(sample.path("Good.ipa"), sample.path("many/App\(index).ipa")) == 0)
        }
        let all = try BatchSampleFolder.jsonLines(
            Command.ipawrap(["batch", "inspect", sample.folder, "--json-lines"]).stdout).compactMap { $0["name"] as? String }
        #expect(all.count == 36)
        var seen: [String] = []
        for index in 1...4 {
            let result = try Command.ipawrap(["batch", "inspect", sample.folder, "--json-lines", "--shard", "\(index)/4"])
            let names = try BatchSampleFolder.jsonLines(result.stdout).compactMap { $0["name"] as? String }
            #expect(!names.isEmpty)
            #expect(names == all.filter(names.contains), "a shard keeps the batch's order")
            seen += names
        }
        #expect(seen.sorted() == all.sorted())
        // The same shard from another checkout (another absolute path) is the same set.
        let copy = try ScratchDirectory("cli-batch-copy")
        try FileManager.default.copyItem(atPath: sample.folder, toPath: copy.path("apps"))
        let here = try Command.ipawrap(["batch", "inspect", sample.folder, "--json-lines", "--shard", "3/4"]).stdout
        let there = try Command.ipawrap(["batch", "inspect", copy.path("apps"), "--json-lines", "--shard", "3/4"]).stdout
        #expect(try BatchSampleFolder.jsonLines(here).map { $0["name"] as? String }
            == BatchSampleFolder.jsonLines(there).map { $0["name"] as? String })
    }

    @Test func anEmptyShardIsNotAFailure() throws {
        let sample = try BatchSampleFolder()
        // One input: of 50 shards, all but one are empty.
        var empty = 0
        for index in 1...50 {
            let result = try Command.ipawrap(["batch", "check", sample.path("Good.ipa"), "--shard", "\(index)/50"])
            #expect(result.status == 0)
            if result.stderr.contains("has none of the 1 inputs") { empty += 1 }
        }
        #expect(empty == 49)
    }

    @Test func withoutJobsTheBatchRunsOneJobPerCore() throws {
        let sample = try BatchSampleFolder()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        // More inputs than cores, so the count of cores is what limits the jobs: hard links of one app.
        let folder = sample.scratch.path("many")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let count = max(cores + 1, 3)
        for index in 0..<count {
            #expect(link(sample.path("Good.ipa"), folder + "/App\(index).ipa") == 0)
        }
        let result = try Command.ipawrap(["batch", "check", folder])
        #expect(result.status == 0, "\(result.stderr)")
        let announced = result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("ipawrap batch check: ") }
        #expect(announced == ["ipawrap batch check: \(count) inputs, \(cores) job\(cores == 1 ? "" : "s") at once"], "\(result.stderr)")
        #expect(BatchSampleFolder.resultLines(result.stdout).count == count)

        // --jobs overrides it, and there are never more jobs than inputs.
        let one = try Command.ipawrap(["batch", "check", folder, "--jobs", "1"])
        #expect(one.stderr.contains("ipawrap batch check: \(count) inputs, 1 job at once"), "\(one.stderr)")
        let single = try Command.ipawrap(["batch", "check", folder + "/App0.ipa"])
        #expect(single.stderr.contains("ipawrap batch check: 1 input, 1 job at once"), "\(single.stderr)")
    }

    @Test func wrapWritesEachOutputUnderItsInputsNameAsASingleWrapWould() throws {
        let sample = try BatchSampleFolder()
        let out = sample.scratch.path("wrapped")
        let result = try Command.ipawrap(["batch", "wrap", sample.folder, "--out-dir", out, "--jobs", "2", "--template", "general"])
        #expect(result.status == 1, "\(result.stderr)")
        let lines = BatchSampleFolder.resultLines(result.stdout)
        #expect(lines[1].hasSuffix("→ \(out)/Good.ipa"), "\(lines[1])")
        #expect(lines[2].contains("not wrapped"))
        #expect(Set(sample.scratch.listing().filter { $0.hasPrefix("wrapped/") })
            == ["wrapped/Good.ipa", "wrapped/Warn.ipa", "wrapped/team", "wrapped/team/Deep.ipa"])
        for name in ["Good.ipa", "Warn.ipa", "team/Deep.ipa"] {
            let single = sample.scratch.path("single.ipa")
            #expect(try Command.ipawrap(["wrap", sample.path(name), "-o", single, "--template", "general"]).status == 0)
            #expect(try Fixtures.bytesAt(out + "/" + name) == Fixtures.bytesAt(single), "\(name)")
            try FileManager.default.removeItem(atPath: single)
            #expect(try ZipOracle.unzipTest(out + "/" + name).status == 0)
        }
        // Again, into the same folder: the outputs are replaced and the folder is not an input.
        let again = try Command.ipawrap(["batch", "wrap", sample.folder, "--out-dir", out, "--template", "general"])
        #expect(again.status == 1)
        #expect(BatchSampleFolder.resultLines(again.stdout).count == 6)
        // Inside the input folder, the output folder is skipped as an input.
        let inside = try Command.ipawrap(["batch", "wrap", sample.folder, "--out-dir", sample.path("wrapped"), "--json-lines"])
        #expect(try BatchSampleFolder.jsonLines(inside.stdout).count == 6)
        #expect(try BatchSampleFolder.jsonLines(
            Command.ipawrap(["batch", "wrap", sample.folder, "--out-dir", sample.path("wrapped"), "--json-lines"]).stdout).count == 6)
    }

    @Test func requestsThatCannotWorkStopBeforeAnyInput() throws {
        let sample = try BatchSampleFolder()
        let empty = try sample.scratch.write("empty/README.txt", [])
        let cases: [([String], Int32, String)] = [
            (["batch", "check", URL(fileURLWithPath: empty).deletingLastPathComponent().path], 64, "BATCH_NO_INPUTS"),
            (["batch", "check", sample.folder, "--shard", "0/2"], 64, "'--shard <I/N>': expects I/N"),
            (["batch", "check", sample.folder, "--jobs", "0"], 64, "--jobs"),
            (["batch", "check"], 64, "at least one"),
            (["batch", "wrap", sample.folder], 64, "--out-dir"),
            (["batch", "wrap", sample.path("Good.ipa"), sample.path("team/Deep.ipa"), sample.scratch.path("other/Good.ipa"),
              "--out-dir", sample.scratch.path("o")], 64, "BATCH_OUTPUT_COLLISION"),
            (["batch", "wrap", sample.folder, "--out-dir", sample.folder], 64, "BATCH_OUTPUT_IS_INPUT"),
            (["batch", "wrap", sample.folder, "--out-dir", sample.scratch.path("o"), "--template", "nope"], 64, "nope"),
            (["batch", "check", sample.folder, "--report", sample.scratch.path("no/such/folder/r.html")], 74, "OUTPUT_WRITE_FAILED"),
        ]
        _ = try sample.scratch.write("other/Good.ipa", BatchSampleFolder.good("Good"))
        for (arguments, status, message) in cases {
            let result = try Command.ipawrap(arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: sample.scratch.path("o/Good.ipa")))
    }

    @Test func theReportListsEveryInputAndIsWellFormed() throws {
        let sample = try BatchSampleFolder()
        let report = sample.scratch.path("report.html")
        let result = try Command.ipawrap(["batch", "check", sample.folder, "--report", report])
        #expect(result.status == 1)
        let html = String(decoding: try Fixtures.bytesAt(report), as: UTF8.self)
        for input in BatchSampleFolder.inputs {
            #expect(html.contains(">\(input.name)</div>"), "\(input.name)")
        }
        #expect(!html.contains("Hidden"))
        #expect(html.components(separatedBy: "data-status=\"failed\"").count - 1 == 3)
        // No reference to anything outside the page.
        #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("src=\"//"))
        let check = try Command.run("python3", ["-c", Self.tagBalance, report])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout == "rows 6\n")
    }

    /// Python's html.parser: every element closed in order; counts the rows of apps.
    static let tagBalance = #"""
        import sys
        from html.parser import HTMLParser
        VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
        class Check(HTMLParser):
            stack, rows, errors = [], 0, []
            def handle_starttag(self, tag, attrs):
                if tag == "tr" and "data-status" in dict(attrs): self.rows += 1
                if tag not in VOID: self.stack.append(tag)
            def handle_startendtag(self, tag, attrs):
                if tag not in VOID: self.errors.append("<%s/> is not a void element" % tag)
            def handle_endtag(self, tag):
                if not self.stack or self.stack[-1] != tag: self.errors.append("</%s> in %s" % (tag, self.stack[-1:]))
                else: self.stack.pop()
        check = Check()
        check.feed(open(sys.argv[1], encoding="utf-8").read())
        print("rows", check.rows)
        if check.errors or check.stack: print(check.errors, check.stack); sys.exit(1)
        """#
}
