import AppBundle
import PNG
import PropertyList
import Testing
import TestSupport

@Suite struct BundleModelTests {
    private func archive(_ builder: IPABuilder) throws -> (AppArchive, ScratchDirectory) {
        let scratch = try ScratchDirectory("bundle")
        let path = try scratch.write("App.ipa", builder.bytes())
        return (try AppArchive(path: path), scratch)
    }

    @Test func readsTheAppAndItsNestedBundles() throws {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.addFramework("Kit", bundleIdentifier: "com.example.kit", version: "3.1.0")
        builder.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        builder.nested.append(.init(path: "Watch/Companion.app", info: IPABuilder.infoPlist(name: "Companion", bundleIdentifier: "com.example.sample.watchkitapp")))
        var watchExtension = IPABuilder.infoPlist(name: "CompanionExt", bundleIdentifier: "com.example.sample.watchkitapp.ext")
        watchExtension["NSExtension"] = ["NSExtensionPointIdentifier": "com.apple.watchkit"]
        builder.nested.append(.init(path: "Watch/Companion.app/PlugIns/CompanionExt.appex", info: watchExtension))
        builder.nested.append(.init(path: "AppClips/Clip.app", info: IPABuilder.infoPlist(name: "Clip", bundleIdentifier: "com.example.sample.Clip")))
        builder.rootFiles["SwiftSupport/iphoneos/libswiftCore.dylib"] = .init(data: [0xCA, 0xFE, 0xBA, 0xBE], mode: 0o100755)
        builder.rootFiles["iTunesMetadata.plist"] = .init(data: Array("<plist/>".utf8), mode: 0o100644)
        let (model, _) = try archive(builder)

        #expect(model.app.path == "Payload/Sample.app")
        #expect(model.app.bundleIdentifier == "com.example.sample")
        #expect(model.app.shortVersion == "1.2.0")
        #expect(model.app.buildVersion == "42")
        #expect(model.app.executablePath == "Payload/Sample.app/Sample")
        #expect(model.app.infoPlist?.format == .xml)
        let nested = model.nestedBundles.map { "\($0.kind.rawValue) \($0.path) \($0.bundleIdentifier ?? "-")" }
        #expect(nested == [
            "framework Payload/Sample.app/Frameworks/Kit.framework com.example.kit",
            "appex Payload/Sample.app/PlugIns/Share.appex com.example.sample.share",
            "watch Payload/Sample.app/Watch/Companion.app com.example.sample.watchkitapp",
            "appclip Payload/Sample.app/AppClips/Clip.app com.example.sample.Clip",
            "appex Payload/Sample.app/Watch/Companion.app/PlugIns/CompanionExt.appex com.example.sample.watchkitapp.ext",
        ])
        #expect(model.nestedBundles.first?.infoPlist?.format == .binary)
        #expect(model.nestedBundles.first?.shortVersion == "3.1.0")
        #expect(model.rootItems == ["SwiftSupport/", "iTunesMetadata.plist"])
    }

    @Test func extensionKitExtensionsAreNestedBundles() throws {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        var info = IPABuilder.infoPlist(name: "Intents", bundleIdentifier: "com.example.sample.intents", packageType: "XPC!")
        info["EXAppExtensionAttributes"] = ["EXExtensionPointIdentifier": "com.apple.appintents-extension"]
        builder.nested.append(.init(path: "Extensions/Intents.appex", info: info, executable: IPABuilder.executable(fileType: 8)))
        builder.nested[0].files["Assets.car"] = .init(data: [1, 2, 3])
        // Not a bundle: a folder in Extensions without the .appex extension.
        builder.addFile("Extensions/Notes/readme.txt", Array("not a bundle".utf8))
        let (model, _) = try archive(builder)
        let nested = model.nestedBundles.map { "\($0.kind.rawValue) \($0.path) \($0.bundleIdentifier ?? "-")" }
        #expect(nested == ["appex Payload/Sample.app/Extensions/Intents.appex com.example.sample.intents"])
        let appex = try #require(model.nestedBundles.first)
        #expect(appex.parentPath == "Payload/Sample.app")
        #expect(appex.executablePath == "Payload/Sample.app/Extensions/Intents.appex/Intents")
        #expect(appex.isSigned)
        #expect(appex.infoPlistProblem == nil)
    }

    /// An app as Xcode builds it: a binary Info.plist and a fat armv7 + arm64 executable.
    @Test func readsAnXcodeBuildsBinaryInfoPlist() throws {
        var builder = IPABuilder(appName: XcodeShapedApp.appName)
        builder.rawInfoPlist = try XcodeShapedApp.bytes("Info.plist")
        builder.executable = try XcodeShapedApp.bytes(XcodeShapedApp.appName)
        let (model, _) = try archive(builder)
        #expect(model.app.infoPlist?.format == .binary)
        #expect(model.app.bundleIdentifier == XcodeShapedApp.bundleIdentifier)
        #expect(model.app.minimumOSVersion == "12.0")
        let executable = try #require(try model.machO(at: "Payload/\(XcodeShapedApp.appName).app/\(XcodeShapedApp.appName)"))
        #expect(executable.architectureNames == ["armv7", "arm64"])
    }

    /// The same on a real Xcode 7.2 build, isign's `Test.app` (`../shared`).
    @Test(.enabled(if: IsignFixture.isAvailable, IsignFixture.skipNote))
    func readsTheIsignBinaryInfoPlist() throws {
        var builder = IPABuilder(appName: "isignTestApp")
        builder.rawInfoPlist = try IsignFixture.bytes("Test.app/Info.plist")
        builder.executable = try IsignFixture.bytes("Test.app/isignTestApp")
        let (model, _) = try archive(builder)
        #expect(model.app.infoPlist?.format == .binary)
        #expect(model.app.bundleIdentifier == "com.saucelabs.isignTestApp")
        #expect(model.app.minimumOSVersion == "9.2")
        let executable = try #require(try model.machO(at: "Payload/isignTestApp.app/isignTestApp"))
        #expect(executable.architectureNames == ["armv7", "arm64"])
    }

    @Test func nestedBundlesWithBrokenInfoPlistsAreKeptWithTheirProblem() throws {
        var builder = IPABuilder()
        builder.nested.append(.init(path: "PlugIns/Broken.appex", info: nil))
        builder.nested[0].files["Info.plist"] = .init(data: Array("not a plist".utf8), mode: 0o100644)
        builder.nested.append(.init(path: "Frameworks/Empty.framework", info: nil))
        let (model, _) = try archive(builder)
        #expect(model.nestedBundles.count == 2)
        #expect(model.nestedBundles.allSatisfy { $0.infoPlist == nil && $0.infoPlistProblem != nil })
    }

    @Test func refusesAnAppWithoutAUsableInfoPlist() throws {
        var builder = IPABuilder()
        builder.rawInfoPlist = Array("<plist version=\"1.0\"><array/></plist>".utf8)
        let scratch = try ScratchDirectory("bundle")
        let path = try scratch.write("App.ipa", builder.bytes())
        #expect(throws: BundleError.self) { try AppArchive(path: path) }
    }
}

/// The codes users search for stay what they are, now that `BundleError` takes them from its
/// `Reason` (issue 28).
@Suite struct BundleErrorCodeTests {
    @Test func everyCaseKeepsItsCode() {
        let errors: [(BundleError, String)] = [
            (.infoPlistMissing(archive: "a", path: "p"), "BUNDLE_INFO_PLIST_MISSING"),
            (.infoPlistInvalid(archive: "a", path: "p", reason: "r"), "BUNDLE_INFO_PLIST_INVALID"),
            (.entryMissing(archive: "a", path: "p"), "BUNDLE_ENTRY_MISSING"),
            (.nestingTooDeep(archive: "a", path: "p", limit: 2), "BUNDLE_NESTING_LIMIT"),
            (.tooManyBundles(archive: "a", limit: 2), "BUNDLE_COUNT_LIMIT"),
        ]
        #expect(Set(errors.map(\.0.reason)) == Set(BundleError.Reason.allCases), "one row per reason")
        for (error, code) in errors {
            #expect(error.code == code && error.category == .invalidInput, "\(error)")
        }
        #expect(BundleError.entryMissing(archive: "A.ipa", path: "Payload/A.app/x").description
                    == "A.ipa: Payload/A.app/x is not in the archive")
    }
}
