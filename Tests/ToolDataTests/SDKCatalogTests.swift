import Foundation
import Testing
import TestSupport
import ToolData

/// `Templates/sdk-catalog.json`, its reader (the shipped file, hostile and missing ones), and SDK
/// version comparison.
@Suite struct SDKCatalogTests {
    static var shippedURL: URL { RepositoryTemplates.url.appendingPathComponent(SDKCatalog.fileName) }

    @Test func shippedCatalogHasTheDocumentedFamilies() throws {
        let catalog = try SDKCatalog(templates: RepositoryTemplates.directory())
        #expect(catalog.families.map(\.name) == ["Citrix MDX", "Microsoft Intune", "BlackBerry Dynamics"])
        let mdx = try #require(catalog.families.first)
        #expect(mdx.frameworks == [
            "MDX", "CTXMAMCore", "CTXMAMAppCore", "CTXMAMCompliance", "CTXMAMContainment", "CTXMAMLocalAuth", "CTXMAMNetwork",
        ])
        #expect(mdx.markerClasses == ["MdxManager", "XenMobileSharedKeychainVault"])
        #expect(mdx.matchesToolkitVersion && mdx.isManagement)
        #expect(catalog.family(ofFramework: "IntuneMAMSwiftStub")?.name == "Microsoft Intune")
        #expect(catalog.family(ofFramework: "IntuneMAMSwift")?.infoPlistKeys == ["IntuneMAMSettings"])
        #expect(catalog.family(ofFramework: "GD")?.name == "BlackBerry Dynamics")
        #expect(catalog.family(ofFramework: "Alamofire") == nil)
        #expect(catalog.families.filter(\.matchesToolkitVersion).map(\.name) == ["Citrix MDX"])
    }

    /// Python's json module reads the same families and names: the file is plain JSON, not
    /// something only this reader accepts.
    @Test func shippedCatalogAgreesWithPythonsJSONReader() throws {
        guard Command.exists("python3") else { return }
        let script = """
            import json, sys
            data = json.load(open(sys.argv[1]))
            for f in data["Families"]:
                print(f["Name"] + "|" + ",".join(f["Frameworks"]) + "|" + ",".join(f["MarkerClasses"]) + "|" + ",".join(f["InfoPlistKeys"]))
            """
        let result = try Command.run("python3", ["-c", script, Self.shippedURL.path])
        #expect(result.status == 0, "\(result.stderr)")
        let catalog = try SDKCatalog(jsonBytes: Fixtures.bytesAt(Self.shippedURL.path))
        let ours = catalog.families.map {
            "\($0.name)|\($0.frameworks.joined(separator: ","))|\($0.markerClasses.joined(separator: ","))|\($0.infoPlistKeys.joined(separator: ","))"
        }
        #expect(result.stdout.split(separator: "\n").map(String.init) == ours)
    }

    // MARK: Hostile catalogs

    static func family(_ extra: String = "", name: String = "X", frameworks: String = "[\"XKit\"]", classes: String = "[]") -> String {
        """
        {"Name": "\(name)", "Management": true, "MatchesToolkitVersion": false, "Frameworks": \(frameworks),
         "MarkerClasses": \(classes), "InfoPlistKeys": []\(extra)}
        """
    }

    static func catalog(_ families: [String], version: String = "1", extra: String = "") -> [UInt8] {
        Array("{\"FormatVersion\": \(version), \"Families\": [\(families.joined(separator: ","))]\(extra)}".utf8)
    }

    static let hostile: [(name: String, bytes: [UInt8], detail: String)] = [
        ("not JSON", Array("{\"FormatVersion\": 1,".utf8), "not valid JSON"),
        ("a list at the top", Array("[]".utf8), "the top level is not an object"),
        ("future format", catalog([family()], version: "2"), "FormatVersion is 2"),
        ("unknown top-level key", catalog([family()], extra: ", \"Famlies\": []"), "the top level has the unknown key 'Famlies'"),
        ("unknown family key", catalog([family(", \"Framworks\": []")]), "Families[0] has the unknown key 'Framworks'"),
        ("missing key", Array("{\"FormatVersion\": 1}".utf8), "the key Families is missing"),
        ("wrong type", catalog([family(frameworks: "\"XKit\"")]), "Families[0].Frameworks is not a list"),
        ("number as bool", catalog([family().replacingOccurrences(of: "\"Management\": true", with: "\"Management\": 1")]),
         "Families[0].Management is not true or false"),
        ("duplicate family", catalog([family(), family()]), "the family 'X' is listed twice"),
        ("framework in two families", catalog([family(), family(name: "Y")]), "the framework 'XKit' is listed by both 'X' and 'Y'"),
        ("class in two families",
         catalog([family(classes: "[\"C\"]"), family(name: "Y", frameworks: "[]", classes: "[\"C\"]")]),
         "the class 'C' is listed by both"),
        ("framework with suffix", catalog([family(frameworks: "[\"XKit.framework\"]")]), "without a path or .framework"),
        ("framework with path", catalog([family(frameworks: "[\"Frameworks/XKit\"]")]), "without a path or .framework"),
        ("empty name", catalog([family(name: "")]), "Families[0].Name is empty"),
        ("too large", Array(repeating: 0x20, count: SDKCatalog.maximumSize + 1), "larger than"),
    ]

    @Test(arguments: hostile.indices)
    func hostileCatalogIsRefusedWithAReason(_ index: Int) {
        let testCase = Self.hostile[index]
        #expect(testCase.name.isEmpty == false)
        #expect {
            _ = try SDKCatalog(jsonBytes: testCase.bytes, source: "catalog.json")
        } throws: { error in
            guard let error = error as? SDKCatalogError else { return false }
            let ok = error.code == "SDK_CATALOG_INVALID" && error.category == .invalidInput
                && error.description.hasPrefix("catalog.json: ") && error.description.contains(testCase.detail)
            if !ok { Issue.record("\(testCase.name): \(error.description)") }
            return ok
        }
    }

    @Test func minimalCatalogIsAccepted() throws {
        let catalog = try SDKCatalog(jsonBytes: Self.catalog([Self.family()]))
        #expect(catalog.families.count == 1)
        #expect(catalog.family(ofFramework: "XKit")?.name == "X")
    }

    @Test func missingCatalogIsAnIOError() throws {
        let scratch = try ScratchDirectory("catalog")
        try FileManager.default.createDirectory(atPath: scratch.path("policies"), withIntermediateDirectories: true)
        try scratch.write("toolkit.json", Array("{\"ToolkitVersion\": \"20.10.5\"}".utf8))
        let templates = try TemplateDirectory(at: scratch.url)
        #expect {
            _ = try SDKCatalog(templates: templates)
        } throws: { error in
            (error as? SDKCatalogError)?.code == "SDK_CATALOG_UNREADABLE" && (error as? SDKCatalogError)?.category == .io
        }
    }

    // MARK: SDKVersion

    @Test func versionsParseAndCompareNumerically() {
        #expect(SDKVersion("20.10.5") == SDKVersion(major: 20, minor: 10, patch: 5))
        #expect(SDKVersion("20.10.05") == SDKVersion("20.10.5"))
        #expect(SDKVersion("20.10.5.99") == SDKVersion("20.10.5"))
        #expect(SDKVersion("20") == SDKVersion(major: 20, minor: 0, patch: 0))
        #expect(SDKVersion("20.9.0").map { $0 < SDKVersion(major: 20, minor: 10, patch: 0) } == true)
        #expect(SDKVersion("19.12.99").map { $0 < SDKVersion(major: 20, minor: 0, patch: 0) } == true)
        #expect(SDKVersion("20.10.5")?.description == "20.10.5")
        for bad in ["", "v20", "20.10.5-beta", "20..5", ".1", "1.", "20.10.x", "1234567890.1", "1.2.3.4.5.6.7.8.9", " 20.1"] {
            #expect(SDKVersion(bad) == nil, "\(bad)")
        }
    }
}
