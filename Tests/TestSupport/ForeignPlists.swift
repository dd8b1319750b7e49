import Foundation

/// Property lists as Apple's tools write them, made at test time by Python's `plistlib`, a writer
/// that shares no code with ipawrap's `PropertyList` (which the property-list tests check against
/// them): an Xcode-style binary Info.plist (no icon keys, a nested dictionary), a compiled
/// storyboard's binary Info.plist, and a provisioning profile's XML with Xcode's key order, which is
/// not sorted. Real ones, from isign's Xcode 7.2 build, are in `../shared/fixtures`.
public enum ForeignPlists {
    /// The Info.plist's values (27 keys, as isign's Xcode 7.2 build has).
    static let infoScript = """
        import plistlib, sys
        info = {
            "BuildMachineOSBuild": "23C71", "CFBundleDevelopmentRegion": "en", "CFBundleExecutable": "XcodeShaped",
            "CFBundleIdentifier": "com.example.sample", "CFBundleInfoDictionaryVersion": "6.0",
            "CFBundleName": "XcodeShaped", "CFBundlePackageType": "APPL", "CFBundleShortVersionString": "1.0",
            "CFBundleSignature": "????", "CFBundleSupportedPlatforms": ["iPhoneOS"], "CFBundleVersion": "1",
            "DTCompiler": "com.apple.compilers.llvm.clang.1_0", "DTPlatformBuild": "21C52", "DTPlatformName": "iphoneos",
            "DTPlatformVersion": "17.2", "DTSDKBuild": "21C52", "DTSDKName": "iphoneos17.2", "DTXcode": "1520",
            "DTXcodeBuild": "15C500b", "LSRequiresIPhoneOS": True, "MinimumOSVersion": "12.0", "UIDeviceFamily": [1],
            "UILaunchStoryboardName": "LaunchScreen", "UIMainStoryboardFile": "Main",
            "UIRequiredDeviceCapabilities": ["armv7"],
            "UIStatusBarTintParameters": {"UINavigationBar": {"Style": "UIBarStyleDefault", "Translucent": False}},
            "UISupportedInterfaceOrientations": [
                "UIInterfaceOrientationPortrait", "UIInterfaceOrientationLandscapeLeft", "UIInterfaceOrientationLandscapeRight"],
        }
        open(sys.argv[1], "wb").write(plistlib.dumps(info, fmt=plistlib.FMT_BINARY))
        """

    static let storyboardScript = """
        import plistlib, sys
        open(sys.argv[1], "wb").write(plistlib.dumps({
            "UIStoryboardDesignatedEntryPointIdentifier": "UITabBarController-49e-Tb-3d3",
            "UIStoryboardVersion": 1,
            "UIViewControllerIdentifiersToNibNames": {"UITabBarController-49e-Tb-3d3": "UITabBarController-49e-Tb-3d3"},
        }, fmt=plistlib.FMT_BINARY))
        """

    /// A profile's plist in the order Xcode writes its keys; `argv[2]` is a DER certificate.
    static let profileScript = """
        import datetime, plistlib, sys
        certificate = open(sys.argv[2], "rb").read()
        profile = {
            "AppIDName": "XC Wildcard",
            "ApplicationIdentifierPrefix": ["ABCDE12345"],
            "CreationDate": datetime.datetime(2026, 1, 1, 0, 0, 0),
            "Platform": ["iOS"],
            "DeveloperCertificates": [certificate],
            "Entitlements": {
                "keychain-access-groups": ["ABCDE12345.*"], "get-task-allow": True,
                "application-identifier": "ABCDE12345.*", "com.apple.developer.team-identifier": "ABCDE12345",
            },
            "ExpirationDate": datetime.datetime(2036, 1, 1, 0, 0, 0),
            "Name": "Wildcard Development",
            "ProvisionedDevices": ["00008110-0000000000001000", "00008110-0000000000002EEF"],
            "TeamIdentifier": ["ABCDE12345"],
            "TeamName": "Example Corp",
            "TimeToLive": 3652,
            "UUID": "4DC3B362-4C49-D175-CF09-0F1FDFEC7C52",
            "Version": 1,
        }
        open(sys.argv[1], "wb").write(plistlib.dumps(profile, fmt=plistlib.FMT_XML, sort_keys=False))
        """

    /// An Xcode-style binary Info.plist.
    public static func infoPlist() throws -> [UInt8] { try write(infoScript) }

    /// A compiled storyboard's binary Info.plist.
    public static func storyboardInfoPlist() throws -> [UInt8] { try write(storyboardScript) }

    /// A provisioning profile's XML plist (its keys not sorted), listing `profiles/developer.cer`.
    public static func profilePlist() throws -> [UInt8] {
        try write(profileScript, arguments: [Fixtures.path("profiles/developer.cer")])
    }

    /// Runs `script`, which writes its plist to `argv[1]`.
    static func write(_ script: String, arguments: [String] = []) throws -> [UInt8] {
        let scratch = try ScratchDirectory("plistlib")
        let output = scratch.path("out.plist")
        let result = try Command.run("python3", ["-c", script, output] + arguments)
        guard result.status == 0 else { throw CodeSigningParts.Failure(description: "plistlib failed: \(result.stderr)") }
        return try Fixtures.bytesAt(output)
    }
}
