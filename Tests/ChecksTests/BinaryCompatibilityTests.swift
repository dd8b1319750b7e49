@testable import Checks
import Foundation
import PropertyList
import Reporting
import Testing
import TestSupport

/// The MDX compatibility diagnostics, each with a positive and a negative case built from
/// generated Mach-O files.
@Suite struct BinaryCompatibilityTests {
    static let systemSQLite = MachOBuilder.Dylib("/usr/lib/libsqlite3.dylib", currentVersion: "321.3.0")

    // MARK: PRIVATE_SQLITE

    @Test func sqliteCompiledIntoTheAppIsPrivate() throws {
        let report = try BinaryFixture.report(BinaryFixture.app {
            $0.symbols = [.defined("_sqlite3_open_v2"), .defined("_sqlite3_open"), .defined("_main")]
        })
        let finding = try #require(report.findings(.privateSQLite).first)
        #expect(finding.severity == .warning)
        #expect(finding.path == "Payload/Sample.app/Sample")
        #expect(finding.message.contains("defines _sqlite3_open, _sqlite3_open_v2"))
        #expect(finding.remedy?.contains("/usr/lib/libsqlite3.dylib") == true)
        #expect(report.findings(.sqlcipherPresent).isEmpty)
    }

    @Test func appleSQLiteIsNotPrivate() throws {
        let report = try BinaryFixture.report(BinaryFixture.app {
            $0.dylibs.append(Self.systemSQLite)
            $0.symbols = [.imported("_sqlite3_open_v2", ordinal: 2), .imported("_sqlite3_exec", ordinal: 2)]
        })
        #expect(report.binaryCodes.isEmpty, "\(report.findings)")
    }

    @Test func embeddedLibsqliteDylibIsOneFindingWithBothEvidences() throws {
        var builder = BinaryFixture.app { $0.dylibs.append(.init("@rpath/libsqlite3.0.dylib")) }
        builder.addFile("Frameworks/libsqlite3.0.dylib", IPABuilder.executable(fileType: 6), mode: 0o100755)
        let report = try BinaryFixture.report(builder)
        let findings = report.findings(.privateSQLite)
        #expect(findings.map(\.path) == ["Payload/Sample.app/Frameworks/libsqlite3.0.dylib"])
        #expect(findings.first?.message.contains("Payload/Sample.app/Sample links @rpath/libsqlite3.0.dylib") == true)
        #expect(findings.first?.message.contains("the app embeds libsqlite3.0.dylib") == true)
    }

    @Test func sqliteFrameworkThatWrapsAppleSQLiteIsNotPrivate() throws {
        // SQLite.swift ships a framework called SQLite that links /usr/lib/libsqlite3.dylib.
        var builder = BinaryFixture.app { $0.dylibs.append(.init("@rpath/SQLite.framework/SQLite")) }
        builder.nested.append(BinaryFixture.framework("SQLite", version: "0.15.3") {
            $0.dylibs.append(Self.systemSQLite)
            $0.symbols = [.imported("_sqlite3_open_v2", ordinal: 2)]
        })
        #expect(try BinaryFixture.report(builder).findings(.privateSQLite).isEmpty)
    }

    @Test func sqliteFrameworkWithItsOwnSQLiteIsPrivate() throws {
        var builder = BinaryFixture.app { $0.dylibs.append(.init("@rpath/sqlite3.framework/sqlite3")) }
        builder.nested.append(BinaryFixture.framework("sqlite3", version: "3.45.0") { $0.symbols = [.defined("_sqlite3_open")] })
        let report = try BinaryFixture.report(builder)
        #expect(report.findings(.privateSQLite).map(\.path) == ["Payload/Sample.app/Frameworks/sqlite3.framework"])
    }

    // MARK: SQLCIPHER_PRESENT

    @Test func sqlcipherFrameworkIsReported() throws {
        var builder = BinaryFixture.app {
            $0.dylibs.append(.init("@rpath/SQLCipher.framework/SQLCipher"))
            $0.symbols = [.imported("_sqlite3_key", ordinal: 2)]
        }
        builder.nested.append(BinaryFixture.framework("SQLCipher", version: "4.5.6") {
            $0.symbols = [.defined("_sqlite3_open"), .defined("_sqlite3_key")]
        })
        let report = try BinaryFixture.report(builder)
        let findings = report.findings(.sqlcipherPresent)
        #expect(findings.map(\.path) == ["Payload/Sample.app/Frameworks/SQLCipher.framework"])
        let finding = try #require(findings.first)
        #expect(finding.severity == .warning)
        #expect(finding.message.contains("defines _sqlite3_key"))
        #expect(finding.remedy?.contains("encryption-exclusions policy") == true)
        // SQLCipher is a SQLite build, but one finding says it.
        #expect(report.findings(.privateSQLite).isEmpty)
    }

    @Test func sqlcipherLinkedStaticallyIsReportedOnTheBinary() throws {
        let report = try BinaryFixture.report(BinaryFixture.app {
            $0.symbols = [.defined("_sqlite3_open_v2"), .defined("_sqlite3_key_v2")]
        })
        #expect(report.findings(.sqlcipherPresent).map(\.path) == ["Payload/Sample.app/Sample"])
        #expect(report.findings(.privateSQLite).isEmpty)
    }

    @Test func sqlcipherKeyImportedFromAnotherLibraryIsReported() throws {
        let report = try BinaryFixture.report(BinaryFixture.app {
            $0.dylibs.append(.init("@rpath/Storage.framework/Storage"))
            $0.symbols = [.imported("_sqlite3_key", ordinal: 2)]
        })
        let finding = try #require(report.findings(.sqlcipherPresent).first)
        #expect(finding.message.contains("imports _sqlite3_key from @rpath/Storage.framework/Storage"))
    }

    @Test func plainSQLiteIsNotSQLCipher() throws {
        let report = try BinaryFixture.report(BinaryFixture.app {
            $0.dylibs.append(Self.systemSQLite)
            $0.symbols = [.imported("_sqlite3_open", ordinal: 2)]
        })
        #expect(report.findings(.sqlcipherPresent).isEmpty)
    }

    // MARK: OPENSSL_STATIC

    @Test func definedOpenSSLSymbolsAreStatic() throws {
        let report = try BinaryFixture.report(BinaryFixture.app {
            $0.symbols = [.defined("_SSL_CTX_new"), .defined("_OPENSSL_init_ssl"), .defined("_main")]
        })
        let finding = try #require(report.findings(.opensslStatic).first)
        #expect(finding.severity == .warning)
        #expect(finding.path == "Payload/Sample.app/Sample")
        #expect(finding.message.contains("defines _SSL_CTX_new, _OPENSSL_init_ssl"))
    }

    @Test func strippedBinaryIsFoundByTheVersionBanner() throws {
        let report = try BinaryFixture.report(BinaryFixture.app { $0.cStrings = ["hello", "OpenSSL 1.0.2k  26 Jan 2017"] })
        let finding = try #require(report.findings(.opensslStatic).first)
        #expect(finding.message.contains("'OpenSSL 1.0.2k  26 Jan 2017'"))
    }

    @Test(arguments: ["OpenSSL is required", "OpenSSL version", "Uses OpenSSL 1.1"])
    func textMentioningOpenSSLIsNotABanner(_ text: String) throws {
        let report = try BinaryFixture.report(BinaryFixture.app { $0.cStrings = [text] })
        #expect(report.findings(.opensslStatic).isEmpty)
    }

    @Test func openSSLUsedFromItsOwnFrameworkIsNotStatic() throws {
        var builder = BinaryFixture.app {
            $0.dylibs.append(.init("@rpath/OpenSSL.framework/OpenSSL"))
            $0.symbols = [.imported("_SSL_CTX_new", ordinal: 2)]
        }
        builder.nested.append(BinaryFixture.framework("OpenSSL", version: "3.1.5") {
            $0.symbols = [.defined("_SSL_CTX_new"), .defined("_OPENSSL_init_crypto")]
            $0.cStrings = ["OpenSSL 3.1.5 30 Jan 2024"]
        })
        let report = try BinaryFixture.report(builder)
        #expect(report.binaryCodes.isEmpty, "\(report.findings)")
    }

    @Test func openSSLInsideAThirdPartyFrameworkIsStatic() throws {
        var builder = BinaryFixture.app()
        builder.nested.append(BinaryFixture.framework("VendorNet", version: "2.0") { $0.symbols = [.defined("_SSL_library_init")] })
        let report = try BinaryFixture.report(builder)
        #expect(report.findings(.opensslStatic).map(\.path) == ["Payload/Sample.app/Frameworks/VendorNet.framework"])
    }

    // MARK: UIWEBVIEW_USED

    @Test func importedUIWebViewClassIsReported() throws {
        let report = try BinaryFixture.report(BinaryFixture.app {
            $0.dylibs.append(.uiKit)
            $0.symbols = [.objcClass("UIWebView", importedFrom: 2), .objcClass("UIViewController", importedFrom: 2)]
        })
        let finding = try #require(report.findings(.uiWebViewUsed).first)
        #expect(finding.severity == .warning)
        #expect(finding.path == "Payload/Sample.app/Sample")
        #expect(finding.message.contains("_OBJC_CLASS_$_UIWebView from /System/Library/Frameworks/UIKit.framework/UIKit"))
        #expect(finding.remedy?.contains("WKWebView") == true)
    }

    @Test func wkWebViewIsFine() throws {
        let report = try BinaryFixture.report(BinaryFixture.app {
            $0.dylibs.append(.init("/System/Library/Frameworks/WebKit.framework/WebKit"))
            $0.symbols = [.objcClass("WKWebView", importedFrom: 2)]
            $0.cStrings = ["UIWebView is deprecated"]
        })
        #expect(report.findings(.uiWebViewUsed).isEmpty)
    }

    @Test func uiWebViewInAFrameworkPointsAtTheFramework() throws {
        var builder = BinaryFixture.app()
        builder.nested.append(BinaryFixture.framework("AdsKit", version: "7.1") {
            $0.dylibs.append(.uiKit)
            $0.symbols = [.objcClass("UIWebView", importedFrom: 2)]
        })
        let report = try BinaryFixture.report(builder)
        #expect(report.findings(.uiWebViewUsed).map(\.path) == ["Payload/Sample.app/Frameworks/AdsKit.framework"])
    }

    // MARK: URLSESSION_BACKGROUND

    @Test(arguments: ["__objc_methname", "__cstring"])
    func backgroundSessionSelectorIsReported(_ section: String) throws {
        var builder = BinaryFixture.app()
        builder.executable = BinaryFixture.executable(
            stringsIn: section, ["defaultSessionConfiguration", "backgroundSessionConfigurationWithIdentifier:"])
        let report = try BinaryFixture.report(builder)
        let finding = try #require(report.findings(.urlSessionBackground).first)
        #expect(finding.severity == .warning)
        #expect(finding.message.contains("backgroundSessionConfigurationWithIdentifier:"))
    }

    @Test func deprecatedBackgroundSelectorIsReportedToo() throws {
        let report = try BinaryFixture.report(BinaryFixture.app { $0.cStrings = ["backgroundSessionConfiguration:"] })
        #expect(report.findings(.urlSessionBackground).count == 1)
    }

    @Test func otherSessionConfigurationsAreFine() throws {
        var builder = BinaryFixture.app()
        builder.executable = BinaryFixture.executable(
            stringsIn: "__objc_methname", ["defaultSessionConfiguration", "ephemeralSessionConfiguration",
                                          "backgroundSessionConfigurationWithIdentifier"])  // no colon: not the selector
        #expect(try BinaryFixture.report(builder).findings(.urlSessionBackground).isEmpty)
    }

    // MARK: Cross-platform frameworks

    @Test func flutterIsNotOfficiallySupported() throws {
        var builder = BinaryFixture.app()
        builder.nested.append(BinaryFixture.framework("Flutter", version: "1.0"))
        var appFramework = BinaryFixture.framework("App", version: "1.0")
        appFramework.files["flutter_assets/AssetManifest.json"] = .init(data: Array("{}".utf8))
        builder.nested.append(appFramework)
        let report = try BinaryFixture.report(builder)
        let findings = report.findings(.crossPlatformFramework)
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.severity == .warning)
        #expect(finding.message.contains("built with Flutter"))
        #expect(finding.message.contains("Frameworks/App.framework holds flutter_assets"))
    }

    @Test func reactNativeIsFoundByItsClassesAndBundle() throws {
        var builder = BinaryFixture.app { $0.symbols = [.objcClass("RCTBridge"), .objcClass("RCTRootView")] }
        builder.addFile("main.jsbundle", Array("__d(function(){})".utf8))
        let report = try BinaryFixture.report(builder)
        let finding = try #require(report.findings(.crossPlatformFramework).first)
        #expect(finding.message.contains("built with React Native"))
        #expect(finding.message.contains("defines RCTBridge, RCTRootView"))
        #expect(finding.message.contains("main.jsbundle"))

        var hermes = BinaryFixture.app()
        hermes.nested.append(BinaryFixture.framework("hermes", version: "0.12.0"))
        #expect(try BinaryFixture.report(hermes).findings(.crossPlatformFramework).count == 1)
    }

    @Test func cordovaIsFoundByItsViewController() throws {
        var builder = BinaryFixture.app()
        builder.executable = BinaryFixture.executable(stringsIn: "__objc_classname", ["AppDelegate", "CDVViewController"])
        builder.addFile("www/cordova.js", Array("// cordova".utf8))
        let report = try BinaryFixture.report(builder)
        let finding = try #require(report.findings(.crossPlatformFramework).first)
        #expect(finding.message.contains("built with Cordova"))
        #expect(finding.message.contains("www/cordova.js"))
    }

    @Test func xamarinIsSupported() throws {
        var builder = BinaryFixture.app { $0.symbols = [.defined("_xamarin_main"), .defined("_main")] }
        builder.addFile("Xamarin.iOS.dll", Array("MZ".utf8))
        let report = try BinaryFixture.report(builder)
        let finding = try #require(report.findings(.crossPlatformXamarin).first)
        #expect(finding.severity == .info)
        #expect(finding.message.contains("Xamarin.iOS.dll"))
        #expect(report.findings(.crossPlatformFramework).isEmpty)

        var dotnet = BinaryFixture.app()
        dotnet.addFile("Microsoft.iOS.dll", Array("MZ".utf8))
        #expect(try BinaryFixture.report(dotnet).findings(.crossPlatformXamarin).count == 1)
    }

    @Test func nativeAppIsNoCrossPlatformApp() throws {
        var builder = BinaryFixture.app { $0.symbols = [.objcClass("AppDelegate"), .objcClass("RCTLikeButNot")] }
        builder.nested.append(BinaryFixture.framework("App", version: "1.0"))  // no flutter_assets
        builder.nested.append(BinaryFixture.framework("Reactive", version: "1.0"))
        builder.addFile("www/index.html", Array("<html/>".utf8))
        let report = try BinaryFixture.report(builder)
        #expect(report.binaryCodes.isEmpty, "\(report.findings)")
    }
}
