@testable import Checks
import Foundation
import PropertyList
import Reporting
import Testing
import TestSupport
import ToolData

/// `sdks[]`, the MDX version findings, static SDKs, two management SDKs and Intune
/// multi-identity, on IPAs with generated frameworks and executables.
@Suite struct BinarySDKTests {
    /// An app embedding `frameworks` (name, version) and linking each.
    static func app(frameworks: [(String, String?)], _ configure: (inout MachOBuilder) -> Void = { _ in }) -> IPABuilder {
        var builder = BinaryFixture.app { main in
            for (name, _) in frameworks { main.dylibs.append(.init("@rpath/\(name).framework/\(name)")) }
            configure(&main)
        }
        for (name, version) in frameworks { builder.nested.append(BinaryFixture.framework(name, version: version)) }
        return builder
    }

    @Test func listsEverySDKFrameworkWithItsVersion() throws {
        var builder = Self.app(frameworks: [("CTXMAMCore", "20.10.5"), ("CTXMAMNetwork", "20.10.5"), ("Alamofire", "5.8.0")])
        builder.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        builder.nested.append(BinaryFixture.framework("MDX", version: "20.10.5", under: "PlugIns/Share.appex/"))
        let report = try BinaryFixture.report(builder)
        #expect(report.sdks == [
            Report.SDK(family: "Citrix MDX", framework: "CTXMAMCore", version: "20.10.5",
                       path: "Payload/Sample.app/Frameworks/CTXMAMCore.framework"),
            Report.SDK(family: "Citrix MDX", framework: "CTXMAMNetwork", version: "20.10.5",
                       path: "Payload/Sample.app/Frameworks/CTXMAMNetwork.framework"),
            Report.SDK(family: "Citrix MDX", framework: "MDX", version: "20.10.5",
                       path: "Payload/Sample.app/PlugIns/Share.appex/Frameworks/MDX.framework"),
        ])
        #expect(report.binaryCodes.isEmpty, "\(report.findings)")
    }

    @Test func intuneAndBlackBerryFrameworksAreListed() throws {
        let report = try BinaryFixture.report(Self.app(frameworks: [("IntuneMAMSwift", "19.6.0"), ("IntuneMAMSwiftStub", "19.6.0")]))
        #expect(report.sdks.map(\.framework) == ["IntuneMAMSwift", "IntuneMAMSwiftStub"])
        #expect(Set(report.sdks.map(\.family)) == ["Microsoft Intune"])
        #expect(report.sdks.map(\.version) == ["19.6.0", "19.6.0"])
        // Intune frameworks are not held to the MDX toolkit version.
        #expect(report.binaryCodes.isEmpty)

        let blackBerry = try BinaryFixture.report(Self.app(frameworks: [("BlackBerryDynamics", "12.0.1")]))
        #expect(blackBerry.sdks.map(\.family) == ["BlackBerry Dynamics"])
    }

    // MARK: SDK_VERSION_MISMATCH

    @Test func mdxFrameworkOlderThanTheToolkitIsAMismatch() throws {
        let report = try BinaryFixture.report(Self.app(frameworks: [("CTXMAMCore", "20.9.0")]), toolkit: "20.10.5")
        let finding = try #require(report.findings(.sdkVersionMismatch).first)
        #expect(finding.severity == .error)
        #expect(finding.path == "Payload/Sample.app/Frameworks/CTXMAMCore.framework")
        #expect(finding.message.contains("Citrix MDX SDK 20.9.0"))
        #expect(finding.message.contains("the toolkit version is 20.10.5 (--toolkit-version)"))
        let remedy = try #require(finding.remedy)
        #expect(remedy.contains("MDX Toolkit 20.9.0"))
        #expect(remedy.contains("--toolkit-version 20.9.0"))
        #expect(remedy.contains("ISV app in Premium or General mode") && remedy.contains("pre-wrapped"))
        #expect(report.hasErrors)
    }

    @Test(arguments: ["20.10.5", "20.10.05", "20.10.5.1", "020.10.5"])
    func versionsAreComparedNumericallyOnMajorMinorPatch(_ version: String) throws {
        let report = try BinaryFixture.report(Self.app(frameworks: [("CTXMAMCore", version)]), toolkit: "20.10.5")
        #expect(report.findings(.sdkVersionMismatch).isEmpty, "\(version)")
    }

    @Test(arguments: ["20.10.6", "20.11.5", "21.10.5", "20.10", "19.12.5"])
    func anyDifferenceInMajorMinorOrPatchIsAMismatch(_ version: String) throws {
        let report = try BinaryFixture.report(Self.app(frameworks: [("CTXMAMCore", version)]), toolkit: "20.10.5")
        #expect(report.findings(.sdkVersionMismatch).count == 1, "\(version)")
    }

    @Test func toolkitVersionOptionOverridesTheTemplates() throws {
        let builder = Self.app(frameworks: [("CTXMAMCore", "20.9.0")])
        #expect(try BinaryFixture.report(builder, toolkit: "20.9.0").findings(.sdkVersionMismatch).isEmpty)
        #expect(try BinaryFixture.report(builder, toolkit: "20.9").findings(.sdkVersionMismatch).isEmpty)
    }

    @Test func withoutTheOptionTheTemplatesToolkitVersionApplies() throws {
        // The oracle: toolkit.json read with Foundation's JSON parser.
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("Templates/toolkit.json")))
        let shipped = try #require((json as? [String: Any])?["ToolkitVersion"] as? String)
        #expect(shipped == "20.10.5")
        let matching = try BinaryFixture.report(Self.app(frameworks: [("CTXMAMCore", shipped)]), toolkit: nil)
        #expect(matching.findings(.sdkVersionMismatch).isEmpty)
        let older = try BinaryFixture.report(Self.app(frameworks: [("CTXMAMCore", "19.6.0")]), toolkit: nil)
        let finding = try #require(older.findings(.sdkVersionMismatch).first)
        #expect(finding.message.contains("the toolkit version is \(shipped) (Templates/toolkit.json)"))
    }

    @Test func invalidToolkitVersionIsAUsageError() throws {
        #expect {
            _ = try BinaryFixture.report(BinaryFixture.app(), toolkit: "twenty")
        } throws: { error in
            let coded = error as? ToolkitVersionError
            return coded?.code == "TOOLKIT_VERSION_INVALID" && coded?.category == .usage
                && coded?.description.contains("'twenty'") == true
        }
    }

    // MARK: SDK_VERSION_INCONSISTENT and SDK_VERSION_UNKNOWN

    @Test func mdxFrameworksThatDisagreeAreInconsistent() throws {
        let report = try BinaryFixture.report(
            Self.app(frameworks: [("CTXMAMCore", "20.10.5"), ("CTXMAMNetwork", "20.9.0"), ("CTXMAMLocalAuth", "20.10.5")]))
        let finding = try #require(report.findings(.sdkVersionInconsistent).first)
        #expect(report.findings(.sdkVersionInconsistent).count == 1)
        #expect(finding.severity == .error)
        #expect(finding.path == "Payload/Sample.app")
        #expect(finding.message.contains("CTXMAMCore 20.10.5"))
        #expect(finding.message.contains("CTXMAMNetwork 20.9.0"))
        // The one that differs from the toolkit is also a mismatch.
        #expect(report.findings(.sdkVersionMismatch).map(\.path) == ["Payload/Sample.app/Frameworks/CTXMAMNetwork.framework"])
    }

    @Test func mdxFrameworksThatAgreeNumericallyAreConsistent() throws {
        let report = try BinaryFixture.report(
            Self.app(frameworks: [("CTXMAMCore", "20.10.5"), ("CTXMAMNetwork", "20.10.05")]), toolkit: "21.1.0")
        #expect(report.findings(.sdkVersionInconsistent).isEmpty)
        #expect(report.findings(.sdkVersionMismatch).count == 2)
    }

    @Test func intuneFrameworksWithDifferentVersionsAreNotAnMDXConcern() throws {
        let report = try BinaryFixture.report(Self.app(frameworks: [("IntuneMAMSwift", "19.6.0"), ("IntuneMAMSwiftStub", "19.5.0")]))
        #expect(report.binaryCodes.isEmpty)
    }

    @Test(arguments: [String?.none, "latest"])
    func mdxFrameworkWithoutAReadableVersionIsReported(_ version: String?) throws {
        let report = try BinaryFixture.report(Self.app(frameworks: [("CTXMAMCore", version)]))
        let finding = try #require(report.findings(.sdkVersionUnknown).first)
        #expect(finding.severity == .warning)
        #expect(finding.path == "Payload/Sample.app/Frameworks/CTXMAMCore.framework")
        #expect(finding.message.contains(version == nil ? "no CFBundleShortVersionString" : "'latest' is not a version"))
        #expect(report.findings(.sdkVersionMismatch).isEmpty)
        #expect(report.sdks.first?.version == version)
    }

    // MARK: SDK_STATIC_UNVERSIONED

    @Test func mdxClassesDefinedInTheAppAreAStaticSDK() throws {
        let report = try BinaryFixture.report(BinaryFixture.app {
            $0.symbols = [.objcClass("MdxManager"), .objcClass("XenMobileSharedKeychainVault"), .objcClass("AppDelegate")]
        })
        let finding = try #require(report.findings(.sdkStaticUnversioned).first)
        #expect(finding.severity == .warning)
        #expect(finding.path == "Payload/Sample.app/Sample")
        #expect(finding.message.contains("MdxManager, XenMobileSharedKeychainVault"))
        #expect(finding.message.contains("20.10.5"))
        #expect(report.sdks.isEmpty)
    }

    @Test func mdxClassNamesInStrippedBinariesAreFoundInObjCClassNames() throws {
        // A stripped app keeps no class symbols; __objc_classname still names the classes.
        var builder = BinaryFixture.app()
        builder.executable = BinaryFixture.executable(stringsIn: "__objc_classname", ["AppDelegate", "MdxManager"])
        let report = try BinaryFixture.report(builder)
        #expect(report.findings(.sdkStaticUnversioned).count == 1)
        // Not a classname section: the same strings in __cstring are not class definitions.
        let plain = try BinaryFixture.report(BinaryFixture.app { $0.cStrings = ["AppDelegate", "MdxManager"] })
        #expect(plain.findings(.sdkStaticUnversioned).isEmpty)
    }

    @Test func mdxClassesImportedFromTheFrameworkAreNotStatic() throws {
        let builder = Self.app(frameworks: [("MDX", "20.10.5")]) { main in
            main.symbols = [.objcClass("MdxManager", importedFrom: 2)]
        }
        var withOwnClasses = builder
        withOwnClasses.nested[0] = BinaryFixture.framework("MDX", version: "20.10.5") {
            $0.symbols = [.objcClass("MdxManager"), .objcClass("XenMobileSharedKeychainVault")]
        }
        for variant in [builder, withOwnClasses] {
            let report = try BinaryFixture.report(variant)
            #expect(report.findings(.sdkStaticUnversioned).isEmpty, "\(report.findings)")
            #expect(report.binaryCodes.isEmpty)
        }
    }

    @Test func mdxLinkedIntoAnotherFrameworkIsStatic() throws {
        var builder = BinaryFixture.app()
        builder.nested.append(BinaryFixture.framework("VendorKit", version: "3.0") { $0.symbols = [.objcClass("MdxManager")] })
        let report = try BinaryFixture.report(builder)
        #expect(report.findings(.sdkStaticUnversioned).map(\.path) == ["Payload/Sample.app/Frameworks/VendorKit.framework/VendorKit"])
    }

    // MARK: MULTIPLE_MANAGEMENT_SDKS

    @Test func mdxAndIntuneTogetherAreAWarning() throws {
        var builder = Self.app(frameworks: [("CTXMAMCore", "20.10.5")])
        builder.info["IntuneMAMSettings"] = ["ADALClientId": "00000000-1111-2222-3333-444444444444"]
        let report = try BinaryFixture.report(builder)
        let finding = try #require(report.findings(.multipleManagementSDKs).first)
        #expect(finding.severity == .warning)
        #expect(finding.path == "Payload/Sample.app")
        #expect(finding.message.contains("Citrix MDX (Payload/Sample.app/Frameworks/CTXMAMCore.framework 20.10.5)"))
        #expect(finding.message.contains("Microsoft Intune (Payload/Sample.app/Info.plist has IntuneMAMSettings)"))
    }

    @Test func staticIntuneAndStaticMDXAreTwoManagementSDKs() throws {
        let report = try BinaryFixture.report(BinaryFixture.app {
            $0.symbols = [.objcClass("MdxManager"), .objcClass("IntuneMAMEnrollmentManager")]
        })
        #expect(report.findings(.multipleManagementSDKs).count == 1)
    }

    @Test func intuneClassesImportedByTheAppCountAsIntune() throws {
        // No Intune framework bundle or Info.plist key: the imported classes are the evidence.
        let builder = Self.app(frameworks: [("MDX", "20.10.5")]) { main in
            main.dylibs.append(.init("@rpath/IntuneMAMSwift.framework/IntuneMAMSwift"))
            main.symbols = [.objcClass("IntuneMAMPolicyManager", importedFrom: 3)]
        }
        let report = try BinaryFixture.report(builder)
        let finding = try #require(report.findings(.multipleManagementSDKs).first)
        #expect(finding.message.contains("Payload/Sample.app/Sample uses IntuneMAMPolicyManager"))
    }

    @Test func oneManagementSDKIsNoWarning() throws {
        var builder = Self.app(frameworks: [("IntuneMAMSwift", "19.6.0"), ("IntuneMAMSwiftStub", "19.6.0")])
        builder.info["IntuneMAMSettings"] = ["ADALClientId": "x"]
        #expect(try BinaryFixture.report(builder).findings(.multipleManagementSDKs).isEmpty)
        #expect(try BinaryFixture.report(Self.app(frameworks: [("CTXMAMCore", "20.10.5")])).findings(.multipleManagementSDKs).isEmpty)
    }

    // MARK: INTUNE_MULTI_IDENTITY

    @Test(arguments: [PropertyListValue.bool(true), .string("YES")])
    func multiIdentityIsReported(_ value: PropertyListValue) throws {
        var builder = BinaryFixture.app()
        builder.info["IntuneMAMSettings"] = ["MultiIdentity": value, "ADALClientId": "x"]
        let report = try BinaryFixture.report(builder)
        let finding = try #require(report.findings(.intuneMultiIdentity).first)
        #expect(finding.severity == .info)
        #expect(finding.path == "Payload/Sample.app/Info.plist")
        #expect(finding.message.contains("MultiIdentity"))
    }

    @Test func singleIdentityIsNotReported() throws {
        var builder = BinaryFixture.app()
        builder.info["IntuneMAMSettings"] = ["MultiIdentity": false]
        #expect(try BinaryFixture.report(builder).findings(.intuneMultiIdentity).isEmpty)
        builder.info["IntuneMAMSettings"] = nil
        builder.info["MultiIdentity"] = true  // only inside IntuneMAMSettings counts
        #expect(try BinaryFixture.report(builder).findings(.intuneMultiIdentity).isEmpty)
    }
}
