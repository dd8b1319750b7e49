import Foundation
import Testing
import TestSupport

/// `ipawrap icon` and the report's `icon` through the command line: an app whose only icon is in
/// its asset catalog, a dangling icon name, and an output that cannot be written.
@Suite struct IconCommandTests {
    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// An app with no PNG files at all: `CFBundleIconName` names the icon set of its `Assets.car`.
    private func assetCatalogApp() -> IPABuilder {
        var builder = IPABuilder()
        builder.info["UIDeviceFamily"] = [1]
        builder.info["CFBundleIconName"] = "AppIcon"
        builder.addFile("Assets.car", AssetCatalogBuilder.appIconCatalog(named: "AppIcon"))
        return builder
    }

    @Test func anAssetCatalogOnlyAppGetsItsIconWritten() throws {
        let scratch = try ScratchDirectory("cli-icon")
        let builder = assetCatalogApp()
        #expect(try ZipOracle.entries(try scratch.write("App.ipa", builder.bytes())).allSatisfy { !$0.nameString.hasSuffix(".png") })
        let input = scratch.path("App.ipa")
        let output = scratch.path("icon.png")
        let result = try Command.ipawrap(["icon", input, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("(180x180) from Payload/Sample.app/Assets.car#AppIcon60x60@3x.png"), "\(result.stdout)")

        // The repository's independent PNG decoder (python's zlib and struct) reads it.
        let oracle = try Command.run("python3", [Fixtures.path("png/oracle.py"), output, scratch.path("icon.rgba")])
        #expect(oracle.status == 0, "\(oracle.stderr)")
        #expect(oracle.stdout.split(separator: "\n").first == "IHDR")
        let pixels = try Fixtures.bytesAt(scratch.path("icon.rgba"))
        #expect(pixels.count == 180 * 180 * 4)
        // The catalog's picture is opaque.
        #expect(stride(from: 3, to: pixels.count, by: 4).allSatisfy { pixels[$0] == 255 })

        let report = try json(try Command.ipawrap(["inspect", input, "--json"]).stdout)
        let icon = try #require(report["icon"] as? [String: Any])
        #expect(icon["source"] as? String == "assetCatalog")
        #expect(icon["format"] as? String == "assetCatalog")
        #expect(icon["path"] as? String == "Payload/Sample.app/Assets.car#AppIcon60x60@3x.png")
        #expect((icon["path"] as? String)?.hasPrefix("Payload/Sample.app/Assets.car#") == true)
        #expect(icon["width"] as? Int == 180 && icon["height"] as? Int == 180)
        let codes = (report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(!codes.contains("ICON_NOT_FOUND"))
    }

    @Test func aDanglingIconNameIsAWarningInTheReport() throws {
        let scratch = try ScratchDirectory("cli-icon")
        var builder = IPABuilder()
        builder.info["CFBundleIconFiles"] = ["Gone"]
        builder.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["Missing"]]]
        builder.addFile("Legacy.png", IPABuilder.iconPNG(size: 57))
        builder.info["CFBundleIconFile"] = "Legacy"
        let input = try scratch.write("App.ipa", builder.bytes())
        let result = try Command.ipawrap(["check", input, "--json", "--at", "2026-06-01"])
        // A warning only: check passes.
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let report = try json(result.stdout)
        let missing = (report["findings"] as? [[String: Any]] ?? []).filter { $0["code"] as? String == "ICON_REFERENCE_MISSING" }
        #expect(missing.count == 2, "\(missing)")
        #expect(missing.allSatisfy { $0["severity"] as? String == "warning" })
        #expect(missing.allSatisfy { ($0["remedy"] as? String)?.isEmpty == false })
        let messages = missing.compactMap { $0["message"] as? String }
        #expect(messages.contains { $0.contains("'Missing'") }, "\(messages)")
        #expect(messages.contains { $0.contains("'Gone'") }, "\(messages)")
        #expect((report["icon"] as? [String: Any])?["source"] as? String == "CFBundleIconFile")
    }

    @Test func anOutputInAMissingFolderIsAnIOErrorAndCreatesNothing() throws {
        let scratch = try ScratchDirectory("cli-icon")
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        let input = try scratch.write("App.ipa", builder.bytes())
        let missingFolder = "/nonexistent-ipawrap-\(UUID().uuidString.prefix(8))"
        let output = missingFolder + "/icon.png"
        let result = try Command.ipawrap(["icon", input, "-o", output])
        #expect(result.status == 74)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("ipawrap: error[") == true, "\(result.stderr)")
        #expect(result.stderr.contains(output) || result.stderr.contains(missingFolder), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missingFolder))
        #expect(scratch.listing() == ["App.ipa"])

        // The literal path of the contract too.
        try #require(!FileManager.default.fileExists(atPath: "/nonexistent-dir"))
        let literal = try Command.ipawrap(["icon", input, "-o", "/nonexistent-dir/icon.png"])
        #expect(literal.status == 74)
        #expect(literal.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent-dir"))
    }
}
