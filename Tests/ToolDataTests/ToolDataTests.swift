import FormatSupport
import Foundation
import Policy
import Testing
import TestSupport
import ToolData

/// The toolkit version (`--toolkit-version` and `toolkit.json`, one rule), and `ToolData` as the
/// command line resolves it once: the catalog and the version from one Templates folder, the
/// option winning over the file.
@Suite struct ToolDataTests {
    @Test func theToolkitVersionOptionIsParsedWithItsSource() throws {
        let version = try ToolkitVersion(option: "20.10.05")
        #expect(version.text == "20.10.05")
        #expect(version.version == SDKVersion(major: 20, minor: 10, patch: 5))
        #expect(version.source == .option)
        #expect("\(version.source)" == "--toolkit-version")
        #expect(ToolkitVersion(toolkitInfo: "21.3")?.source == .toolkitInfo)
        #expect(ToolkitVersion(toolkitInfo: "21.3")?.version == SDKVersion(major: 21, minor: 3, patch: 0))
    }

    @Test(arguments: ["latest", "", "20.10.5-beta", "v20", "20..5", " 20", "1234567890", "1.2.3.4.5.6.7.8.9"])
    func aToolkitVersionThatIsNoVersionIsRefused(_ text: String) {
        #expect(ToolkitVersion(toolkitInfo: text) == nil)
        #expect {
            try ToolkitVersion(option: text)
        } throws: { error in
            guard let error = error as? ToolkitVersionError else { return false }
            return error.code == "TOOLKIT_VERSION_INVALID" && error.category == .usage
                && error.description == "--toolkit-version expects a version such as 20.10.5 (numbers separated by dots), got '\(text)'"
        }
    }

    @Test func theRepositorysTemplatesGiveTheCatalogAndTheToolkitVersion() throws {
        let data = try RepositoryTemplates.toolData()
        #expect(data.templates.url == RepositoryTemplates.url.standardizedFileURL)
        let fromFile = try data.templates.toolkitVersion()
        let catalog = try SDKCatalog(templates: data.templates)
        #expect(data.toolkitVersion == fromFile)
        #expect(data.toolkitVersion.source == .toolkitInfo)
        #expect(data.sdkCatalog == catalog)
        #expect(data.sdkCatalog.families.contains { $0.name == "Citrix MDX" })
    }

    @Test func theOptionWinsAndToolkitJSONIsThenNotRead() throws {
        let scratch = try ScratchDirectory("tool-data")
        try FileManager.default.copyItem(atPath: RepositoryTemplates.path, toPath: scratch.path("Templates"))
        // A broken toolkit.json only matters when the option is not given.
        try scratch.write("Templates/toolkit.json", Array("{\"ToolkitVersion\": \"twenty\"}".utf8))
        let templates = try TemplateDirectory(at: URL(fileURLWithPath: scratch.path("Templates")))
        let data = try ToolData(templates: templates, toolkitVersion: ToolkitVersion(option: "20.9.0"))
        #expect(data.toolkitVersion.text == "20.9.0" && data.toolkitVersion.source == .option)
        #expect {
            try ToolData(templates: templates)
        } throws: { ($0 as? TemplateDirectoryError)?.code == "TOOLKIT_INFO_INVALID" }
    }

    @Test func aTemplatesFolderWithoutACatalogIsRefused() throws {
        let scratch = try ScratchDirectory("tool-data")
        try FileManager.default.copyItem(atPath: RepositoryTemplates.path, toPath: scratch.path("Templates"))
        try FileManager.default.removeItem(atPath: scratch.path("Templates/" + SDKCatalog.fileName))
        let templates = try TemplateDirectory(at: URL(fileURLWithPath: scratch.path("Templates")))
        #expect {
            try ToolData(templates: templates, toolkitVersion: ToolkitVersion(option: "20.10.5"))
        } throws: { error in
            (error as? SDKCatalogError)?.code == "SDK_CATALOG_UNREADABLE" && "\(error)".contains(SDKCatalog.fileName)
        }
    }

    @Test func aPolicyIsFoundInTheTemplatesThatDefineIt() throws {
        let directory = try RepositoryTemplates.directory()
        let everywhere = try directory.policy(named: "DisableCamera")
        #expect(everywhere.policy.name == "DisableCamera")
        let defining = try directory.policyTemplateNames().filter { name in
            (try? directory.loadPolicyTemplate(named: name).policy(named: "DisableCamera")) != nil
        }
        #expect(everywhere.templates == defining)
        #expect(try directory.policy(named: "DisableCamera", inTemplate: "general").templates == ["general"])
        #expect(!everywhere.templates.isEmpty)
        #expect {
            try directory.policy(named: "DisableCamra")
        } throws: { error in
            guard let error = error as? PolicyOverrideError else { return false }
            return error.code == "POLICY_UNKNOWN_NAME" && error.suggestions.first == "DisableCamera"
        }
    }
}
