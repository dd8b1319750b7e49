import AppBundle
import PNG
import PropertyList
import Testing
import TestSupport

/// One test per rule of docs/commands.md's "`icon`: how the icon is found".
@Suite struct IconResolutionTests {
    /// An app with no icon keys and no icon files, to which each test adds what it needs.
    private func bare() -> IPABuilder {
        var builder = IPABuilder()
        builder.info["UIDeviceFamily"] = [1]
        return builder
    }

    private func resolve(_ builder: IPABuilder) throws -> IconResolution {
        let scratch = try ScratchDirectory("icon")
        let archive = try AppArchive(path: try scratch.write("App.ipa", builder.bytes()))
        return archive.resolveIcon()
    }

    private func png(_ size: Int, cgbi: Bool = true, seed: UInt8 = 0) -> [UInt8] {
        IPABuilder.iconPNG(size: size, seed: seed, cgbi: cgbi)
    }

    @Test func bundleIconsChoosesTheLargestOfItsFiles() throws {
        var builder = bare()
        builder.addPrimaryIcon("AppIcon60x60")
        let resolution = try resolve(builder)
        let icon = try #require(resolution.icon)
        #expect(icon.source == .bundleIcons)
        #expect(icon.path == "Payload/Sample.app/AppIcon60x60@3x.png")
        #expect((icon.width, icon.height) == (180, 180))
        #expect(icon.format == .cgbi)
        #expect(resolution.missingReferences.isEmpty)
        #expect(resolution.trace.last?.contains("chose AppIcon60x60@3x.png") == true)
    }

    @Test func theIPadVariantIsALocationOfItsOwnAfterTheIPhoneOne() throws {
        var builder = bare()
        builder.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["AppIcon60x60"]]]
        builder.info["CFBundleIcons~ipad"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["AppIcon60x60", "AppIcon76x76"]]]
        builder.addFile("AppIcon60x60@2x.png", png(120))
        builder.addFile("AppIcon76x76@2x~ipad.png", png(152))
        builder.addFile("AppIcon76x76~ipad.png", png(76))
        let icon = try #require(try resolve(builder).icon)
        #expect(icon.source == .bundleIcons)
        #expect(icon.path == "Payload/Sample.app/AppIcon60x60@2x.png")

        // Without iPhone icons, the ~ipad location gives the icon, with its suffixes.
        builder.info["CFBundleIcons"] = nil
        let iPad = try #require(try resolve(builder).icon)
        #expect(iPad.source == .bundleIconsIPad)
        #expect(iPad.path == "Payload/Sample.app/AppIcon76x76@2x~ipad.png")
    }

    @Test func namesWithAndWithoutExtensionResolve() throws {
        var builder = bare()
        builder.info["CFBundleIconFiles"] = ["Icon-Small.png", "Icon-Large"]
        builder.addFile("Icon-Small.png", png(29, cgbi: false))
        builder.addFile("Icon-Large.png", png(57, cgbi: false))
        let icon = try #require(try resolve(builder).icon)
        #expect(icon.source == .iconFiles)
        #expect(icon.path == "Payload/Sample.app/Icon-Large.png")
        #expect(icon.format == .png)
    }

    @Test func aTieGoesToTheFirstListed() throws {
        var builder = bare()
        builder.info["CFBundleIconFiles"] = ["Second", "First"]
        builder.addFile("First.png", png(60, seed: 1))
        builder.addFile("Second.png", png(60, seed: 2))
        #expect(try resolve(builder).icon?.path == "Payload/Sample.app/Second.png")
    }

    @Test func aPlainStringPrimaryIconWorks() throws {
        var builder = bare()
        builder.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": "TVIcon"]
        builder.addFile("TVIcon.png", png(64))
        #expect(try resolve(builder).icon?.source == .bundleIcons)

        var topLevel = bare()
        topLevel.info["CFBundlePrimaryIcon"] = ["CFBundleIconFiles": ["Top"]]
        topLevel.addFile("Top@2x.png", png(80))
        #expect(try resolve(topLevel).icon?.source == .primaryIcon)
    }

    @Test func theLegacyKeysAndLaterLocationsCountInOrder() throws {
        var legacy = bare()
        legacy.info["CFBundleIconFile"] = "Old"
        legacy.addFile("Old.png", png(57))
        #expect(try resolve(legacy).icon?.source == .iconFile)

        var newsstand = bare()
        newsstand.info["CFBundleIcons"] = ["UINewsstandIcon": ["CFBundleIconFiles": ["Paper"]]]
        newsstand.addFile("Paper.png", png(50))
        #expect(try resolve(newsstand).icon?.source == .newsstandIcon)

        var documents = bare()
        documents.info["CFBundleDocumentTypes"] = [
            ["CFBundleTypeName": "Text", "CFBundleTypeIconFiles": ["DocSmall"]],
            ["CFBundleTypeName": "Image", "CFBundleTypeIconFile": "DocLarge.png"],
        ]
        documents.addFile("DocSmall.png", png(22))
        documents.addFile("DocLarge.png", png(64))
        let icon = try #require(try resolve(documents).icon)
        #expect(icon.source == .documentTypes)
        #expect(icon.path == "Payload/Sample.app/DocLarge.png")
    }

    @Test func anEarlierLocationWinsOverALargerLaterOne() throws {
        var builder = bare()
        builder.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["Small"]]]
        builder.info["CFBundleIconFiles"] = ["Big"]
        builder.addFile("Small.png", png(40))
        builder.addFile("Big.png", png(512))
        #expect(try resolve(builder).icon?.path == "Payload/Sample.app/Small.png")
    }

    /// Step 1's locations in their order, each able to name one icon file.
    enum Location: String, CaseIterable, Sendable, CustomStringConvertible {
        case bundleIcons, primaryIcon, iconFiles, iconFile, newsstandIcon, documentTypes

        var description: String { rawValue }

        var source: IconSource {
            switch self {
            case .bundleIcons: .bundleIcons
            case .primaryIcon: .primaryIcon
            case .iconFiles: .iconFiles
            case .iconFile: .iconFile
            case .newsstandIcon: .newsstandIcon
            case .documentTypes: .documentTypes
            }
        }

        /// Sets this location's key to name `name`.
        func name(_ name: String, in builder: inout IPABuilder) {
            switch self {
            case .bundleIcons: builder.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": [.string(name)]]]
            case .primaryIcon: builder.info["CFBundlePrimaryIcon"] = ["CFBundleIconFiles": [.string(name)]]
            case .iconFiles: builder.info["CFBundleIconFiles"] = [.string(name)]
            case .iconFile: builder.info["CFBundleIconFile"] = .string(name)
            case .newsstandIcon: builder.info["UINewsstandIcon"] = ["CFBundleIconFiles": [.string(name)]]
            case .documentTypes:
                builder.info["CFBundleDocumentTypes"] = [["CFBundleTypeName": "Document", "CFBundleTypeIconFiles": [.string(name)]]]
            }
        }
    }

    /// Each adjacent pair of step 1's locations: (earlier, later).
    static let adjacentLocations = zip(Location.allCases, Location.allCases.dropFirst()).map { ($0, $1) }

    @Test(arguments: adjacentLocations)
    func theEarlierOfTwoAdjacentLocationsWinsOverALargerImage(_ earlier: Location, _ later: Location) throws {
        /// Both images shipped; `Early` named only when `withEarlier`.
        func app(withEarlier: Bool) -> IPABuilder {
            var builder = bare()
            if withEarlier { earlier.name("Early", in: &builder) }
            later.name("Late", in: &builder)
            builder.addFile("Early.png", png(40, seed: 1))
            builder.addFile("Late.png", png(200, seed: 2))
            return builder
        }
        let icon = try #require(try resolve(app(withEarlier: true)).icon)
        #expect(icon.source == earlier.source)
        #expect(icon.path == "Payload/Sample.app/Early.png")
        #expect((icon.width, icon.height) == (40, 40))

        // The control: without the earlier one, the later location gives its (larger) image.
        let lateIcon = try #require(try resolve(app(withEarlier: false)).icon)
        #expect(lateIcon.source == later.source)
        #expect(lateIcon.path == "Payload/Sample.app/Late.png")
    }

    @Test func iPhoneVariantsResolve() throws {
        var builder = bare()
        builder.info["CFBundleIconFiles"] = ["AppIcon60x60"]
        builder.addFile("AppIcon60x60~iphone.png", png(60, seed: 1))
        builder.addFile("AppIcon60x60@2x~iphone.png", png(120, seed: 2))
        builder.addFile("AppIcon60x60@3x~iphone.png", png(180, seed: 3))
        let resolution = try resolve(builder)
        let icon = try #require(resolution.icon)
        #expect(icon.source == .iconFiles)
        #expect(icon.path == "Payload/Sample.app/AppIcon60x60@3x~iphone.png")
        #expect(icon.width == 180)
        #expect(resolution.trace.last?.contains("among AppIcon60x60~iphone.png 60x60, AppIcon60x60@2x~iphone.png 120x120, "
            + "AppIcon60x60@3x~iphone.png 180x180") == true, "\(resolution.trace)")

        // Only the ~iphone file: still found.
        var single = bare()
        single.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["Phone"]]]
        single.addFile("Phone@2x~iphone.png", png(120))
        #expect(try resolve(single).icon?.path == "Payload/Sample.app/Phone@2x~iphone.png")
    }

    @Test func aTopLevelNewsstandIconIsALocation() throws {
        var builder = bare()
        builder.info["UINewsstandIcon"] = ["CFBundleIconFiles": ["Paper"], "UINewsstandBindingType": "UINewsstandBindingTypeMagazine"]
        builder.addFile("Paper@2x.png", png(100))
        let resolution = try resolve(builder)
        let icon = try #require(resolution.icon)
        #expect(icon.source == .newsstandIcon)
        #expect(icon.path == "Payload/Sample.app/Paper@2x.png")
        #expect(resolution.trace.last?.hasPrefix("UINewsstandIcon > CFBundleIconFiles: chose Paper@2x.png") == true, "\(resolution.trace)")
    }

    @Test func aTopLevelStringPrimaryIconIsALocation() throws {
        var builder = bare()
        builder.info["CFBundlePrimaryIcon"] = "Top"
        builder.addFile("Top.png", png(64, seed: 1))
        builder.addFile("Top@2x.png", png(128, seed: 2))
        builder.info["CFBundleIconFiles"] = ["Later"]
        builder.addFile("Later.png", png(256, seed: 3))
        let icon = try #require(try resolve(builder).icon)
        #expect(icon.source == .primaryIcon)
        #expect(icon.path == "Payload/Sample.app/Top@2x.png")
    }

    @Test func danglingNamesAreReportedAndTheSearchGoesOn() throws {
        var builder = bare()
        builder.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["AppIcon60x60", "AppIcon40x40"]]]
        builder.info["CFBundleIconFiles"] = ["Legacy"]
        builder.addFile("Legacy@2x.png", png(114))
        let resolution = try resolve(builder)
        #expect(resolution.icon?.source == .iconFiles)
        #expect(resolution.missingReferences.map(\.name) == ["AppIcon60x60", "AppIcon40x40"])
        #expect(resolution.missingReferences.allSatisfy { $0.source == .bundleIcons })
        #expect(resolution.trace.first?.contains("'AppIcon60x60' matches no file") == true)
    }

    @Test func fallbackOrderBeatsSize() throws {
        var builder = bare()
        builder.addFile("Icon-76.png", png(152))
        builder.addFile("Icon.png", png(57))
        builder.addFile("Icon-72.png", png(144))
        let icon = try #require(try resolve(builder).icon)
        #expect(icon.source == .fallback)
        #expect(icon.path == "Payload/Sample.app/Icon.png")
    }

    @Test func iconsOfNestedBundlesNeverCount() throws {
        var builder = bare()
        builder.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        builder.nested[0].files["Icon.png"] = .init(data: png(120))
        builder.nested[0].info?["CFBundleIconFiles"] = ["Icon"]
        builder.addFile("Resources/Icon.png", png(120))  // not in the bundle root either
        let resolution = try resolve(builder)
        #expect(resolution.icon == nil)
        #expect(resolution.trace.last == "no icon found")
    }

    @Test func aFileNamedByTwoStepsIsUnreadableOnce() throws {
        // Icon.png is named by CFBundleIconFiles and is also the first fallback file.
        var builder = bare()
        builder.info["CFBundleIconFiles"] = ["Icon"]
        builder.addFile("Icon.png", Array("not a PNG".utf8))
        let resolution = try resolve(builder)
        #expect(resolution.icon == nil)
        #expect(resolution.unreadable.map(\.path) == ["Payload/Sample.app/Icon.png"])
        #expect(resolution.unreadable.first?.reason.hasPrefix("PNG_") == true, "\(resolution.unreadable)")
        #expect(resolution.trace.filter { $0.contains("'Icon.png' is not a readable PNG") || $0.contains("Icon.png is not a readable PNG") }.count == 2)
    }

    @Test func unreadableFilesAreSkippedWithAReason() throws {
        var builder = bare()
        builder.info["CFBundleIconFiles"] = ["Broken"]
        builder.addFile("Broken.png", Array("not a png at all".utf8))
        builder.addFile("Icon-60@2x.png", png(120))
        let resolution = try resolve(builder)
        #expect(resolution.icon?.source == .fallback)
        #expect(resolution.unreadable.map(\.path) == ["Payload/Sample.app/Broken.png"])
        #expect(resolution.missingReferences.isEmpty)
    }

    @Test func caseMismatchesAreNamedInTheTrace() throws {
        var builder = bare()
        builder.info["CFBundleIconFiles"] = ["appicon"]
        builder.addFile("AppIcon.png", png(60))
        let resolution = try resolve(builder)
        #expect(resolution.icon == nil)
        #expect(resolution.trace.contains { $0.contains("'AppIcon.png' differs only in case") })
    }

    // MARK: Step 5: the asset catalog

    @Test func theAssetCatalogIsUsedByCFBundleIconName() throws {
        var builder = bare()
        // What Xcode 12 writes with no loose PNG: ipa-server's fixture has exactly this shape.
        builder.info["CFBundleIcons"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["AppIcon60x60"], "CFBundleIconName": "Brand"]]
        builder.addFile("Assets.car", AssetCatalogBuilder.appIconCatalog(named: "Brand"))
        let resolution = try resolve(builder)
        let icon = try #require(resolution.icon)
        #expect(icon.source == .assetCatalog)
        #expect(icon.format == .assetCatalog)
        #expect(icon.path == "Payload/Sample.app/Assets.car#Brand60x60@3x.png")
        #expect((icon.width, icon.height) == (180, 180))
        #expect(resolution.missingReferences.map(\.name) == ["AppIcon60x60"])
    }

    @Test func anIPadOnlyAppGetsThePadRendition() throws {
        var builder = bare()
        builder.info["UIDeviceFamily"] = [2]
        builder.info["CFBundleIconName"] = "AppIcon"
        builder.addFile("Assets.car", AssetCatalogBuilder.appIconCatalog())
        let icon = try #require(try resolve(builder).icon)
        #expect(icon.path.hasSuffix("#AppIcon83.5x83.5@2x~ipad.png"))
        #expect(icon.width == 167)
    }

    @Test func aMissingOrDamagedCatalogIsExplainedNotFatal() throws {
        var missing = bare()
        missing.info["CFBundleIconName"] = "AppIcon"
        #expect(try resolve(missing).trace.contains { $0.contains("has no Assets.car") })

        var damaged = bare()
        damaged.info["CFBundleIconName"] = "AppIcon"
        damaged.addFile("Assets.car", Array("BOMStore".utf8) + [UInt8](repeating: 0xFF, count: 600))
        let resolution = try resolve(damaged)
        #expect(resolution.icon == nil)
        #expect(resolution.unreadable.map(\.path) == ["Payload/Sample.app/Assets.car"])

        var unnamed = bare()
        unnamed.info["CFBundleIconName"] = "Other"
        unnamed.addFile("Assets.car", AssetCatalogBuilder.appIconCatalog())
        #expect(try resolve(unnamed).trace.contains { $0.contains("no bitmap icon set named 'Other'") })
    }

    @Test func aRenditionThatCannotBeDecodedIsSkippedAndNamedInTheTrace() throws {
        var catalog = AssetCatalogBuilder()
        catalog.addFacet("AppIcon")
        catalog.addBitmap(
            facet: "AppIcon", name: "AppIcon60x60@3x.png", idiom: 1, scale: 3, width: 180, height: 180,
            premultipliedPixels: [UInt8](repeating: 0, count: 180 * 180 * 4),
            compression: .raw(code: 8, payload: [1, 2, 3, 4]))
        catalog.addBitmap(
            facet: "AppIcon", name: "AppIcon60x60@2x.png", idiom: 1, scale: 2, width: 120, height: 120,
            premultipliedPixels: AssetCatalogBuilder.iconPixels(width: 120, height: 120), compression: .lzvn)
        var builder = bare()
        builder.info["CFBundleIconName"] = "AppIcon"
        builder.addFile("Assets.car", catalog.build().bytes)
        let resolution = try resolve(builder)
        #expect(resolution.icon?.path == "Payload/Sample.app/Assets.car#AppIcon60x60@2x.png")
        #expect(resolution.trace.contains { $0.contains("skipped rendition 'AppIcon60x60@3x.png' (180x180): CAR_NOT_EXTRACTABLE") },
                "\(resolution.trace)")
    }

    // MARK: Standard PNG output

    @Test func cgbiIconsBecomeStandardPNGs() throws {
        var builder = bare()
        builder.addPrimaryIcon()
        let scratch = try ScratchDirectory("icon")
        let archive = try AppArchive(path: try scratch.write("App.ipa", builder.bytes()))
        let icon = try #require(archive.resolveIcon().icon)
        let png = try archive.iconPNG(icon)
        let decoded = try PNGDecoder.decode(png)
        #expect(!decoded.isCgBI)
        #expect((decoded.image.width, decoded.image.height) == (180, 180))
        // The same pixels as the CgBI original, decoded independently of the conversion.
        let original = try PNGDecoder.decode(IPABuilder.iconPNG(size: 180, seed: 40))
        #expect(decoded.image == original.image)
    }

    @Test func assetCatalogIconsBecomeStandardPNGs() throws {
        var builder = bare()
        builder.info["CFBundleIconName"] = "AppIcon"
        builder.addFile("Assets.car", AssetCatalogBuilder.appIconCatalog())
        let scratch = try ScratchDirectory("icon")
        let archive = try AppArchive(path: try scratch.write("App.ipa", builder.bytes()))
        let icon = try #require(archive.resolveIcon().icon)
        let decoded = try PNGDecoder.decode(try archive.iconPNG(icon))
        #expect((decoded.image.width, decoded.image.height) == (180, 180))
        #expect(decoded.image.pixels[3] == 255)  // opaque
    }
}
