import AppBundle
import Reporting

/// The compatibility issues the MDX best practices for iOS apps list, found in the binaries and
/// files of the app: a private SQLite, SQLCipher, OpenSSL linked statically, UIWebView,
/// NSURLSession background sessions and cross-platform frameworks.
struct Compatibility {
    let context: CheckContext
    let binaries: [BinaryEvidence]
    let files: AppFiles

    // MARK: Markers

    /// SQLite's own entry points: defined only by a copy of SQLite.
    static let sqliteDefinitions = ["_sqlite3_open", "_sqlite3_open_v2"]
    /// SQLCipher's key functions (the SQLite encryption extension API).
    static let sqlcipherSymbols = ["_sqlite3_key", "_sqlite3_key_v2", "_sqlite3_rekey"]
    /// Functions only libssl/libcrypto (or a fork such as BoringSSL) define.
    static let opensslDefinitions = [
        "_SSL_CTX_new", "_SSL_library_init", "_OPENSSL_init_ssl", "_OPENSSL_init_crypto", "_SSLeay",
        "_OpenSSL_version_num",
    ]
    /// OpenSSL's version banner (`OPENSSL_VERSION_TEXT`), e.g. `OpenSSL 1.0.2k  26 Jan 2017`,
    /// which survives stripping.
    static let opensslBannerPrefix = "OpenSSL "
    static let backgroundSelectors = ["backgroundSessionConfigurationWithIdentifier:", "backgroundSessionConfiguration:"]
    static let webViewClass = "UIWebView"
    static let reactNativeClasses = ["RCTBridge", "RCTRootView", "RCTAppDelegate", "RCTReactNativeFactory"]
    static let cordovaClasses = ["CDVViewController", "CDVAppDelegate"]
    /// The Xamarin.iOS / .NET for iOS runtime's entry points.
    static let xamarinDefinitions = ["_xamarin_main", "_mono_jit_init_version"]

    static var markers: BinaryMarkers {
        var markers = BinaryMarkers()
        markers.classes = Set([webViewClass] + reactNativeClasses + cordovaClasses)
        markers.definedSymbols = Set(sqliteDefinitions + sqlcipherSymbols + opensslDefinitions + xamarinDefinitions)
        markers.importedSymbols = Set(sqlcipherSymbols)
        markers.selectors = Set(backgroundSelectors)
        markers.stringPrefixes = [opensslBannerPrefix]
        return markers
    }

    func apply(to report: inout Report) {
        sqlite(to: &report)
        openssl(to: &report)
        webView(to: &report)
        backgroundSessions(to: &report)
        crossPlatform(to: &report)
    }

    /// Where a finding about a binary points: the framework bundle for a framework's binary,
    /// else the executable.
    private func location(_ binary: BinaryEvidence) -> String {
        binary.bundle.kind == .framework ? binary.bundle.path : binary.path
    }

    /// How evidence from `binary` names it in a finding about `location`.
    private func subject(_ binary: BinaryEvidence, at location: String) -> String {
        if binary.path == location { return "it" }
        if binary.bundle.path == location { return "its binary" }
        return binary.path
    }

    // MARK: SQLite and SQLCipher

    private func sqlite(to report: inout Report) {
        var privateCopies = EvidenceList()
        var sqlcipher = EvidenceList()
        let anyDefinesKey = binaries.contains { !$0.definedSymbols.isDisjoint(with: Self.sqlcipherSymbols) }

        for binary in binaries {
            let keys = Self.sqlcipherSymbols.filter { binary.definedSymbols.contains($0) }
            let opens = Self.sqliteDefinitions.filter { binary.definedSymbols.contains($0) }
            let here = location(binary)
            if !keys.isEmpty {
                sqlcipher.add(here, "\(subject(binary, at: here)) defines \(keys.joined(separator: ", "))")
            } else if !opens.isEmpty {
                privateCopies.add(here, "\(subject(binary, at: here)) defines \(opens.joined(separator: ", "))")
            }
            if !anyDefinesKey {
                for symbol in Self.sqlcipherSymbols {
                    if let library = binary.importedSymbols[symbol] {
                        sqlcipher.add(binary.path, "it imports \(symbol) from \(library)")
                    }
                }
            }
            for library in binary.linkedLibraries where !Self.isSystemLibrary(library) {
                let name = AppFiles.fileName(library).lowercased()
                if name.contains("sqlcipher") {
                    let target = linkTarget(library) ?? binary.path
                    sqlcipher.add(target, "\(subject(binary, at: target)) links \(library)")
                } else if name.contains("sqlite"), library.hasSuffix(".dylib") {
                    let target = linkTarget(library) ?? binary.path
                    privateCopies.add(target, "\(subject(binary, at: target)) links \(library)")
                }
            }
        }
        // Frameworks named for SQLite: a private copy unless the framework's binary itself links
        // Apple's libsqlite3 and defines no SQLite (a wrapper such as SQLite.swift).
        for bundle in context.archive.nestedBundles where bundle.kind == .framework {
            guard let name = SDKDetection.frameworkName(bundle)?.lowercased() else { continue }
            let binary = binaries.first { $0.bundle.path == bundle.path }
            if name.contains("sqlcipher") {
                sqlcipher.add(bundle.path, "the app embeds \(bundle.folderName)")
            } else if name.contains("sqlite") {
                let wrapsSystem = binary.map { binary in
                    binary.linkedLibraries.contains(where: Self.isSystemSQLite)
                        && binary.definedSymbols.isDisjoint(with: Self.sqliteDefinitions)
                } ?? false
                if !wrapsSystem { privateCopies.add(bundle.path, "the app embeds \(bundle.folderName)") }
            }
        }
        for path in files.named(AppFiles.NameRule(anyOf: [.contains("sqlcipher")], suffix: ".dylib")) {
            sqlcipher.add(path, "the app embeds \(AppFiles.fileName(path))")
        }
        for path in files.named(AppFiles.NameRule(anyOf: [.contains("sqlite")], suffix: ".dylib", excluding: ["sqlcipher"])) {
            privateCopies.add(path, "the app embeds \(AppFiles.fileName(path))")
        }

        for (path, evidence) in privateCopies.entries {
            report.findings.append(Finding(
                .binary(.privateSQLite(path: path, evidence: evidence)),
                at: .archive(path)))
        }
        for (path, evidence) in sqlcipher.entries {
            report.findings.append(Finding(
                .binary(.sqlcipher(path: path, evidence: evidence)),
                at: .archive(path)))
        }
    }

    /// The app file a linked `@rpath/…`, `@executable_path/…` or `@loader_path/…` library
    /// resolves to, by file name (rpaths are not expanded; the name is what identifies it).
    private func linkTarget(_ library: String) -> String? {
        let name = AppFiles.fileName(library).lowercased()
        if library.contains(".framework/") {
            let folder = library.split(separator: "/").first { $0.hasSuffix(".framework") }.map(String.init)
            return context.archive.nestedBundles.first { $0.kind == .framework && $0.folderName == folder }?.path
        }
        return files.named(AppFiles.NameRule(anyOf: [.equals(name)])).first
    }

    static func isSystemLibrary(_ path: String) -> Bool {
        path.hasPrefix("/usr/lib/") || path.hasPrefix("/System/")
    }

    static func isSystemSQLite(_ path: String) -> Bool {
        path.hasPrefix("/usr/lib/libsqlite3")
    }

    // MARK: OpenSSL

    private func openssl(to report: inout Report) {
        for binary in binaries where !isOpenSSLItself(binary) {
            let symbols = Self.opensslDefinitions.filter { binary.definedSymbols.contains($0) }
            let banner = binary.prefixedStrings.first(where: Self.isOpenSSLBanner)
            guard !symbols.isEmpty || banner != nil else { continue }
            report.findings.append(Finding(
                .binary(.opensslStatic(binaryPath: binary.path, symbols: symbols, banner: banner)),
                at: .archive(location(binary))))
        }
    }

    /// A framework that is OpenSSL (linked dynamically by the others) is not a static copy.
    private func isOpenSSLItself(_ binary: BinaryEvidence) -> Bool {
        guard binary.bundle.kind == .framework, let name = SDKDetection.frameworkName(binary.bundle)?.lowercased() else {
            return false
        }
        return name.contains("openssl") || name.contains("boringssl") || ["crypto", "ssl", "libcrypto", "libssl"].contains(name)
    }

    /// `OpenSSL 1.0.2k  26 Jan 2017`: the prefix, a digit, a dot.
    static func isOpenSSLBanner(_ text: String) -> Bool {
        let rest = text.utf8.dropFirst(opensslBannerPrefix.utf8.count)
        guard text.hasPrefix(opensslBannerPrefix), let first = rest.first, first >= 0x30, first <= 0x39 else { return false }
        return rest.dropFirst().first == UInt8(ascii: ".")
    }

    // MARK: UIWebView and background sessions

    private func webView(to report: inout Report) {
        for binary in binaries {
            guard let library = binary.referencedClasses[Self.webViewClass] else { continue }
            report.findings.append(Finding(
                .binary(.uiWebView(binaryPath: binary.path, library: library)),
                at: .archive(location(binary))))
        }
    }

    private func backgroundSessions(to report: inout Report) {
        for binary in binaries where !binary.selectors.isEmpty {
            let selectors = Self.backgroundSelectors.filter { binary.selectors.contains($0) }
            report.findings.append(Finding(
                .binary(.urlSessionBackground(binaryPath: binary.path, selectors: selectors)),
                at: .archive(location(binary))))
        }
    }

    // MARK: Cross-platform frameworks

    private func crossPlatform(to report: inout Report) {
        let app = context.archive.app.path
        let frameworks = Dictionary(
            context.archive.nestedBundles.filter { $0.kind == .framework }.compactMap { bundle in
                SDKDetection.frameworkName(bundle).map { ($0, bundle.path) }
            },
            uniquingKeysWith: { first, _ in first })

        var flutter: [String] = []
        if let path = frameworks["Flutter"] { flutter.append("the app embeds \(path)") }
        if let path = frameworks["App"], files.hasFiles(under: path + "/flutter_assets") {
            flutter.append("\(path) holds flutter_assets")
        }

        var reactNative: [String] = []
        for name in ["React", "hermes", "React_Core"] {
            if let path = frameworks[name] { reactNative.append("the app embeds \(path)") }
        }
        for binary in binaries {
            let classes = Self.reactNativeClasses.filter { binary.definedClasses.contains($0) }
            if !classes.isEmpty { reactNative.append("\(binary.path) defines \(classes.joined(separator: ", "))") }
        }
        if files.contains(app + "/main.jsbundle") { reactNative.append("the app ships main.jsbundle") }

        var cordova: [String] = []
        if let path = frameworks["Cordova"] { cordova.append("the app embeds \(path)") }
        for binary in binaries {
            let classes = Self.cordovaClasses.filter { binary.definedClasses.contains($0) }
            if !classes.isEmpty { cordova.append("\(binary.path) defines \(classes.joined(separator: ", "))") }
        }
        if files.contains(app + "/www/cordova.js") { cordova.append("the app ships www/cordova.js") }

        let found: [(BinaryDetail.CrossPlatformFramework, [String])] = [(.flutter, flutter), (.reactNative, reactNative), (.cordova, cordova)]
        for (framework, evidence) in found where !evidence.isEmpty {
            report.findings.append(Finding(
                .binary(.crossPlatform(appPath: app, framework: framework, evidence: evidence)),
                at: .archive(app)))
        }

        var xamarin: [String] = []
        let assemblies = ["xamarin.ios.dll", "microsoft.ios.dll"]
        for path in files.named(AppFiles.NameRule(anyOf: assemblies.map { .equals($0) } + [.hasPrefix("libmonosgen"), .hasPrefix("libxamarin")])) {
            xamarin.append("the app ships \(path.dropFirst(app.count + 1))")
        }
        for binary in binaries {
            let symbols = Self.xamarinDefinitions.filter { binary.definedSymbols.contains($0) }
            if !symbols.isEmpty { xamarin.append("\(binary.path) defines \(symbols.joined(separator: ", "))") }
        }
        if !xamarin.isEmpty {
            report.findings.append(Finding(
                .binary(.xamarin(appPath: app, evidence: xamarin)),
                at: .archive(app)))
        }
    }
}

/// Evidence strings grouped by the path a finding will name, in first-seen order.
struct EvidenceList {
    private(set) var entries: [(path: String, evidence: [String])] = []

    mutating func add(_ path: String, _ item: String) {
        if let index = entries.firstIndex(where: { $0.path == path }) {
            if !entries[index].evidence.contains(item) { entries[index].evidence.append(item) }
        } else {
            entries.append((path, [item]))
        }
    }
}
