// Generates Samples/Sample.ipa, the sample app the README's first command runs on.
//   Scripts/make-sample            (writes Samples/Sample.ipa)
// The app is small but realistic: an XML Info.plist with CgBI icons named by CFBundleIcons and an
// asset catalog, an arm64 executable linking UIKit and a framework, a framework with a binary
// Info.plist, a share extension, localized resources, a symlink and SwiftSupport outside the app.
// Everything is deterministic: running it again writes the same bytes.
import Foundation
import PropertyList
import TestSupport

let output = CommandLine.arguments.dropFirst().first ?? "Samples/Sample.ipa"

var app = IPABuilder(appName: "Sample", bundleIdentifier: "com.example.sample")
app.info["CFBundleDisplayName"] = "Sample"
app.info["UILaunchStoryboardName"] = "LaunchScreen"
app.info["UIRequiredDeviceCapabilities"] = ["arm64"]
app.info["NSAppTransportSecurity"] = ["NSExceptionDomains": ["intranet.example.com": ["NSIncludesSubdomains": true]]]
app.addPrimaryIcon("AppIcon60x60")
app.info["CFBundleIcons~ipad"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": ["AppIcon60x60", "AppIcon76x76"], "CFBundleIconName": "AppIcon"]]
app.addFile("AppIcon76x76@2x~ipad.png", IPABuilder.iconPNG(size: 152, seed: 60))
app.addFile("Assets.car", AssetCatalogBuilder.appIconCatalog(named: "AppIcon"))
app.executable = IPABuilder.executable { builder in
    builder.dylibs = [
        .init("/System/Library/Frameworks/Foundation.framework/Foundation", currentVersion: "1953.255.0"),
        .init("/System/Library/Frameworks/UIKit.framework/UIKit", currentVersion: "6109.1.108"),
        .init("/usr/lib/libSystem.B.dylib", currentVersion: "1319.0.0"),
        .init("@rpath/Kit.framework/Kit", currentVersion: "2.0.0"),
    ]
    builder.rpaths = ["@executable_path/Frameworks"]
    builder.symbols = [.defined("_main"), .objcClass("AppDelegate"), .objcClass("UIViewController", importedFrom: 2)]
    // Room after the load commands, as ld64 leaves it, so `ipawrap sign` can add LC_CODE_SIGNATURE.
    builder.headerPadding = 1024
}
app.addFile("Base.lproj/LaunchScreen.storyboardc/Info.plist",
            try PropertyList(root: ["UIStoryboardDesignatedEntryPointIdentifier": "UIViewController-01J-lp-oVM", "UIStoryboardVersion": 1], format: .binary).serialized())
app.addFile("en.lproj/Localizable.strings", Array("\"greeting\" = \"Hello from the sample app\";\n".utf8))
app.addFile("Settings.bundle/Root.plist", try PropertyList(root: ["PreferenceSpecifiers": [], "StringsTable": "Root"], format: .xml).serialized())
// A symlink, as misbuilt SDKs and older tools leave them; a faithful repack must keep it a link.
app.addSymlink("Default@2x.png", to: "AppIcon60x60@2x.png")
app.addFramework("Kit", bundleIdentifier: "com.example.kit", version: "2.0.0")
app.addExtension("Share", bundleIdentifier: "com.example.sample.share")
// The framework's and the extension's executables get the same header room as the app's.
for index in app.nested.indices {
    app.nested[index].executable = IPABuilder.executable(fileType: index == 0 ? 6 : 8) { $0.headerPadding = 1024 }
}
app.rootFiles["SwiftSupport/iphoneos/libswiftCore.dylib"] = .init(data: IPABuilder.executable(fileType: 6), mode: 0o100755)

let bytes = try app.bytes()
try Data(bytes).write(to: URL(fileURLWithPath: output))
print("wrote \(output): \(bytes.count) bytes")
