import Foundation
import Testing
import TestSupport

@Suite struct WrapCommandTests {
    private func app() -> IPABuilder {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        builder.addFramework("Kit", bundleIdentifier: "com.example.kit")
        builder.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        builder.addSymlink("Default@2x.png", to: "AppIcon60x60@2x.png")
        builder.rootFiles["SwiftSupport/iphoneos/libswiftCore.dylib"] = .init(data: IPABuilder.executable(fileType: 6), mode: 0o100755)
        return builder
    }

    private let bundle = "Payload/Sample.app/MDXPolicy.bundle/"

    /// The `PolicyDefault` text of the policy named `name` in a policy XML document.
    private func defaultValue(of name: String, in xml: String) -> String? {
        guard let nameRange = xml.range(of: "<PolicyName>\(name)</PolicyName>"),
              let open = xml.range(of: "<PolicyDefault>", range: nameRange.upperBound..<xml.endIndex),
              let close = xml.range(of: "</PolicyDefault>", range: open.upperBound..<xml.endIndex) else { return nil }
        return String(xml[open.upperBound..<close.lowerBound])
    }

    @Test func aCleanWrapAddsOnlyThePolicyBundle() throws {
        let scratch = try ScratchDirectory("wrap")
        let input = try scratch.write("Sample.ipa", app().bytes())
        let output = scratch.path("Sample.wrapped.ipa")
        let result = try Command.ipawrap(["wrap", input, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("SIGNATURE_INVALIDATED"))
        #expect(result.stdout.contains("Wrapped"))

        // Every original entry is unchanged, byte for byte, by an independent reader.
        let before = try ZipOracle.entries(input)
        let after = try ZipOracle.entries(output)
        #expect(Array(after.prefix(before.count)) == before)
        #expect(after.dropFirst(before.count).map(\.nameString) == [bundle, bundle + "Info.plist", bundle + "policy_metadata.xml"])
        #expect(try ZipOracle.unzipTest(output).status == 0)
        #expect(try Fixtures.bytesAt(input) == app().bytes())

        // The policy XML is valid against the shipped schema (xmllint as the oracle).
        let xml = try Command.run("unzip", ["-p", output, bundle + "policy_metadata.xml"]).stdout
        let xmlPath = try scratch.write("policy_metadata.xml", Array(xml.utf8))
        #expect(xml.contains("<PolicyMetadata"))
        if Command.exists("xmllint") {
            let lint = try Command.run("xmllint", ["--noout", "--schema", Fixtures.packageRoot.appendingPathComponent("Templates/schema/policy_metadata.xsd").path, xmlPath])
            #expect(lint.status == 0, "\(lint.stderr)")
        }
        // The Info.plist names toolkit, mode, template and the XML's SHA-256 (Foundation as oracle).
        let plistText = try Command.run("unzip", ["-p", output, bundle + "Info.plist"]).stdout
        let info = try #require(try PropertyListSerialization.propertyList(from: Data(plistText.utf8), format: nil) as? [String: Any])
        #expect(info["MDXToolkitVersion"] as? String == "20.10.5")
        #expect(info["MDXAppMode"] as? String == "premium")
        #expect(info["MDXPolicyTemplate"] as? String == "premium")
        let digest = try Command.run("sha256sum", [xmlPath]).stdout.split(separator: " ").first.map(String.init)
        #expect(info["MDXPolicySHA256"] as? String == digest)
    }

    /// An input with exactly --max-entries entries (or --max-total-size bytes) wraps: the output,
    /// three entries and the policy larger, is read back under limits widened by what was added.
    @Test func anInputAtItsLimitsWraps() throws {
        let scratch = try ScratchDirectory("wrap")
        let input = try scratch.write("Sample.ipa", app().bytes())
        let entries = try ZipOracle.entries(input)
        let total = entries.reduce(0) { $0 + $1.fileSize }
        for format in ["ipa", "mdx"] {
            let result = try Command.ipawrap([
                "wrap", input, "-o", scratch.path("out.\(format)"), "--format", format,
                "--max-entries", "\(entries.count)", "--max-total-size", "\(total)",
            ])
            #expect(result.status == 0, "\(format): \(result.stderr)")
        }
    }

    @Test func theSameInputAndOptionsGiveTheSameBytes() throws {
        let scratch = try ScratchDirectory("wrap")
        let input = try scratch.write("Sample.ipa", app().bytes())
        for format in ["ipa", "mdx"] {
            let arguments = ["--format", format, "--template", "general", "--set", "DisableCamera=true"]
            #expect(try Command.ipawrap(["wrap", input, "-o", scratch.path("one.\(format)")] + arguments).status == 0)
            #expect(try Command.ipawrap(["wrap", input, "-o", scratch.path("two.\(format)")] + arguments).status == 0)
            #expect(try Fixtures.bytesAt(scratch.path("one.\(format)")) == (try Fixtures.bytesAt(scratch.path("two.\(format)"))))
        }
    }

    @Test func setChangesOnlyThePolicyAskedFor() throws {
        let scratch = try ScratchDirectory("wrap")
        let input = try scratch.write("Sample.ipa", app().bytes())
        let output = scratch.path("out.ipa")
        let result = try Command.ipawrap(["wrap", input, "-o", output, "--set", "DisableCamera=true", "--set", "NetworkAccess=TunneledFullVPN"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("set DisableCamera, NetworkAccess"))
        let xml = try Command.run("unzip", ["-p", output, bundle + "policy_metadata.xml"]).stdout
        let template = String(decoding: try Fixtures.bytesAt(Fixtures.packageRoot.appendingPathComponent("Templates/policies/premium.xml").path), as: UTF8.self)
        let changed = zip(template.split(separator: "\n", omittingEmptySubsequences: false), xml.split(separator: "\n", omittingEmptySubsequences: false))
            .filter { $0 != $1 }
        #expect(changed.count == 2)
        #expect(changed.allSatisfy { $0.0.contains("PolicyDefault") })
        #expect(changed.contains { $0.1.contains("<PolicyDefault>true</PolicyDefault>") })
        #expect(changed.contains { $0.1.contains("<PolicyDefault>TunneledFullVPN</PolicyDefault>") })
    }

    @Test(arguments: [
        ("DisableCamera=maybe", "POLICY_INVALID_VALUE"), ("NetworkAccess=Sideways", "POLICY_INVALID_VALUE"),
        ("DisableCamra=true", "POLICY_UNKNOWN_NAME"), ("no-equals", "POLICY_SET_SYNTAX"),
    ])
    func badOverridesAreUsageErrorsAndWriteNothing(setting: String, code: String) throws {
        let scratch = try ScratchDirectory("wrap")
        let input = try scratch.write("Sample.ipa", app().bytes())
        let result = try Command.ipawrap(["wrap", input, "-o", scratch.path("out.ipa"), "--set", setting])
        #expect(result.status == 64)
        #expect(result.stderr.contains("error[\(code)]"), "\(result.stderr)")
        #expect(scratch.listing() == ["Sample.ipa"])
    }

    @Test func errorFindingsStopTheWrapAndWriteNothing() throws {
        let scratch = try ScratchDirectory("wrap")
        let noIcon = try scratch.write("NoIcon.ipa", IPABuilder().bytes())
        let result = try Command.ipawrap(["wrap", noIcon, "-o", scratch.path("out.ipa")])
        #expect(result.status == 1)
        #expect(result.stdout.contains("ICON_NOT_FOUND"))
        #expect(result.stderr.contains("not wrapped because of ICON_NOT_FOUND"))
        #expect(scratch.listing() == ["NoIcon.ipa"])
    }

    /// The error codes a generated IPA can give, each with the app that gives it and the options.
    static let errorCodes = [
        "APP_ENCRYPTED", "SDK_VERSION_MISMATCH", "SDK_VERSION_INCONSISTENT", "APP_ID_WILDCARD", "APP_ID_MISMATCH",
        "PROFILE_MISSING", "PROFILE_EXPIRED", "PROFILE_UNREADABLE", "TEAM_MISMATCH", "EXTENSION_ID_NOT_PREFIXED",
        "ICON_NOT_FOUND", "ALREADY_WRAPPED",
    ]

    /// A framework bundle of the MDX SDK at `version`, linked by nothing in particular.
    private static func mdxFramework(_ name: String, version: String) -> IPABuilder.Nested {
        var info = IPABuilder.infoPlist(name: name, bundleIdentifier: "com.citrix.\(name)", version: version, build: "1", packageType: "FMWK")
        info["CFBundleDisplayName"] = nil
        return .init(
            path: "Frameworks/\(name).framework", info: info,
            executable: IPABuilder.executable(fileType: 6) { $0.installName = .init("@rpath/\(name).framework/\(name)") })
    }

    /// An app with an icon and the committed profile (which passes every check at `--at
    /// 2026-06-01`), changed so that it gives the error `code`; and the extra options.
    private static func failingApp(_ code: String) throws -> (IPABuilder, [String]) {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        var options: [String] = []
        switch code {
        case "APP_ENCRYPTED":
            builder.executable = IPABuilder.executable { $0.encryption = .init(cryptID: 1) }
        case "SDK_VERSION_MISMATCH":
            builder.nested.append(mdxFramework("CTXMAMCore", version: "20.9.0"))
        case "SDK_VERSION_INCONSISTENT":
            builder.nested.append(mdxFramework("CTXMAMCore", version: "20.10.5"))
            builder.nested.append(mdxFramework("CTXMAMNetwork", version: "20.9.0"))
        case "APP_ID_WILDCARD":
            builder.profile = try ProfileBuilder.fixture(.wildcard)
        case "APP_ID_MISMATCH":
            builder.profile = try ProfileBuilder.fixture(.share)
        case "PROFILE_MISSING":
            builder.profile = nil
        case "PROFILE_EXPIRED":
            builder.profile = try ProfileBuilder.fixture(.expired)
        case "PROFILE_UNREADABLE":
            builder.profile = Array(try ProfileBuilder.fixture(.app).prefix(1_000))
        case "TEAM_MISMATCH":
            builder.profile = try ProfileBuilder.fixture(.otherTeam)
            builder.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        case "EXTENSION_ID_NOT_PREFIXED":
            // A wildcard profile matches the stray identifier, and is allowed: only the prefix is wrong.
            builder.addExtension("Stray", bundleIdentifier: "com.other.stray", profile: try ProfileBuilder.fixture(.wildcard))
            options = ["--allow-wildcard"]
        case "ICON_NOT_FOUND":
            builder = IPABuilder()
        case "ALREADY_WRAPPED":
            builder.addFile("MDXPolicy.bundle/policy_metadata.xml", try Fixtures.bytesAt(
                Fixtures.packageRoot.appendingPathComponent("Templates/policies/general.xml").path))
        default:
            Issue.record("no app for \(code)")
        }
        return (builder, options)
    }

    @Test(arguments: errorCodes)
    func eachErrorFindingStopsTheWrapAndWritesNothing(_ code: String) throws {
        let scratch = try ScratchDirectory("wrap-error")
        let (builder, options) = try Self.failingApp(code)
        let bytes = try builder.bytes()
        let input = try scratch.write("App.ipa", bytes)
        for format in ["ipa", "mdx"] {
            let result = try Command.ipawrap(
                ["wrap", input, "-o", scratch.path("out.\(format)"), "--format", format, "--at", "2026-06-01", "--json"] + options)
            #expect(result.status == 1, "\(code) \(format): \(result.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let errors = (report["findings"] as? [[String: Any]] ?? [])
                .filter { $0["severity"] as? String == "error" }
                .compactMap { $0["code"] as? String }
            #expect(errors.contains(code), "\(code): errors are \(errors)")
            // Other errors may come with it (an inconsistent SDK also mismatches), but none is unexpected.
            let companions: [String: Set<String>] = ["SDK_VERSION_INCONSISTENT": ["SDK_VERSION_MISMATCH"]]
            #expect(Set(errors).subtracting([code]).isSubset(of: companions[code] ?? []), "\(code): errors are \(errors)")
            let stderr = result.stderr.split(separator: "\n").map(String.init)
            // The one-line error form scripts grep, each code once.
            let codes = errors.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            #expect(stderr == ["ipawrap: error[ERROR_FINDINGS]: \(input): not wrapped because of \(codes.joined(separator: ", ")); nothing was written"])
        }
        #expect(scratch.listing() == ["App.ipa"])
        #expect(try Fixtures.bytesAt(input) == bytes)
    }

    @Test func anAlreadyWrappedAppNeedsRewrap() throws {
        let scratch = try ScratchDirectory("wrap")
        let input = try scratch.write("Sample.ipa", app().bytes())
        let once = scratch.path("once.ipa")
        #expect(try Command.ipawrap(["wrap", input, "-o", once, "--set", "DisableCamera=true"]).status == 0)
        let refused = try Command.ipawrap(["wrap", once, "-o", scratch.path("twice.ipa")])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("ALREADY_WRAPPED"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("twice.ipa")))

        let rewrapped = try Command.ipawrap(["wrap", once, "-o", scratch.path("twice.ipa"), "--rewrap"])
        #expect(rewrapped.status == 0, "\(rewrapped.stderr)")
        let entries = try ZipOracle.entries(scratch.path("twice.ipa")).map(\.nameString)
        #expect(entries.filter { $0.hasPrefix(bundle) }.count == 3)  // replaced, not doubled
        // The new bundle carries the new policy (DisableCamera back to its default), not the old one.
        let first = try Command.run("unzip", ["-p", once, bundle + "policy_metadata.xml"]).stdout
        let second = try Command.run("unzip", ["-p", scratch.path("twice.ipa"), bundle + "policy_metadata.xml"]).stdout
        #expect(defaultValue(of: "DisableCamera", in: first) == "true")
        #expect(defaultValue(of: "DisableCamera", in: second) == "false")
    }

    @Test func mdxHoldsThePolicyTheWrappedIPATheIconAndMetadata() throws {
        let scratch = try ScratchDirectory("wrap")
        let input = try scratch.write("Sample.ipa", app().bytes())
        let output = scratch.path("Sample.mdx")
        let result = try Command.ipawrap(["wrap", input, "-o", output, "--format", "mdx", "--template", "general"])
        #expect(result.status == 0, "\(result.stderr)")
        let entries = try ZipOracle.entries(output)
        #expect(entries.map(\.nameString) == ["Sample.ipa", "icon.png", "metadata.plist", "policy_metadata.xml"])
        #expect(entries[0].method == 0)  // the IPA is stored, not recompressed
        #expect(try ZipOracle.unzipTest(output).status == 0)
        _ = try Command.run("unzip", ["-q", output, "-d", scratch.path("mdx")])
        // The inner IPA is the wrapped app, and the icon a standard PNG (independent decoder).
        let inner = try ZipOracle.entries(scratch.path("mdx/Sample.ipa")).map(\.nameString)
        #expect(inner.contains(bundle + "policy_metadata.xml"))
        let oracle = try Command.run("python3", [Fixtures.path("png/oracle.py"), scratch.path("mdx/icon.png"), scratch.path("icon.rgba")])
        #expect(oracle.status == 0, "\(oracle.stderr)")
        let metadata = try #require(try PropertyListSerialization.propertyList(
            from: Data(try Fixtures.bytesAt(scratch.path("mdx/metadata.plist"))), format: nil) as? [String: Any])
        #expect(metadata["BundleIdentifier"] as? String == "com.example.sample")
        #expect(metadata["AppMode"] as? String == "general")
        #expect(metadata["ToolkitVersion"] as? String == "20.10.5")
        #expect(metadata["MinimumOSVersion"] as? String == "15.0")
        #expect(metadata["ShortVersion"] as? String == "1.2.0")
        #expect(scratch.listing().filter { !$0.hasPrefix("mdx") } == ["Sample.ipa", "Sample.mdx", "icon.rgba"])
    }

    @Test(arguments: HostileArchives.all)
    func hostileArchivesWriteNothing(_ hostile: HostileArchives.Case) throws {
        let scratch = try ScratchDirectory("wrap")
        let input = try scratch.write("in.ipa", hostile.bytes)
        for format in ["ipa", "mdx"] {
            let result = try Command.ipawrap(["wrap", input, "-o", scratch.path("out.\(format)"), "--format", format])
            #expect(result.status == 65)
            #expect(result.stderr.contains("error[\(hostile.code)]"))
        }
        #expect(scratch.listing() == ["in.ipa"])
    }

    @Test func aPolicyFileCanBeEmbeddedInsteadOfATemplate() throws {
        let scratch = try ScratchDirectory("wrap")
        let input = try scratch.write("Sample.ipa", app().bytes())
        let policy = Fixtures.packageRoot.appendingPathComponent("Templates/policies/general.xml").path
        let result = try Command.ipawrap(["wrap", input, "-o", scratch.path("out.ipa"), "--policy", policy, "--mode", "premium"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("POLICY_MODE_DIFFERS"))
        let invalid = Fixtures.path("policy/invalid/XML_MALFORMED.unclosed-element.xml")
        let refused = try Command.ipawrap(["wrap", input, "-o", scratch.path("bad.ipa"), "--policy", invalid])
        #expect(refused.status == 65)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("bad.ipa")))
    }
}
