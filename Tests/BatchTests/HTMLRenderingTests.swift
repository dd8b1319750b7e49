import Batch
import Foundation
import PNG
import Testing
import TestSupport

/// The report in a real browser: headless Chromium (Debian's `chromium`) renders it through
/// Scripts/render-report, runs its script, and the DOM shows filtering and sorting at work.
/// Skipped when Chromium is not installed. Set IPAWRAP_KEEP_RENDER=DIR to keep the page and its
/// screenshot for looking at.
@Suite struct HTMLRenderingTests {
    static let chromium = ["chromium", "chromium-browser", "google-chrome"].contains(where: Command.exists)
    static let script = Fixtures.packageRoot.appendingPathComponent("Scripts/render-report").path

    private func page() throws -> (ScratchDirectory, String) {
        let scratch = try ScratchDirectory("render")
        let html = HTMLReportTests.page(try HTMLReportTests.results())
        let path = try scratch.write("report.html", Array(html.utf8))
        if let keep = ProcessInfo.processInfo.environment["IPAWRAP_KEEP_RENDER"] {
            try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            try? Data(html.utf8).write(to: URL(fileURLWithPath: keep + "/report.html"))
        }
        return (scratch, path)
    }

    /// The visible table rows of a DOM dump, in order: (status, first words of the row).
    private func visibleRows(_ dom: String) -> [String] {
        dom.components(separatedBy: "<tr class=\"").dropFirst().compactMap { row in
            let tag = row.prefix { $0 != ">" }
            guard tag.contains("data-status"), !tag.contains("hidden") else { return nil }
            return row.components(separatedBy: "<div class=\"file\"").dropFirst().first?
                .components(separatedBy: ">").dropFirst().first?.components(separatedBy: "<").first
        }
    }

    @Test(.enabled(if: chromium, "Chromium is not installed (apt-get install chromium); the report was not rendered"))
    func rendersAsAPictureWithIconsAndText() throws {
        let (scratch, path) = try page()
        let png = scratch.path("report.png")
        let result = try Command.run(Self.script, [path, png, "--size", "1400x900"])
        try #require(result.status == 0, "\(result.stderr)")
        let image = try PNGDecoder.decode(try Fixtures.bytesAt(png)).image
        #expect(image.width == 1400 && image.height == 900)
        // Not a blank page: many colours (text, badges, icons).
        var colours: Set<UInt32> = []
        for index in stride(from: 0, to: image.pixels.count, by: 4 * 7) {
            colours.insert(UInt32(image.pixels[index]) << 16 | UInt32(image.pixels[index + 1]) << 8 | UInt32(image.pixels[index + 2]))
        }
        #expect(colours.count > 200, "\(colours.count) colours")
        if let keep = ProcessInfo.processInfo.environment["IPAWRAP_KEEP_RENDER"] {
            try? FileManager.default.copyItem(atPath: png, toPath: keep + "/report.png")
        }
    }

    @Test(.enabled(if: chromium, "Chromium is not installed (apt-get install chromium); the report was not rendered"))
    func theScriptFiltersAndSortsInTheBrowser() throws {
        let (scratch, path) = try page()
        func dom(_ fragment: String) throws -> String {
            let result = try Command.run(Self.script, [path, scratch.path("shot.png"), "--size", "800x600", "--fragment", fragment,
                                                       "--dom", scratch.path("dom.html")])
            try #require(result.status == 0, "\(result.stderr)")
            return String(decoding: try Fixtures.bytesAt(scratch.path("dom.html")), as: UTF8.self)
        }
        let all = try dom("")
        #expect(all.contains("data-ready=\"true\""), "the page's script ran")
        #expect(visibleRows(all) == ["Good.ipa", "Warn.ipa", "Expired.ipa", "Hostile.ipa", "Broken.ipa", "team/SDK.ipa"])
        #expect(all.contains("6 of 6 shown"))

        let filtered = try dom("#q=expired")
        #expect(visibleRows(filtered) == ["Expired.ipa"])
        #expect(filtered.contains("1 of 6 shown"))

        let failed = try dom("#status=failed")
        #expect(visibleRows(failed) == ["Expired.ipa", "Broken.ipa"])

        // Findings, most first: the unreadable file, then the error, then the warning.
        let sorted = try dom("#sort=8&desc=1")
        #expect(Array(visibleRows(sorted).prefix(3)) == ["Broken.ipa", "Expired.ipa", "Warn.ipa"])
        #expect(sorted.contains("aria-sort=\"descending\" data-type=\"number\"><button type=\"button\">Findings"))
        // Versions sort as numbers: 1.9 before 1.10.
        let versions = visibleRows(try dom("#sort=3"))
        let nine = try #require(versions.firstIndex(of: "Expired.ipa"))
        let ten = try #require(versions.firstIndex(of: "Warn.ipa"))
        #expect(nine < ten)
        // No script of an input ran: the hostile name is text in the DOM.
        #expect(!all.contains("<script>alert(1)"))
        #expect(all.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    }

    @Test func theRenderScriptSaysWhenChromiumIsMissing() throws {
        let (scratch, path) = try page()
        let result = try Command.run(Self.script, [path, scratch.path("x.png")], environment: ["CHROMIUM": "/nonexistent/chromium"])
        #expect(result.status != 0)
        let missing = try Command.run("/usr/bin/env", ["PATH=/nonexistent", "/bin/bash", Self.script, path])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("apt-get install chromium"))
    }
}
