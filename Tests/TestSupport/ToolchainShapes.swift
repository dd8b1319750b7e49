import PropertyList

/// Apps in the shapes real toolchains make (Xcode 4 to 26, XCUITest runners, React Native,
/// Flutter, watch apps, app clips, ExtensionKit, Simulator builds, App Store downloads), built with
/// this project's builders from what those builds are known to hold. Each shape's nested code is
/// "signed" as a build left it: a CodeDirectory naming `oldTeam`, with `get-task-allow`, so a test can
/// tell old signatures from new ones.
public enum ToolchainShapes {
    /// The team a build signed its code with before ipawrap re-signs it.
    public static let oldTeam = "QLJ84Q3ZSY"

    /// One shape: the IPA, and the bundle IDs that need a profile to sign it.
    public struct Shape: Sendable {
        public let name: String
        public let builder: IPABuilder
        /// Bundle IDs of the app, extensions, watch apps and clips (each signed with its profile).
        public let profiledBundleIDs: [String]
    }

    // MARK: Parts

    /// Code as ld64 links it (room for `LC_CODE_SIGNATURE`), signed by `oldTeam` the way the
    /// build signed it (`signedAs` nil: unsigned).
    public static func code(
        fileType: UInt32 = 2, minimumOS: String = "15.0", platform: UInt32 = 2, cpuType: Int32 = 0x0100_000C,
        installName: String = "@rpath/Kit.framework/Kit", signedAs identifier: String? = "code", infoPlist: [UInt8]? = nil,
        links: [MachOBuilder.Dylib] = []
    ) -> [UInt8] {
        var builder = fileType == 6 ? MachOBuilder.dylib(installName: installName) : MachOBuilder()
        builder.dylibs += links
        builder.fileType = fileType
        builder.cpuType = cpuType
        builder.is64Bit = cpuType & 0x0100_0000 != 0
        if !builder.is64Bit { builder.segmentAlignment = 0x1000 }
        builder.version = .buildVersion(platform: platform, minOS: minimumOS, sdk: "17.2", tools: [(3, "1015.7")])
        builder.headerPadding = 1024
        builder.infoPlist = infoPlist
        if let identifier {
            var signature = MachOBuilder.CodeSignature(identifier: identifier, teamIdentifier: oldTeam)
            signature.entitlementsXML = MachOBuilder.xmlEntitlements([("get-task-allow", .bool(true))])
            builder.codeSignature = signature
        }
        return builder.build()
    }

    /// A fat file of old 32-bit ARM (and optionally arm64) slices, linked with
    /// `LC_VERSION_MIN_IPHONEOS` as Xcode 4 to 6 did.
    public static func fatCode(
        fileType: UInt32 = 2, architectures: [(cpuType: Int32, subtype: Int32)], minimumOS: String
    ) -> [UInt8] {
        let slices = architectures.map { architecture -> MachOBuilder.FatSlice in
            var builder = fileType == 6 ? MachOBuilder.dylib(installName: "@rpath/libOld.dylib") : MachOBuilder()
            builder.fileType = fileType
            builder.cpuType = architecture.cpuType
            builder.cpuSubtype = architecture.subtype
            builder.is64Bit = architecture.cpuType & 0x0100_0000 != 0
            builder.segmentAlignment = 0x1000
            builder.version = .versionMin(command: 0x25, minOS: minimumOS, sdk: "8.1")
            builder.headerPadding = 1024
            var signature = MachOBuilder.CodeSignature(identifier: "com.example.old", teamIdentifier: nil)
            signature.hashType = 1
            builder.codeSignature = signature
            return MachOBuilder.FatSlice(builder, alignment: 12)
        }
        return MachOBuilder.fat(slices)
    }

    /// An Info.plist of a nested bundle.
    public static func bundleInfo(
        _ name: String, _ identifier: String, packageType: String, minimumOS: String = "15.0", extra: PropertyListDictionary = [:]
    ) -> PropertyListDictionary {
        var info = IPABuilder.infoPlist(name: name, bundleIdentifier: identifier, minimumOS: minimumOS, packageType: packageType)
        info["CFBundleDisplayName"] = nil
        for (key, value) in extra { info[key] = value }
        return info
    }

    /// A framework whose code is signed as the build left it.
    public static func framework(_ name: String, _ identifier: String, in folder: String = "Frameworks") -> IPABuilder.Nested {
        IPABuilder.Nested(
            path: "\(folder)/\(name).framework", info: bundleInfo(name, identifier, packageType: "FMWK"),
            executable: code(fileType: 6, installName: "@rpath/\(name).framework/\(name)", signedAs: identifier))
    }

    /// An app without icon keys or icon files, as test and CI builds are: binary Info.plist, an
    /// executable signed by `oldTeam`.
    public static func iconlessApp(_ name: String, _ identifier: String) -> IPABuilder {
        var builder = IPABuilder(appName: name, bundleIdentifier: identifier)
        builder.infoPlistFormat = .binary
        builder.executable = code(signedAs: identifier)
        builder.profile = nil
        return builder
    }

    /// The embedded Info.plist the Swift runtime's dylibs carry (`__TEXT,__info_plist`).
    public static func swiftDylibInfoPlist(_ library: String) -> [UInt8] {
        let info: PropertyListDictionary = [
            "CFBundleIdentifier": .string("com.apple.dt.runtime.\(library)"),
            "CFBundleShortVersionString": "5.0", "CFBundleVersion": "5.0",
        ]
        return (try? PropertyList(root: .dictionary(info), format: .xml).serialized()) ?? []
    }

    // MARK: Shapes

    /// An XCUITest runner as Xcode 15 builds it for a device: no icon, the test bundle in
    /// `PlugIns/`, Xcode's test frameworks and `libXCTestSwiftSupport.dylib`, all signed by the
    /// developer's team with `get-task-allow`.
    public static func xcuitestRunner() -> Shape {
        var builder = iconlessApp("AppUITests-Runner", "com.example.AppUITests.xctrunner")
        builder.nested.append(IPABuilder.Nested(
            path: "PlugIns/AppUITests.xctest", info: bundleInfo("AppUITests", "com.example.AppUITests", packageType: "BNDL"),
            executable: code(fileType: 8, signedAs: "com.example.AppUITests")))
        for (name, identifier) in [
            ("XCTest", "com.apple.dt.XCTest"), ("XCTAutomationSupport", "com.apple.dt.XCTAutomationSupport"),
            ("XCTestCore", "com.apple.dt.XCTestCore"), ("XCUIAutomation", "com.apple.dt.XCUIAutomation"),
            ("XCUnit", "com.apple.dt.XCUnit"),
        ] {
            builder.nested.append(framework(name, identifier))
        }
        builder.addFile("Frameworks/libXCTestSwiftSupport.dylib", code(fileType: 6, installName: "@rpath/libXCTestSwiftSupport.dylib", signedAs: "libXCTestSwiftSupport"), mode: 0o100755)
        builder.addFile("Frameworks/libXCTestBundleInject.dylib", code(fileType: 6, installName: "@rpath/libXCTestBundleInject.dylib", signedAs: "libXCTestBundleInject"), mode: 0o100755)
        return Shape(name: "xcuitest-runner", builder: builder, profiledBundleIDs: ["com.example.AppUITests.xctrunner"])
    }

    /// An app with a Settings plug-in in `PreferenceBundles/` (a `.bundle` with code) and a
    /// resource bundle (a `.bundle` without).
    public static func preferenceBundles() -> Shape {
        var builder = iconlessApp("Prefs", "com.example.prefs")
        builder.nested.append(IPABuilder.Nested(
            path: "PreferenceBundles/AppPrefs.bundle", info: bundleInfo("AppPrefs", "com.example.prefs.AppPrefs", packageType: "BNDL"),
            executable: code(fileType: 8, signedAs: "com.example.prefs.AppPrefs")))
        builder.nested[0].files["Root.plist"] = .init(data: Array("<plist version=\"1.0\"><dict/></plist>".utf8))
        builder.addFile("Settings.bundle/Root.plist", Array("<plist version=\"1.0\"><dict/></plist>".utf8))
        builder.addFile("Settings.bundle/en.lproj/Root.strings", Array("\"a\" = \"b\";".utf8))
        // Resource bundles whose Info.plist names no file, as some pod and template bundles do.
        for (name, executable) in [("Maps", ""), ("PodResources", "PodResources")] {
            var info = bundleInfo(name, "org.cocoapods.\(name)", packageType: "BNDL")
            info["CFBundleExecutable"] = .string(executable)
            builder.addFile("\(name).bundle/Info.plist", (try? PropertyList(root: .dictionary(info), format: .binary).serialized()) ?? [])
            builder.addFile("\(name).bundle/image.png", IPABuilder.iconPNG(size: 4, cgbi: false))
        }
        return Shape(name: "preference-bundles", builder: builder, profiledBundleIDs: ["com.example.prefs"])
    }

    /// A trimmed Xcode build whose `Frameworks/Gone.framework/` folder is empty.
    public static func emptyFrameworkFolder() -> Shape {
        var builder = iconlessApp("Trimmed", "com.example.trimmed")
        builder.nested.append(framework("Kit", "com.example.kit"))
        var empty = IPABuilder.Nested(path: "Frameworks/Gone.framework", info: nil, executable: nil)
        empty.signed = false
        builder.nested.append(empty)
        return Shape(name: "empty-framework-folder", builder: builder, profiledBundleIDs: ["com.example.trimmed"])
    }

    /// An app clip in `AppClips/`, an ExtensionKit extension in `Extensions/`, an XPC service in
    /// `XPCServices/`, and a framework inside a framework.
    public static func clipExtensionKitXPC() -> Shape {
        var builder = iconlessApp("Sample", "com.example.sample")
        builder.addPrimaryIcon()
        var clip = IPABuilder.Nested(
            path: "AppClips/Clip.app",
            info: bundleInfo("Clip", "com.example.sample.Clip", packageType: "APPL", extra: [
                "NSAppClip": ["NSAppClipRequestEphemeralUserNotification": false, "NSAppClipRequestLocationConfirmation": false],
            ]),
            executable: code(signedAs: "com.example.sample.Clip"))
        clip.files["Frameworks/ClipKit.framework/Info.plist"] = .init(
            data: (try? PropertyList(root: .dictionary(bundleInfo("ClipKit", "com.example.clipkit", packageType: "FMWK")), format: .binary).serialized()) ?? [])
        clip.files["Frameworks/ClipKit.framework/ClipKit"] = .init(
            data: code(fileType: 6, installName: "@rpath/ClipKit.framework/ClipKit", signedAs: "com.example.clipkit"), mode: 0o100755)
        builder.nested.append(clip)
        builder.nested.append(IPABuilder.Nested(
            path: "Extensions/Widget.appex",
            info: bundleInfo("Widget", "com.example.sample.widget", packageType: "XPC!", extra: [
                "EXAppExtensionAttributes": ["EXExtensionPointIdentifier": "com.apple.widgetkit-extension"],
            ]),
            executable: code(signedAs: "com.example.sample.widget")))
        builder.nested.append(IPABuilder.Nested(
            path: "XPCServices/Helper.xpc", info: bundleInfo("Helper", "com.example.sample.helper", packageType: "XPC!"),
            executable: code(signedAs: "com.example.sample.helper")))
        var outer = framework("Outer", "com.example.outer")
        outer.files["Frameworks/Inner.framework/Info.plist"] = .init(
            data: (try? PropertyList(root: .dictionary(bundleInfo("Inner", "com.example.inner", packageType: "FMWK")), format: .binary).serialized()) ?? [])
        outer.files["Frameworks/Inner.framework/Inner"] = .init(
            data: code(fileType: 6, installName: "@rpath/Inner.framework/Inner", signedAs: "com.example.inner"), mode: 0o100755)
        builder.nested.append(outer)
        return Shape(
            name: "clip-extensionkit-xpc", builder: builder,
            profiledBundleIDs: ["com.example.sample", "com.example.sample.Clip", "com.example.sample.widget"])
    }

    /// A watchOS app in `Watch/` with a complication (WatchKit) extension, its own framework and
    /// Apple's `_WatchKitStub/WK`, which stays as Apple signed it.
    public static func watchApp() -> Shape {
        var builder = iconlessApp("Sample", "com.example.sample")
        builder.addPrimaryIcon()
        let watchCode = { (fileType: UInt32, identifier: String) in
            code(fileType: fileType, minimumOS: "7.0", platform: 4, cpuType: 0x0200_000C, signedAs: identifier)
        }
        var watch = IPABuilder.Nested(
            path: "Watch/SampleWatch.app",
            info: bundleInfo("SampleWatch", "com.example.sample.watchkitapp", packageType: "APPL", minimumOS: "7.0", extra: [
                "WKCompanionAppBundleIdentifier": "com.example.sample", "WKWatchKitApp": true,
                "CFBundleSupportedPlatforms": ["WatchOS"], "DTPlatformName": "watchos", "UIDeviceFamily": [4],
            ]),
            executable: watchCode(2, "com.example.sample.watchkitapp"))
        watch.files["_WatchKitStub/WK"] = .init(data: watchCode(2, "com.apple.WK"), mode: 0o100755)
        watch.files["PlugIns/SampleWatchExtension.appex/Info.plist"] = .init(data: (try? PropertyList(
            root: .dictionary(bundleInfo(
                "SampleWatchExtension", "com.example.sample.watchkitapp.watchkitextension", packageType: "XPC!", minimumOS: "7.0",
                extra: [
                    "NSExtension": ["NSExtensionPointIdentifier": "com.apple.watchkit",
                                    "NSExtensionAttributes": ["WKAppBundleIdentifier": "com.example.sample.watchkitapp"]],
                    "CLKComplicationPrincipalClass": "ComplicationController", "CFBundleSupportedPlatforms": ["WatchOS"],
                ])),
            format: .xml).serialized()) ?? [])
        watch.files["PlugIns/SampleWatchExtension.appex/SampleWatchExtension"] = .init(
            data: watchCode(2, "com.example.sample.watchkitapp.watchkitextension"), mode: 0o100755)
        watch.files["Frameworks/WatchKit2.framework/Info.plist"] = .init(data: (try? PropertyList(
            root: .dictionary(bundleInfo("WatchKit2", "com.example.watchkit2", packageType: "FMWK", minimumOS: "7.0")),
            format: .binary).serialized()) ?? [])
        watch.files["Frameworks/WatchKit2.framework/WatchKit2"] = .init(
            data: watchCode(6, "com.example.watchkit2"), mode: 0o100755)
        builder.nested.append(watch)
        // As Xcode exports it for the App Store: Apple's stub beside the app, for App Store processing.
        builder.rootFiles["WatchKitSupport2/WK"] = .init(data: watchCode(2, "com.apple.WK"), mode: 0o100755)
        builder.rootFiles["Symbols/C4EB91AD-549B-3F1E-A423-90B0B5960943.symbols"] = .init(data: Array(repeating: 0x53, count: 128))
        return Shape(
            name: "watch-app", builder: builder,
            profiledBundleIDs: ["com.example.sample", "com.example.sample.watchkitapp",
                                "com.example.sample.watchkitapp.watchkitextension"])
    }

    /// A Swift 5 app for iOS 12 with the Swift runtime's dylibs in `Frameworks/` (each with its
    /// embedded Info.plist) and in `SwiftSupport/iphoneos/` beside the app, a React Native bundle,
    /// a dylib injected at the app's top level and a helper executable in a folder of its own.
    public static func swiftAndLooseCode() -> Shape {
        var builder = iconlessApp("Swifty", "com.example.swifty")
        builder.addPrimaryIcon()
        for library in ["swiftCore", "swiftFoundation", "swiftUIKit", "swiftDarwin"] {
            let dylib = code(
                fileType: 6, minimumOS: "12.0", installName: "@rpath/lib\(library).dylib", signedAs: "lib\(library)",
                infoPlist: swiftDylibInfoPlist(library))
            builder.addFile("Frameworks/lib\(library).dylib", dylib, mode: 0o100755)
            builder.rootFiles["SwiftSupport/iphoneos/lib\(library).dylib"] = .init(data: dylib, mode: 0o100755)
        }
        builder.addFile("main.jsbundle", Array("__d(function(){});".utf8))
        builder.addFile("assets/node_modules/logo.png", IPABuilder.iconPNG(size: 8, cgbi: false))
        builder.addFile("libInjected.dylib", code(fileType: 6, installName: "@executable_path/libInjected.dylib", signedAs: "libInjected"), mode: 0o100755)
        builder.addFile("Helpers/crashpad_handler", code(signedAs: "crashpad_handler"), mode: 0o100755)
        builder.nested.append(framework("hermes", "dev.hermesengine.iphoneos"))
        return Shape(name: "swift-and-loose-code", builder: builder, profiledBundleIDs: ["com.example.swifty"])
    }

    /// A sticker pack app as Xcode builds it: no code of its own (the app's and the extension's
    /// executables are copies of Apple's Messages stubs, signed by the build), names with spaces,
    /// the stickers in the extension's asset catalog, and Apple's stub beside the app as an App
    /// Store export carries it.
    public static func stickerPack() -> Shape {
        var builder = iconlessApp("Cat Stickers", "com.example.catstickers")
        builder.info["LSApplicationLaunchProhibited"] = true
        builder.executable = code(signedAs: "com.example.catstickers")
        var pack = IPABuilder.Nested(
            path: "PlugIns/Cat Stickers StickerPackExtension.appex",
            info: bundleInfo("Cat Stickers StickerPackExtension", "com.example.catstickers.StickerPackExtension", packageType: "XPC!", extra: [
                "NSExtension": ["NSExtensionPointIdentifier": "com.apple.message-payload-provider",
                                "NSExtensionPrincipalClass": "StickerBrowserViewController"],
            ]),
            executable: code(signedAs: "com.example.catstickers.StickerPackExtension"))
        pack.files["Assets.car"] = .init(data: Array(repeating: 0x43, count: 256))
        builder.nested.append(pack)
        builder.rootFiles["MessagesApplicationSupport/MessagesApplicationSupportStub"] = .init(
            data: code(signedAs: "com.apple.MessagesApplicationSupportStub"), mode: 0o100755)
        return Shape(
            name: "sticker-pack", builder: builder,
            profiledBundleIDs: ["com.example.catstickers", "com.example.catstickers.StickerPackExtension"])
    }

    /// An IPA zipped with Finder's Compress: `.DS_Store` files in the app, and AppleDouble `._`
    /// files for every file under `__MACOSX/` beside `Payload/`.
    public static func finderZipped() -> Shape {
        var builder = iconlessApp("Zipped", "com.example.zipped")
        builder.addPrimaryIcon()
        builder.nested.append(framework("Kit", "com.example.kit"))
        builder.addFile("en.lproj/Localizable.strings", Array("\"a\" = \"b\";".utf8))
        let finderInfo: [UInt8] = [0x00, 0x05, 0x16, 0x07, 0x00, 0x02, 0x00, 0x00] + Array(repeating: 0, count: 74)
        for folder in ["", "en.lproj/", "Frameworks/Kit.framework/"] {
            builder.addFile(folder + ".DS_Store", [0, 0, 0, 1] + Array("Bud1".utf8) + Array(repeating: 0, count: 64))
        }
        for file in ["Info.plist", "Zipped", "en.lproj/Localizable.strings", "Frameworks/Kit.framework/Kit"] {
            let parts = file.split(separator: "/")
            let folder = parts.dropLast().map { $0 + "/" }.joined()
            builder.rootFiles["__MACOSX/Payload/Zipped.app/\(folder)._\(parts.last ?? "")"] = .init(data: finderInfo)
        }
        return Shape(name: "finder-zipped", builder: builder, profiledBundleIDs: ["com.example.zipped"])
    }

    /// A Flutter app: `App.framework` with its `flutter_assets`, `Flutter.framework`.
    public static func flutter() -> Shape {
        var builder = iconlessApp("Runner", "com.example.flutterapp")
        builder.addPrimaryIcon()
        var app = framework("App", "io.flutter.flutter.app")
        app.files["flutter_assets/AssetManifest.json"] = .init(data: Array("{}".utf8))
        app.files["flutter_assets/fonts/MaterialIcons-Regular.otf"] = .init(data: Array(repeating: 7, count: 512))
        builder.nested.append(app)
        builder.nested.append(framework("Flutter", "io.flutter.flutter"))
        return Shape(name: "flutter", builder: builder, profiledBundleIDs: ["com.example.flutterapp"])
    }

    /// An app as Xcode 5 or 6 built it: fat armv7 + arm64 (or Xcode 4's armv6 + armv7) code for
    /// an old iOS, `LC_VERSION_MIN_IPHONEOS`, the top-level `CodeResources` symlink to
    /// `_CodeSignature/CodeResources` and a `ResourceRules.plist`.
    public static func oldLayout(xcode4: Bool) -> Shape {
        let name = xcode4 ? "Legacy4" : "Legacy6"
        var builder = IPABuilder(appName: name, bundleIdentifier: "com.example.legacy")
        builder.info = IPABuilder.infoPlist(name: name, bundleIdentifier: "com.example.legacy", minimumOS: xcode4 ? "4.3" : "7.0")
        builder.info["CFBundleIconFiles"] = ["Icon.png", "Icon@2x.png"]
        builder.addFile("Icon.png", IPABuilder.iconPNG(size: 57, cgbi: true))
        builder.addFile("Icon@2x.png", IPABuilder.iconPNG(size: 114, cgbi: true))
        builder.profile = nil
        let architectures: [(Int32, Int32)] = xcode4 ? [(12, 6), (12, 9)] : [(12, 9), (0x0100_000C, 0)]
        builder.executable = fatCode(architectures: architectures, minimumOS: xcode4 ? "4.3" : "7.0")
        builder.addSymlink("CodeResources", to: "_CodeSignature/CodeResources")
        builder.addFile("ResourceRules.plist", Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>rules</key><dict><key>.*</key><true/></dict></dict></plist>
            """.utf8))
        return Shape(name: xcode4 ? "xcode4-layout" : "xcode6-layout", builder: builder, profiledBundleIDs: ["com.example.legacy"])
    }

    /// A Swift 1.2 app (Xcode 6.3): the Swift runtime in `Frameworks/` and in `SwiftSupport/`,
    /// fat armv7 + arm64 code.
    public static func swift12() -> Shape {
        var builder = iconlessApp("SwiftOne", "com.example.swiftone")
        builder.executable = fatCode(architectures: [(12, 9), (0x0100_000C, 0)], minimumOS: "8.0")
        for library in ["libswiftCore", "libswiftFoundation", "libswiftUIKit"] {
            let dylib = fatCode(fileType: 6, architectures: [(12, 9), (0x0100_000C, 0)], minimumOS: "7.0")
            builder.addFile("Frameworks/\(library).dylib", dylib, mode: 0o100755)
            builder.rootFiles["SwiftSupport/\(library).dylib"] = .init(data: dylib, mode: 0o100755)
        }
        return Shape(name: "swift-1.2", builder: builder, profiledBundleIDs: ["com.example.swiftone"])
    }

    /// A release build of Xcode 15 or later with mergeable libraries: `Feature.framework`,
    /// `Orders.framework` and `Search.framework` were merged into the app's executable, which
    /// links only `Kit.framework` (and `Orders` weakly, as `-weak_framework` leaves it; `Search`
    /// weakly with delayed initialisation, a `dylib_use_command` of Xcode 16's linker), so Xcode
    /// embeds them cut down to
    /// their resources: the Info.plist still naming the binary, an asset catalog, and the
    /// signature codesign writes for a bundle without code (`_CodeSignature/CodeDirectory`, the
    /// SHA-256 one as `CodeRequirements-1`, `CodeRequirements`, `CodeSignature`, `CodeResources`).
    public static func mergedFrameworks() -> Shape {
        var builder = iconlessApp("Merged", "com.example.merged")
        builder.executable = code(
            signedAs: "com.example.merged",
            links: [
                .init("@rpath/Kit.framework/Kit"), .init("@rpath/Orders.framework/Orders", kind: .weak),
                .init("@rpath/Search.framework/Search", useFlags: 0x09),
            ])
        builder.nested.append(framework("Kit", "com.example.kit"))
        addCutDownFrameworks(["Feature", "Orders", "Search"], to: &builder)
        return Shape(name: "merged-frameworks", builder: builder, profiledBundleIDs: ["com.example.merged"])
    }

    /// The debug build of the same project: Xcode links the mergeable libraries dynamically and
    /// puts their binaries in `ReexportedBinaries/`, where the app's `@rpath` finds them, while
    /// `Frameworks/` holds the cut-down frameworks.
    public static func mergeableLibrariesDebug() -> Shape {
        var builder = iconlessApp("Merged", "com.example.merged")
        builder.executable = code(signedAs: "com.example.merged", links: [.init("@rpath/Feature.framework/Feature")])
        builder.addFile(
            "ReexportedBinaries/Feature.framework/Feature",
            code(fileType: 6, installName: "@rpath/Feature.framework/Feature", signedAs: "com.example.feature"), mode: 0o100755)
        addCutDownFrameworks(["Feature"], to: &builder)
        return Shape(name: "mergeable-libraries-debug", builder: builder, profiledBundleIDs: ["com.example.merged"])
    }

    /// Frameworks as Xcode embeds a merged mergeable library: resources and the old signature, no binary.
    private static func addCutDownFrameworks(_ names: [String], to builder: inout IPABuilder) {
        for name in names {
            var merged = IPABuilder.Nested(
                path: "Frameworks/\(name).framework", info: bundleInfo(name, "com.example.\(name.lowercased())", packageType: "FMWK"),
                executable: nil)
            merged.files["Assets.car"] = .init(data: Array(repeating: 0x41, count: 300))
            merged.files["Base.lproj/Main.storyboardc/Info.plist"] = .init(data: Array("<plist version=\"1.0\"><dict/></plist>".utf8))
            for (file, magic) in [("CodeDirectory", 0xFADE_0C02), ("CodeRequirements-1", 0xFADE_0C02), ("CodeRequirements", 0xFADE_0C01)] as [(String, UInt32)] {
                merged.files["_CodeSignature/" + file] = .init(data: withUnsafeBytes(of: magic.bigEndian, Array.init) + Array(repeating: 0, count: 60))
            }
            merged.files["_CodeSignature/CodeSignature"] = .init(data: [0x30, 0x80] + Array(repeating: 0, count: 30))
            builder.nested.append(merged)
        }
    }

    /// Every shape that signs.
    public static func signable() -> [Shape] {
        [xcuitestRunner(), preferenceBundles(), emptyFrameworkFolder(), clipExtensionKitXPC(), watchApp(),
         swiftAndLooseCode(), flutter(), oldLayout(xcode4: true), oldLayout(xcode4: false), swift12(), mergedFrameworks(),
         mergeableLibrariesDebug(), stickerPack(), finderZipped()]
    }

    /// A Simulator build: Intel code (or arm64 built for the Simulator platform, 7) and
    /// `DTPlatformName` iphonesimulator.
    public static func simulatorBuild(appleSilicon: Bool) -> Shape {
        var builder = iconlessApp("SimApp", "com.example.simapp")
        builder.info["DTPlatformName"] = "iphonesimulator"
        builder.info["CFBundleSupportedPlatforms"] = ["iPhoneSimulator"]
        builder.executable = appleSilicon ? code(platform: 7, signedAs: nil) : code(cpuType: 0x0100_0007, signedAs: nil)
        return Shape(name: appleSilicon ? "simulator-arm64" : "simulator-x86_64", builder: builder, profiledBundleIDs: ["com.example.simapp"])
    }

    /// An App Store download: FairPlay-encrypted code, `iTunesMetadata.plist` and `SC_Info/`.
    public static func appStoreDownload() -> Shape {
        var builder = iconlessApp("Store", "com.example.store")
        builder.addPrimaryIcon()
        var machO = MachOBuilder()
        machO.version = .iOS("15.0", sdk: "17.2")
        machO.headerPadding = 1024
        machO.encryption = .init(cryptID: 1)
        machO.codeSignature = MachOBuilder.CodeSignature(identifier: "com.example.store", teamIdentifier: oldTeam)
        builder.executable = machO.build()
        builder.addFile("SC_Info/Store.sinf", Array(repeating: 0x5A, count: 64))
        builder.rootFiles["iTunesMetadata.plist"] = .init(data: Array("<plist version=\"1.0\"><dict/></plist>".utf8))
        return Shape(name: "app-store-download", builder: builder, profiledBundleIDs: ["com.example.store"])
    }
}
