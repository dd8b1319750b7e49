import Foundation
import Testing
import TestSupport

/// The one allowed direction of imports (ARCHITECTURE.md): a target may depend on targets of its
/// own layer or of a layer below, never above, and a format target only on format targets below it
/// in `formatOrder`. The dependency lists are read from `Package.swift` itself, so a new dependency
/// that points upwards fails here before it is merged.
@Suite struct DependencyDirectionTests {
    /// The format targets, lowest first: each may depend only on those before it (`OutputFiles`
    /// below `Zip`, `Zip` below `IPAArchive`). A new format target must be placed here.
    static let formatOrder: [String] = [
        "FormatSupport", "Deflate", "OutputFiles", "XMLSupport", "Zip", "IPAArchive", "PropertyList", "PNG", "LZFSE", "AssetCatalog",
        "MachO", "Policy", "CMS", "SigningIdentity", "CodeSignature", "ProvisioningProfile",
    ]

    /// Targets of one layer that must not depend on each other in either direction.
    static let independent: [(String, String)] = [
        // Both hash entries with `BundleHashing`; neither needs the other.
        ("Signing", "Verification"),
    ]

    /// Every target of the package, by layer, lowest first. A new target must be added here (and to
    /// ARCHITECTURE.md): an unplaced target fails the test.
    static let layers: [(name: String, targets: Set<String>)] = [
        ("C shims", ["CLibzip", "CLibxml2", "CZlib", "CLibdeflate", "CLibcrypto", "CSystemShims"]),
        ("formats", Set(formatOrder)),
        // The tool's own data (Templates, SDK catalog, toolkit version) sits just above the formats
        // it reads: what it knows of checks, bundles or signing it would have to learn upwards.
        ("tool data", ["ToolData"]),
        ("bundle model", ["AppBundle"]),
        ("bundle hashing", ["BundleHashing"]),
        ("reporting", ["Reporting"]),
        ("bundle signatures", ["Installation", "Verification", "Signing"]),
        ("checks", ["Checks"]),
        ("wrapping", ["Wrapping"]),
        ("batch", ["Batch"]),
        ("command line and tools", ["ipawrap", "ipawrap-bench", "sample-generator"]),
    ]

    /// The one shipped-beside target that may use `TestSupport`: the sample app's generator builds
    /// `Samples/Sample.ipa` with the same builders the tests use (it is a tool of the repository,
    /// not part of the `ipawrap` product).
    static let testSupportUsers: Set<String> = ["sample-generator"]

    /// Test targets and their support library sit above everything and may use anything.
    static func isTestTarget(_ target: PackageManifest.Target) -> Bool {
        target.kind == .test || target.name == "TestSupport"
    }

    static func layer(of target: String) -> Int? {
        layers.firstIndex { $0.targets.contains(target) }
    }

    /// Each dependency that points to a higher layer, or involves a target no layer holds.
    static func violations(in manifest: PackageManifest) -> [String] {
        var problems: [String] = []
        let local = Set(manifest.targets.map(\.name))
        for target in manifest.targets where !isTestTarget(target) {
            guard let own = layer(of: target.name) else {
                problems.append("\(target.name) is in no layer (add it to DependencyDirectionTests.layers and ARCHITECTURE.md)")
                continue
            }
            for dependency in target.dependencies where local.contains(dependency) {
                if manifest.targets.first(where: { $0.name == dependency }).map(isTestTarget) == true,
                    !testSupportUsers.contains(target.name) {
                    problems.append("\(target.name) depends on the test target \(dependency)")
                }
                guard let theirs = layer(of: dependency) else { continue }  // reported as its own target
                if theirs > own {
                    problems.append(
                        "\(target.name) (\(layers[own].name)) depends on \(dependency) (\(layers[theirs].name)), a layer above it")
                }
                if let mine = formatOrder.firstIndex(of: target.name), let their = formatOrder.firstIndex(of: dependency), their > mine {
                    problems.append("\(target.name) depends on \(dependency), a format target above it in formatOrder")
                }
                if independent.contains(where: { [$0.0, $0.1] == [target.name, dependency] || [$0.1, $0.0] == [target.name, dependency] }) {
                    problems.append("\(target.name) depends on \(dependency), which must stay independent of it")
                }
            }
        }
        return problems
    }

    @Test func everyTargetDependsOnlyOnItsLayerOrBelow() throws {
        let manifest = try PackageManifest(contentsOf: Fixtures.packageRoot.appendingPathComponent("Package.swift"))
        // The reader found the package's targets, so an empty list cannot pass for a clean one.
        #expect(manifest.targets.count >= 30)
        #expect(manifest.targets.first { $0.name == "ipawrap" }?.dependencies.contains("Batch") == true)
        let problems = Self.violations(in: manifest)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Issue 28: the tool data is a low target, beside the formats it reads; the checks take it
    /// as a value, never the other way round.
    @Test func toolDataDependsOnFormatsOnly() throws {
        let manifest = try PackageManifest(contentsOf: Fixtures.packageRoot.appendingPathComponent("Package.swift"))
        let toolData = try #require(manifest.targets.first { $0.name == "ToolData" })
        let formats = try #require(Self.layers.first { $0.name == "formats" }).targets
        #expect(!toolData.dependencies.isEmpty && Set(toolData.dependencies).isSubset(of: formats), "\(toolData.dependencies)")
        #expect(manifest.targets.first { $0.name == "Checks" }?.dependencies.contains("ToolData") == true)
    }

    @Test func anUpwardDependencyIsReported() throws {
        let manifest = try PackageManifest(text: """
            let package = Package(
                name: "example",
                targets: [
                    .target(name: "FormatSupport", swiftSettings: strict),
                    .target(
                        name: "MachO",
                        dependencies: ["FormatSupport", "Checks",
                                       .product(name: "Crypto", package: "swift-crypto")] + certificateLibraries,
                        swiftSettings: strict),
                    .target(name: "Checks", dependencies: ["MachO"]),
                    .target(name: "Mystery", dependencies: ["FormatSupport"]),
                    .target(name: "TestSupport", dependencies: ["FormatSupport"], path: "Tests/TestSupport"),
                    .target(name: "Wrapping", dependencies: ["Checks", "TestSupport"]),
                    .executableTarget(name: "sample-generator", dependencies: ["TestSupport"]),
                    .testTarget(name: "MachOTests", dependencies: ["MachO", "Checks"]),
                ]
            )
            """)
        #expect(manifest.targets.map(\.name) == [
            "FormatSupport", "MachO", "Checks", "Mystery", "TestSupport", "Wrapping", "sample-generator", "MachOTests",
        ])
        #expect(manifest.targets[1].dependencies == ["FormatSupport", "Checks"])
        #expect(Self.violations(in: manifest) == [
            "MachO (formats) depends on Checks (checks), a layer above it",
            "Mystery is in no layer (add it to DependencyDirectionTests.layers and ARCHITECTURE.md)",
            "Wrapping depends on the test target TestSupport",
        ])
    }

    @Test func aDependencyAgainstTheFormatOrderOrBetweenIndependentTargetsIsReported() throws {
        let manifest = try PackageManifest(text: """
            let package = Package(
                name: "example",
                targets: [
                    .target(name: "FormatSupport"),
                    .target(name: "OutputFiles", dependencies: ["FormatSupport"]),
                    .target(name: "Zip", dependencies: ["OutputFiles", "FormatSupport", "IPAArchive"]),
                    .target(name: "IPAArchive", dependencies: ["Zip"]),
                    .target(name: "Verification", dependencies: ["Zip"]),
                    .target(name: "Signing", dependencies: ["Verification", "IPAArchive"]),
                ]
            )
            """)
        #expect(Self.violations(in: manifest) == [
            "Zip depends on IPAArchive, a format target above it in formatOrder",
            "Signing depends on Verification, which must stay independent of it",
        ])
    }

    /// The folder of a target's sources: its `path:`, else `Sources/NAME`.
    static func sourceFolder(of target: PackageManifest.Target) -> URL {
        Fixtures.packageRoot.appendingPathComponent(target.path ?? "Sources/\(target.name)")
    }

    /// The modules a Swift file imports (`import X`, `@_exported import X`, `import struct X.Y`).
    static func importedModules(in text: String) -> Set<String> {
        var modules: Set<String> = []
        for line in text.split(whereSeparator: \.isNewline) {
            var words = line.split(whereSeparator: \.isWhitespace)[...]
            while let first = words.first, first.hasPrefix("@") { words = words.dropFirst() }
            guard words.first == "import", words.count >= 2 else { continue }
            words = words.dropFirst()
            let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "let", "var"]
            if let first = words.first, kinds.contains(first) { words = words.dropFirst() }
            guard let path = words.first, let module = path.split(separator: ".").first else { continue }
            modules.insert(String(module))
        }
        return modules
    }

    /// What every Swift file under `folder` imports.
    static func importedModules(under folder: URL) throws -> Set<String> {
        var modules: Set<String> = []
        guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return modules }
        for case let file as URL in files where file.pathExtension == "swift" {
            modules.formUnion(importedModules(in: try String(contentsOf: file, encoding: .utf8)))
        }
        return modules
    }

    /// The manifest's lists are what the layering test reads, so they must be what the sources
    /// import: a package-local import missing from the list would slip past it (SwiftPM finds the
    /// module when it happens to be built first), and a listed target the sources never import
    /// (as `Checks` once listed `Policy`) claims a dependency that is not there.
    @Test func everyTargetListsExactlyTheLocalTargetsItImports() throws {
        let manifest = try PackageManifest(contentsOf: Fixtures.packageRoot.appendingPathComponent("Package.swift"))
        let local = Set(manifest.targets.map(\.name))
        var problems: [String] = []
        var importsSeen = 0
        for target in manifest.targets where !Self.isTestTarget(target) && target.kind != .system {
            let imported = try Self.importedModules(under: Self.sourceFolder(of: target)).intersection(local)
            importsSeen += imported.count
            for name in imported.subtracting(target.dependencies).sorted() {
                problems.append("\(target.name) imports \(name) without listing it in Package.swift")
            }
            for name in Set(target.dependencies).subtracting(imported).sorted() {
                problems.append("\(target.name) lists \(name) in Package.swift but never imports it")
            }
        }
        // The folders were found and read: the command line alone imports a dozen targets.
        #expect(importsSeen > 50)
        #expect(try Self.importedModules(under: Self.sourceFolder(of: #require(manifest.targets.first { $0.name == "ipawrap" })))
            .isSuperset(of: ["Batch", "Checks", "ToolData"]))
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Whether a Swift file re-exports a module (`@_exported import X`, with any other attributes).
    static func reExportsAModule(_ text: String) -> Bool {
        text.split(whereSeparator: \.isNewline).contains { line in
            let words = line.split(whereSeparator: \.isWhitespace)
            let attributes = words.prefix { $0.hasPrefix("@") }
            return attributes.contains("@_exported") && words.dropFirst(attributes.count).first == "import"
        }
    }

    /// A re-export (`@_exported import`) hands a target's dependency to everything that imports
    /// it, so code could use a target its manifest does not list and the layering read here
    /// would no longer be the whole truth: no source file has one.
    @Test func noSourceFileReExportsAModule() throws {
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources")
        var reExporting: [String] = []
        var filesRead = 0
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            filesRead += 1
            if Self.reExportsAModule(try String(contentsOf: file, encoding: .utf8)) {
                reExporting.append(file.path.replacingOccurrences(of: sources.path + "/", with: ""))
            }
        }
        #expect(filesRead > 200)
        #expect(reExporting.isEmpty, "@_exported import in \(reExporting.sorted().joined(separator: ", "))")
    }

    @Test func reExportsAreFoundInEveryForm() {
        #expect(Self.reExportsAModule("import Foundation\n@_exported import Reporting\n"))
        #expect(Self.reExportsAModule("  @preconcurrency @_exported import struct MachO.MachOFile"))
        #expect(!Self.reExportsAModule("import Foundation\n// @_exported import Reporting\n@testable import MachO"))
        #expect(!Self.reExportsAModule("let note = \"@_exported import Quoted\""))
    }

    /// The top-level types a Swift file declares (`public struct X`, `final class Y`, `enum Z`...);
    /// nested types are named through their parent and cannot clash.
    static func topLevelTypes(in text: String) -> Set<String> {
        let modifiers: Set<Substring> = [
            "public", "package", "internal", "fileprivate", "private", "final", "indirect", "open", "nonisolated",
        ]
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "actor", "typealias"]
        var names: Set<String> = []
        for line in text.split(whereSeparator: \.isNewline) where line.first?.isWhitespace == false {
            var words = line.split(whereSeparator: { $0.isWhitespace || $0 == ":" || $0 == "<" || $0 == "{" || $0 == "=" })[...]
            while let first = words.first, first.hasPrefix("@") || modifiers.contains(first) { words = words.dropFirst() }
            guard let kind = words.first, kinds.contains(kind), words.count >= 2 else { continue }
            names.insert(String(words[words.index(after: words.startIndex)]))
        }
        return names
    }

    /// Issue 15: no two modules define a type of the same name, so a file that imports both never
    /// has to qualify one, and a name found in the code points to one place.
    @Test func noTwoTargetsDeclareATypeOfTheSameName() throws {
        let manifest = try PackageManifest(contentsOf: Fixtures.packageRoot.appendingPathComponent("Package.swift"))
        var owners: [String: [String]] = [:]
        for target in manifest.targets where !Self.isTestTarget(target) && target.kind != .system {
            guard let files = FileManager.default.enumerator(at: Self.sourceFolder(of: target), includingPropertiesForKeys: nil) else { continue }
            var names: Set<String> = []
            for case let file as URL in files where file.pathExtension == "swift" {
                names.formUnion(Self.topLevelTypes(in: try String(contentsOf: file, encoding: .utf8)))
            }
            for name in names { owners[name, default: []].append(target.name) }
        }
        // The reader found the package's types.
        #expect(owners["Finding"] == ["Reporting"] && owners["BatchSession"] == ["Batch"], "\(owners.count) types")
        let clashes = owners.filter { $0.value.count > 1 }.map { "\($0.key): \($0.value.sorted().joined(separator: ", "))" }.sorted()
        #expect(clashes.isEmpty, "\(clashes.joined(separator: "\n"))")
    }

    @Test func typeDeclarationsAreReadInEveryForm() {
        let text = """
            public struct Report: Codable {
            final class Box<T>: Sendable {}
            @propertyWrapper public struct ExplicitNull<Value> {
            enum Kind { case a }
            public typealias Failure = InputFailure
                struct Nested {}
            // struct Commented
            extension Report {}
            """
        #expect(Self.topLevelTypes(in: text) == ["Report", "Box", "ExplicitNull", "Kind", "Failure"])
    }

    @Test func importsAreReadInEveryForm() {
        let text = """
            import Foundation
            @_exported import Reporting
            @testable @preconcurrency import MachO
            import struct FormatSupport.ByteReader
            // import Commented
            let note = "import Quoted"
              import Indented
            """
        #expect(Self.importedModules(in: text) == ["Foundation", "Reporting", "MachO", "FormatSupport", "Indented"])
    }

    /// Issue 15: comments and docs cite what a clone has. The CLI contract and the format notes
    /// outside the repository, and the finding catalogue type that no longer exists, are cited
    /// nowhere; format facts are cited as `docs/formats.md`, which must exist.
    @Test func citationsPointIntoTheRepository() throws {
        let root = Fixtures.packageRoot
        // Spelled in pieces so this file does not cite them itself.
        let forbidden = ["cli-contract" + ".md", "Finding" + "Catalog", "shared/" + "reference"]
        var problems: [String] = []
        var filesRead = 0
        for folder in ["Sources", "Tests", "Scripts", "Fuzz", "Benchmarks", "Samples", "docs"] {
            guard let files = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            else { continue }
            for case let file as URL in files where !file.path.contains("/Tests/Fixtures/") && !file.path.contains("/.build/") {
                guard ["swift", "md", "sh", "py", ""].contains(file.pathExtension),
                      let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                filesRead += 1
                let name = String(file.path.dropFirst(root.path.count + 1))
                for citation in forbidden where text.contains(citation) {
                    problems.append("\(name) cites \(citation)")
                }
                let formatNotes = text.components(separatedBy: "formats" + ".md").count - 1
                let inRepository = text.components(separatedBy: "docs/formats" + ".md").count - 1
                if formatNotes != inRepository { problems.append("\(name) cites a formats notes file other than docs/formats.md") }
            }
        }
        for document in ["README.md", "ARCHITECTURE.md"] {
            let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            for citation in forbidden where text.contains(citation) { problems.append("\(document) cites \(citation)") }
        }
        #expect(filesRead > 300)
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("docs/formats.md").path))
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Issue 15: tool data is resolved once, by the command line, and passed down: no library
    /// target below it finds the Templates folder or resolves `ToolData` of its own accord.
    @Test func onlyTheCommandLineLocatesTheTemplatesFolder() throws {
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources")
        var callers: Set<String> = []
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            if text.contains("TemplateDirectory.locate(") || text.contains("ToolData.resolve(") {
                callers.insert(file.deletingLastPathComponent().path.replacingOccurrences(of: sources.path + "/", with: ""))
            }
        }
        // ToolData.resolve (in ToolData) wraps locate for the command line, which alone calls it.
        #expect(callers.contains("ipawrap/Support"))
        #expect(callers.subtracting(["ToolData", "ipawrap", "ipawrap/Support", "ipawrap/Commands"]).isEmpty, "\(callers.sorted())")
    }

    @Test func architectureMapNamesEveryLayeredTarget() throws {
        let map = try String(
            contentsOf: Fixtures.packageRoot.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        let unnamed = Self.layers.flatMap(\.targets).filter { !map.contains("`\($0)`") }.sorted()
        #expect(unnamed.isEmpty, "ARCHITECTURE.md does not name \(unnamed.joined(separator: ", "))")
    }
}

/// The targets of a `Package.swift` and the package-local names in their `dependencies:` lists
/// (products of other packages, `.product(...)`, are left out). Enough of Swift to read this
/// package's manifest: balanced brackets and string literals without escapes.
struct PackageManifest {
    struct Target: Equatable {
        enum Kind: Equatable { case regular, executable, test, system }
        let name: String
        let kind: Kind
        let dependencies: [String]
        /// The target's `path:`, when it has one.
        var path: String? = nil
    }

    let targets: [Target]

    init(contentsOf url: URL) throws {
        try self.init(text: String(contentsOf: url, encoding: .utf8))
    }

    init(text: String) throws {
        let scalars = Array(text.unicodeScalars)
        let kinds: [(String, Target.Kind)] = [
            (".target(", .regular), (".executableTarget(", .executable), (".testTarget(", .test),
            (".systemLibrary(", .system),
        ]
        var targets: [Target] = []
        var index = 0
        while index < scalars.count {
            guard let (opener, kind) = kinds.first(where: { Self.matches($0.0, in: scalars, at: index) }) else {
                index += 1
                continue
            }
            let open = index + opener.unicodeScalars.count - 1
            let close = try Self.closing(of: open, in: scalars)
            let body = Array(scalars[(open + 1)..<close])
            guard let name = Self.stringArgument("name:", in: body) else { throw ManifestError("a target without a name") }
            var dependencies: [String] = []
            if let label = Self.find("dependencies:", in: body),
               let bracket = body[label...].firstIndex(of: "[") {
                let end = try Self.closing(of: bracket, in: body)
                let list = Self.removingProducts(Array(body[(bracket + 1)..<end]))
                dependencies = Self.stringLiterals(in: list)
            }
            targets.append(Target(name: name, kind: kind, dependencies: dependencies, path: Self.stringArgument("path:", in: body)))
            index = close + 1
        }
        self.targets = targets
    }

    struct ManifestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func matches(_ word: String, in scalars: [Unicode.Scalar], at index: Int) -> Bool {
        let needle = Array(word.unicodeScalars)
        guard index + needle.count <= scalars.count else { return false }
        return Array(scalars[index..<(index + needle.count)]) == needle
    }

    private static func find(_ word: String, in scalars: [Unicode.Scalar]) -> Int? {
        (0..<scalars.count).first { matches(word, in: scalars, at: $0) }
    }

    /// The bracket that closes the one at `open`, skipping string literals.
    private static func closing(of open: Int, in scalars: [Unicode.Scalar]) throws -> Int {
        var depth = 0
        var inString = false
        for index in open..<scalars.count {
            let scalar = scalars[index]
            if scalar == "\"" { inString.toggle() }
            if inString { continue }
            if scalar == "(" || scalar == "[" { depth += 1 }
            if scalar == ")" || scalar == "]" {
                depth -= 1
                if depth == 0 { return index }
            }
        }
        throw ManifestError("unbalanced brackets")
    }

    private static func stringArgument(_ label: String, in scalars: [Unicode.Scalar]) -> String? {
        guard let start = find(label, in: scalars) else { return nil }
        return stringLiterals(in: Array(scalars[start...])).first
    }

    private static func stringLiterals(in scalars: [Unicode.Scalar]) -> [String] {
        var result: [String] = []
        var current: String?
        for scalar in scalars {
            if scalar == "\"" {
                if let literal = current { result.append(literal) }
                current = current == nil ? "" : nil
            } else if current != nil {
                current?.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func removingProducts(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var result: [Unicode.Scalar] = []
        var index = 0
        while index < scalars.count {
            if matches(".product(", in: scalars, at: index),
               let close = try? closing(of: index + ".product".unicodeScalars.count, in: scalars) {
                index = close + 1
                continue
            }
            result.append(scalars[index])
            index += 1
        }
        return result
    }
}
