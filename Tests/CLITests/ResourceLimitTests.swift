import Foundation
import Testing
import TestSupport

/// `--max-memory` and `--time-limit`: an input over them is refused with exit 65 and its code,
/// with nothing written and the input untouched; within them it is processed as usual.
@Suite struct ResourceLimitTests {
    /// Runs `arguments` (with `{in}` and `{out}` filled in) on `builder`'s IPA and checks the
    /// refusal: the exit status, the code, no output, the input's bytes unchanged.
    private func expectRefusal(
        _ builder: IPABuilder, _ arguments: [String], code: String, mentioning detail: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let scratch = try ScratchDirectory("limits")
        let bytes = try builder.bytes()
        let input = try scratch.write("App.ipa", bytes)
        let filled = arguments.map { $0 == "{in}" ? input : $0 == "{out}" ? scratch.path("out") : $0 }
        let result = try Command.ipawrap(filled)
        #expect(result.status == 65, "\(filled): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("ipawrap: error[\(code)]: "), "\(result.stderr)", sourceLocation: sourceLocation)
        if let detail { #expect(result.stderr.contains(detail), "\(result.stderr)", sourceLocation: sourceLocation) }
        #expect(scratch.listing() == ["App.ipa"], sourceLocation: sourceLocation)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: input))) == bytes, sourceLocation: sourceLocation)
    }

    private func status(_ builder: IPABuilder, _ arguments: [String]) throws -> Command.Result {
        let scratch = try ScratchDirectory("limits")
        let input = try scratch.write("App.ipa", try builder.bytes())
        return try Command.ipawrap(arguments.map { $0 == "{in}" ? input : $0 == "{out}" ? scratch.path("out") : $0 })
    }

    private func catalogApp() -> IPABuilder {
        var builder = IPABuilder()
        builder.info["CFBundleIconName"] = "AppIcon"
        builder.addFile("Assets.car", AssetCatalogBuilder.appIconCatalog())
        return builder
    }

    @Test(arguments: [
        ["inspect", "{in}"], ["check", "{in}"], ["wrap", "{in}", "-o", "{out}"], ["icon", "{in}", "-o", "{out}"],
        ["assets", "list", "{in}"],
    ])
    func anEntryAboveTheMemoryLimitRefusesTheInput(_ command: [String]) throws {
        // The app's Info.plist is about 2 KB.
        try expectRefusal(
            IPABuilder(), command + ["--max-memory", "1K"], code: "ARCHIVE_MEMORY_LIMIT",
            mentioning: "entry 'Payload/Sample.app/Info.plist' needs")
    }

    @Test func aLimitHitByAReadThatOtherwiseGivesAFindingStillRefusesTheInput() throws {
        // A damaged embedded profile is a finding (PROFILE_UNREADABLE); one above the memory limit
        // refuses the input. The app's Info.plist (about 2 KB) fits, the profile (about 4 KB) not.
        let builder = IPABuilder()
        let profileSize = try #require(builder.profile?.count)
        try expectRefusal(
            builder, ["check", "{in}", "--max-memory", "3K"], code: "ARCHIVE_MEMORY_LIMIT",
            mentioning: "entry 'Payload/Sample.app/embedded.mobileprovision' needs \(profileSize) bytes")
        // The same for a nested bundle's Info.plist, otherwise BUNDLE_INFO_PLIST_INVALID.
        var nested = IPABuilder()
        nested.profile = nil
        nested.addFramework("Kit", bundleIdentifier: "com.example.kit")
        nested.nested[0].info?["Padding"] = .string(String(repeating: "x", count: 4096))
        try expectRefusal(
            nested, ["inspect", "{in}", "--max-memory", "3K"], code: "ARCHIVE_MEMORY_LIMIT",
            mentioning: "Kit.framework/Info.plist")
    }

    @Test func anAssetCatalogIsReadWithinTheMemoryLimit() throws {
        let size = AssetCatalogBuilder.appIconCatalog().count
        try expectRefusal(
            catalogApp(), ["inspect", "{in}", "--max-memory", String(size - 1)], code: "ARCHIVE_MEMORY_LIMIT",
            mentioning: "Assets.car")
        // The catalog fits, but its largest rendition (1024×1024) decoded does not.
        try expectRefusal(
            catalogApp(), ["inspect", "{in}", "--max-memory", String(max(size, 4 << 20 - 1))], code: "ARCHIVE_MEMORY_LIMIT",
            mentioning: "the largest rendition of 'Payload/Sample.app/Assets.car#AppIcon', decoded, needs 4194304 bytes")
        let fits = try status(catalogApp(), ["inspect", "{in}", "--json", "--max-memory", "5M"])
        #expect(fits.status == 0, "\(fits.stderr)")
        #expect(fits.stdout.contains("\"source\" : \"assetCatalog\""))
    }

    @Test func aDecodedIconAboveTheMemoryLimitRefusesTheExtraction() throws {
        var builder = IPABuilder()
        builder.info["CFBundleIconFiles"] = ["Icon"]
        builder.addFile("Icon.png", IPABuilder.iconPNG(size: 1024, cgbi: false))
        // inspect reads only the PNG header; extracting the icon holds 4 MiB of scanlines (and a
        // filter byte and a spare byte a row) and 4 MiB of RGBA output (and a row of scratch).
        #expect(try status(builder, ["inspect", "{in}", "--max-memory", "1M"]).status == 0)
        try expectRefusal(
            builder, ["icon", "{in}", "-o", "{out}", "--max-memory", "1M"], code: "ARCHIVE_MEMORY_LIMIT",
            mentioning: "'Payload/Sample.app/Icon.png' decoded (1024x1024) needs 8398848 bytes")
        #expect(try status(builder, ["icon", "{in}", "-o", "{out}", "--max-memory", "8M"]).status == 65)
        #expect(try status(builder, ["icon", "{in}", "-o", "{out}", "--max-memory", "9M"]).status == 0)
    }

    @Test(arguments: [
        ["inspect", "{in}"], ["check", "{in}"], ["wrap", "{in}", "-o", "{out}"], ["repack", "{in}", "-o", "{out}"],
        ["icon", "{in}", "-o", "{out}"],
    ])
    func anInputOverTheTimeLimitIsRefused(_ command: [String]) throws {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        try expectRefusal(
            builder, command + ["--time-limit", "0.000001"], code: "ARCHIVE_TIME_LIMIT",
            mentioning: "took longer than the limit of 1e-06 s")
        #expect(try status(builder, command + ["--time-limit", "60"]).status == 0)
    }

    @Test func aBatchRefusesEachInputOverItsLimits() throws {
        let scratch = try ScratchDirectory("limits-batch")
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        try scratch.write("apps/A.ipa", try builder.bytes())
        try scratch.write("apps/B.ipa", try builder.bytes())
        let result = try Command.ipawrap(["batch", "check", scratch.path("apps"), "--jobs", "1", "--json-lines", "--max-memory", "1K"])
        #expect(result.status == 1, "\(result.stderr)")
        let records = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(records.count == 2)
        for record in records {
            #expect(record["exitCode"] as? Int == 65)
            #expect((record["failure"] as? [String: Any])?["code"] as? String == "ARCHIVE_MEMORY_LIMIT")
        }
    }

    @Test func sizesTakeBinaryUnits() throws {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        try expectRefusal(builder, ["inspect", "{in}", "--max-total-size", "1K"], code: "ARCHIVE_TOTAL_SIZE_LIMIT", mentioning: "limit of 1024")
        #expect(try status(builder, ["inspect", "{in}", "--max-memory", "64KiB"]).status == 0)
        for bad in ["1X", "-1", "1.5M", "99999999999T"] {
            let result = try status(builder, ["inspect", "{in}", "--max-memory", bad])
            #expect(result.status == 64, "\(bad): \(result.stderr)")
        }
        #expect(try status(builder, ["inspect", "{in}", "--time-limit", "0"]).status == 64)
    }

    /// Every IPA the tests ship (the hostile corpus, the sample app), an app as Xcode builds it
    /// (`XcodeShapedApp`: its catalog and signed binaries) and a catalog app, inspected and wrapped
    /// under a 16 MiB memory limit and 20 s: each answers (0, 1 or 65), within 20 s, with a peak RSS
    /// under twice the limit plus 64 MB (the runtime's own). The peak comes from `wait4` in a python
    /// wrapper, so it is this process's child alone.
    @Test(.disabled(if: sanitized, sanitizedNote))
    func everyFixtureStaysWithinTheLimits() throws {
        let scratch = try ScratchDirectory("limits-all")
        var inputs = try FileManager.default.contentsOfDirectory(atPath: Fixtures.path("hostile"))
            .filter { $0.hasSuffix(".ipa") }.sorted().map { Fixtures.path("hostile/" + $0) }
        inputs.append(Fixtures.packageRoot.appendingPathComponent("Samples/Sample.ipa").path)
        inputs.append(try XcodeShapedApp.ipa(in: scratch))
        inputs.append(try scratch.write("catalog.ipa", try catalogApp().bytes()))
        try Self.expectWithinLimits(inputs, scratch: scratch)
        #expect(inputs.count > 60)
    }

    /// The same for a real Xcode 7.2 build, isign's `Test.app` (`../shared`).
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote), .disabled(if: sanitized, sanitizedNote))
    func aRealXcodeBuildStaysWithinTheLimits() throws {
        let scratch = try ScratchDirectory("limits-isign")
        try Self.expectWithinLimits([try IsignFixture.ipa(in: scratch)], scratch: scratch)
    }

    static func expectWithinLimits(_ inputs: [String], scratch: ScratchDirectory) throws {
        let measure = try scratch.write("measure.py", Array(Self.measureScript.utf8))
        let limitMB = 16
        var worst = (rss: 0, seconds: 0.0, what: "")
        for input in inputs {
            for command in [["inspect", input], ["wrap", input, "-o", scratch.path("out.ipa")]] {
                let arguments = [measure, Command.ipawrapPath] + command + ["--max-memory", "\(limitMB)M", "--time-limit", "20"]
                let result = try Command.run("python3", arguments)
                let fields = result.stdout.split(separator: " ")
                guard fields.count == 3, let status = Int32(fields[0]), let rssKB = Int(fields[1]),
                      let seconds = Double(fields[2].trimmingCharacters(in: .whitespacesAndNewlines)) else {
                    Issue.record("\(command): \(result.stdout) \(result.stderr)")
                    continue
                }
                #expect([0, 1, 65].contains(status), "\(command): exit \(status)")
                #expect(rssKB <= (2 * limitMB + 64) * 1024, "\(command): peak RSS \(rssKB) KB")
                #expect(seconds <= 20, "\(command): \(seconds) s")
                if rssKB > worst.rss { worst = (rssKB, seconds, command.joined(separator: " ")) }
                try? FileManager.default.removeItem(atPath: scratch.path("out.ipa"))
            }
        }
        print("within the limits: \(inputs.count) inputs; highest peak RSS \(worst.rss) KB (\(worst.what))")
    }

    /// Under Scripts/sanitize the sanitizer's shadow memory and quarantine dwarf ipawrap's own.
    static let sanitized = ProcessInfo.processInfo.environment["IPAWRAP_SANITIZER"] != nil
    /// Under a sanitizer the measurements say nothing of ipawrap, and the hostile corpus
    /// (`HostileCorpusTests`) runs the same inputs through the same commands.
    static let sanitizedNote: Comment = "under a sanitizer, peak memory and time are the sanitizer's; HostileCorpusTests runs these inputs"

    static let measureScript = """
        import os, sys, time
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            os.execv(sys.argv[1], sys.argv[1:])
        _, status, usage = os.wait4(pid, 0)
        print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, round(time.monotonic() - start, 3))
        """
}

