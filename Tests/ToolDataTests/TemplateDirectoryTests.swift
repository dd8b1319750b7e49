import FormatSupport
import Foundation
import Policy
import Testing
import TestSupport
import ToolData

/// Finding the Templates folder of a running tool (`--templates`, then `IPAWRAP_TEMPLATES`, then
/// beside the executable, never the source tree), and reading what is in it.
@Suite struct TemplateDirectoryTests {
    /// A scratch folder, removed when the test ends.
    final class Scratch {
        let root: URL

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("ipawrap-templates-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        /// A minimal Templates folder at `path`: toolkit.json and a policies/ folder with premium.xml.
        @discardableResult
        func templates(at path: String, toolkitJSON: String = #"{"ToolkitVersion": "20.10.5"}"#) throws -> URL {
            let url = root.appendingPathComponent(path, isDirectory: true)
            try FileManager.default.createDirectory(at: url.appendingPathComponent("policies"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: url.appendingPathComponent("schema"), withIntermediateDirectories: true)
            try Data(toolkitJSON.utf8).write(to: url.appendingPathComponent("toolkit.json"))
            let repository = RepositoryTemplates.url
            try Data(contentsOf: repository.appendingPathComponent("policies/premium.xml"))
                .write(to: url.appendingPathComponent("policies/premium.xml"))
            try Data(contentsOf: repository.appendingPathComponent("schema/policy_metadata.xsd"))
                .write(to: url.appendingPathComponent("schema/policy_metadata.xsd"))
            return url.standardizedFileURL
        }

        func file(_ path: String, _ contents: String = "") throws -> URL {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
            return url
        }
    }

    private func notFound(_ error: any Error, category: ErrorCategory, mentioning fragment: String) -> Bool {
        guard let error = error as? TemplateDirectoryError, error.code == "TEMPLATES_NOT_FOUND" else { return false }
        return error.category == category && error.description.contains(fragment)
    }

    @Test func theOrderIsOptionThenEnvironmentThenBesideTheExecutable() throws {
        let scratch = try Scratch()
        let option = try scratch.templates(at: "option/Templates")
        let environment = try scratch.templates(at: "environment/Templates")
        let beside = try scratch.templates(at: "prefix/bin/Templates")
        let executable = try scratch.file("prefix/bin/ipawrap")
        let variable = [TemplateDirectory.environmentVariable: environment.path]
        #expect(try TemplateDirectory.locate(explicitPath: option.path, environment: variable, executableURLs: [executable]).url == option)
        #expect(try TemplateDirectory.locate(environment: variable, executableURLs: [executable]).url == environment)
        #expect(try TemplateDirectory.locate(environment: [:], executableURLs: [executable]).url == beside)
    }

    @Test func withoutAnExecutableToSearchFromNothingIsFound() throws {
        // The source tree this library was compiled from is no fallback, even when it is there.
        #expect {
            try TemplateDirectory.locate(environment: [:], executableURLs: [])
        } throws: { error in
            notFound(error, category: .io, mentioning: "looked in nowhere") && "\(error)".contains("pass --templates DIR")
        }
    }

    @Test func anExplicitPathWinsAndMustBeRight() throws {
        let scratch = try Scratch()
        let custom = try scratch.templates(at: "custom/Templates")
        let found = try TemplateDirectory.locate(explicitPath: custom.path, environment: [TemplateDirectory.environmentVariable: "/nonexistent"])
        #expect(found.url == custom)
        #expect {
            try TemplateDirectory.locate(explicitPath: scratch.root.path)
        } throws: { notFound($0, category: .usage, mentioning: scratch.root.path + " (from --templates)") }
    }

    @Test func theEnvironmentVariableComesNext() throws {
        let scratch = try Scratch()
        let custom = try scratch.templates(at: "env/Templates")
        #expect(try TemplateDirectory.locate(environment: ["IPAWRAP_TEMPLATES": custom.path]).url == custom)
        #expect {
            try TemplateDirectory.locate(environment: ["IPAWRAP_TEMPLATES": scratch.root.appendingPathComponent("missing").path])
        } throws: { notFound($0, category: .usage, mentioning: "(from IPAWRAP_TEMPLATES)") }
        // An empty variable is as good as unset.
        let executable = try scratch.file("env/ipawrap")
        #expect(try TemplateDirectory.locate(environment: ["IPAWRAP_TEMPLATES": ""], executableURLs: [executable]).url == custom)
    }

    @Test func anInstalledPrefixIsFoundFromBin() throws {
        let scratch = try Scratch()
        let installed = try scratch.templates(at: "usr/local/share/ipawrap/Templates")
        let executable = try scratch.file("usr/local/bin/ipawrap")
        let found = try TemplateDirectory.locate(environment: [:], executableURLs: [executable])
        #expect(found.url == installed)
    }

    @Test func aCheckoutIsFoundFromItsBuildFolder() throws {
        let scratch = try Scratch()
        let checkout = try scratch.templates(at: "repo/Templates")
        let executable = try scratch.file("repo/.build/x86_64-unknown-linux-gnu/debug/ipawrap")
        #expect(try TemplateDirectory.locate(environment: [:], executableURLs: [executable]).url == checkout)
        // Templates next to the executable come before the ones further up.
        let beside = try scratch.templates(at: "repo/.build/x86_64-unknown-linux-gnu/debug/Templates")
        #expect(try TemplateDirectory.locate(environment: [:], executableURLs: [executable]).url == beside)
    }

    @Test func anUnrelatedTemplatesFolderIsNotMistakenForOurs() throws {
        let scratch = try Scratch()
        // An XDG ~/Templates folder: no toolkit.json.
        try FileManager.default.createDirectory(at: scratch.root.appendingPathComponent("home/Templates/policies"), withIntermediateDirectories: true)
        // toolkit.json that is a folder does not count either.
        try FileManager.default.createDirectory(at: scratch.root.appendingPathComponent("home/bin/Templates/toolkit.json"), withIntermediateDirectories: true)
        let executable = try scratch.file("home/bin/ipawrap")
        #expect {
            try TemplateDirectory.locate(environment: [:], executableURLs: [executable])
        } throws: { error in
            notFound(error, category: .io, mentioning: scratch.root.appendingPathComponent("home/Templates").path)
                && "\(error)".contains("pass --templates DIR or set IPAWRAP_TEMPLATES to the Templates folder")
        }
    }

    @Test func templatesAreFoundByPlainNameOnly() throws {
        let directory = try RepositoryTemplates.directory()
        #expect(try directory.policyTemplateURL(named: "premium") == directory.policyTemplateURL(named: "premium.xml"))
        #expect(try directory.loadPolicyTemplate(named: "general").mode == .general)
        for bad in ["premum", "../schema/policy_metadata", "/etc/passwd", ".premium", "Premium", ""] {
            #expect {
                try directory.policyTemplateURL(named: bad)
            } throws: { error in
                guard let error = error as? TemplateDirectoryError else { return false }
                return error.code == "TEMPLATE_NOT_FOUND" && error.category == .usage
                    && error.description.contains("available: general, premium")
            }
        }
        #expect {
            try directory.policyTemplateURL(named: "premum")
        } throws: { "\($0)".contains("did you mean 'premium'?") }
    }

    @Test func toolkitInfoIsCheckedAndMayGrow() throws {
        let scratch = try Scratch()
        let extended = try scratch.templates(at: "a", toolkitJSON: #"{"ToolkitVersion": "21.3.0", "SDKCatalog": [{"name": "MDX"}]}"#)
        let version = try TemplateDirectory(at: extended).toolkitVersion()
        #expect(version.text == "21.3.0")
        // Labelled with where it came from, as a wrap's SDK_VERSION_MISMATCH message names it.
        #expect("\(version.source)" == "Templates/toolkit.json")
        // One rule for a toolkit version, whether toolkit.json or --toolkit-version gives it.
        for text in ["20.10.5", "7", "1.2.3.4.5", "1.2.3.4.5.6.7.8", "1.2.3.4.5.6.7.8.9", "20.10.5-beta", "20..5", "1234567890.1"] {
            let folder = try scratch.templates(at: "rule-\(UUID().uuidString)", toolkitJSON: #"{"ToolkitVersion": ""# + text + #""}"#)
            let fromFile = try? TemplateDirectory(at: folder).toolkitVersion()
            let fromOption = try? ToolkitVersion(option: text)
            #expect(fromFile?.version == fromOption?.version, "\(text)")
            #expect((fromFile == nil) == (fromOption == nil), "\(text)")
        }
        for json in ["not json", "[]", #"{"Version": "20.10.5"}"#, #"{"ToolkitVersion": 20}"#,
                     #"{"ToolkitVersion": "twenty"}"#, #"{"ToolkitVersion": "20..5"}"#, #"{"ToolkitVersion": ""}"#] {
            let folder = try scratch.templates(at: "bad-\(UUID().uuidString)", toolkitJSON: json)
            #expect {
                try TemplateDirectory(at: folder).toolkitVersion()
            } throws: { error in
                (error as? TemplateDirectoryError)?.code == "TOOLKIT_INFO_INVALID" && "\(error)".contains("toolkit.json")
            }
        }
        let huge = try scratch.templates(at: "huge", toolkitJSON: "{\"ToolkitVersion\": \"1.0\", \"pad\": \"" + String(repeating: "x", count: 2_000_000) + "\"}")
        #expect {
            try TemplateDirectory(at: huge).toolkitVersion()
        } throws: { ($0 as? TemplateDirectoryError)?.code == "TEMPLATES_UNREADABLE" && "\($0)".contains("larger than") }
    }

    @Test func aBrokenTemplateInTheFolderReportsItsIssues() throws {
        let scratch = try Scratch()
        let folder = try scratch.templates(at: "t")
        try Data(try Fixtures.bytes("policy/invalid/POLICY_DUPLICATE_NAME.xml")).write(to: folder.appendingPathComponent("policies/dup.xml"))
        let directory = try TemplateDirectory(at: folder)
        #expect(try directory.policyTemplateNames() == ["dup", "premium"])
        #expect {
            try directory.loadPolicyTemplate(named: "dup")
        } throws: { ($0 as? PolicyValidationError)?.code == "POLICY_DUPLICATE_NAME" }
    }
}
