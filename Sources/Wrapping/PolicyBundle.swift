import Crypto
import Foundation
import Policy
import PropertyList
import ToolData

/// `Payload/<App>.app/MDXPolicy.bundle/`: the policy XML the app reads (`policy_metadata.xml`)
/// and an Info.plist naming the toolkit version, the app mode, the template and the policy's
/// SHA-256, so a wrapped app says how it was wrapped.
public struct PolicyBundle: Sendable {
    public static let folderName = "MDXPolicy.bundle"
    public static let policyFileName = "policy_metadata.xml"

    /// The policy XML after the overrides.
    public let policyXML: [UInt8]
    public let sha256: String
    public let mode: AppMode
    /// The template name, or the policy file's name for `--policy`.
    public let templateName: String
    /// What the bundle's Info.plist and the .mdx metadata name (`--toolkit-version`, else `toolkit.json`).
    public let toolkitVersion: ToolkitVersion
    /// Policies whose default the overrides changed.
    public let changedPolicies: [String]
    public let policyCount: Int

    init(template: PolicyTemplate, templateName: String, mode: AppMode, toolkitVersion: ToolkitVersion) throws {
        let xml = try template.serialized()
        self.policyXML = xml
        self.sha256 = SHA256.hash(data: xml).map { String(format: "%02x", $0) }.joined()
        self.mode = mode
        self.templateName = templateName
        self.toolkitVersion = toolkitVersion
        self.changedPolicies = template.changedNames
        self.policyCount = template.policies.count
    }

    /// The bundle's Info.plist, as Xcode would write it (sorted keys, XML).
    public func infoPlist(tool: String) throws -> [UInt8] {
        let info: PropertyListDictionary = [
            "CFBundleInfoDictionaryVersion": "6.0",
            "CFBundleName": "MDXPolicy",
            "CFBundlePackageType": "BNDL",
            "MDXAppMode": .string(mode.rawValue),
            "MDXPolicySHA256": .string(sha256),
            "MDXPolicyTemplate": .string(templateName),
            "MDXToolkitVersion": .string(toolkitVersion.text),
            "MDXWrappingTool": .string(tool),
        ]
        return try PropertyList(root: .dictionary(info), format: .xml).serialized()
    }
}
