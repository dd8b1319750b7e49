import Foundation
import MachO
import PropertyList
import TestSupport
import Testing

/// Generated apps (a fat executable, a framework, an app extension, resources) signed by zsign,
/// an independent re-signer, verify as intact through `ipawrap verify`; tampering afterwards
/// gives the matching finding.
@Suite(.enabled(if: ZsignOracle.unavailable == nil, "\(ZsignOracle.unavailable ?? "")"))
struct ZsignSignedTests {
    static let bundleIdentifier = "com.example.sample"

    static func signable(_ fileType: UInt32, _ identifier: String, installName: String? = nil) -> MachOBuilder {
        var builder = installName.map { MachOBuilder.dylib(installName: $0) } ?? MachOBuilder()
        builder.fileType = fileType
        builder.version = .iOS("12.0", sdk: "17.2")
        builder.code = (0..<20000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var signature = MachOBuilder.CodeSignature(identifier: identifier)
        signature.flags = 0x2
        builder.codeSignature = signature
        return builder
    }

    /// The app before signing.
    static func unsigned() -> IPABuilder {
        var armv7 = signable(2, bundleIdentifier)
        armv7.is64Bit = false
        armv7.cpuType = 12
        armv7.cpuSubtype = 9
        var ipa = IPABuilder(appName: "Sample", bundleIdentifier: bundleIdentifier)
        ipa.executable = MachOBuilder.fat([MachOBuilder.FatSlice(armv7), MachOBuilder.FatSlice(signable(2, bundleIdentifier))])
        ipa.addPrimaryIcon()
        ipa.addFile("Base.lproj/Main.storyboardc/Info.plist", Array("<plist/>".utf8))
        ipa.addFile("fr.lproj/Localizable.strings", Array("\"Hello\" = \"Bonjour\";".utf8))
        ipa.addFile("images/logo.dat", (0..<50000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        ipa.addFramework("Kit", bundleIdentifier: "com.example.kit")
        ipa.nested[0].executable = signable(6, "com.example.kit", installName: "@rpath/Kit.framework/Kit").build()
        ipa.addExtension("Share", bundleIdentifier: "com.example.sample.share")
        // The share profile that lists the identity zsign signs with.
        ipa.nested[1].profile = try? ProfileBuilder.signingFixture(.share)
        ipa.nested[1].executable = signable(8, "com.example.sample.share").build()
        return ipa
    }

    /// zsign's signature of `ipa`, written in `scratch`.
    static func signed(_ ipa: IPABuilder, in scratch: ScratchDirectory) throws -> String {
        let input = try scratch.write("input.ipa", try ipa.bytes())
        let profile = try scratch.write("app.mobileprovision", try ProfileBuilder.signingFixture(.app))
        let output = scratch.path("signed.ipa")
        try ZsignOracle.sign(input, output: output, profile: profile)
        return output
    }

    static func verify(_ path: String, _ extra: [String] = []) throws -> (status: Int32, report: [String: Any], stderr: String) {
        let result = try Command.ipawrap(["verify", path, "--json"] + extra)
        let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return (result.status, object as? [String: Any] ?? [:], result.stderr)
    }

    static func errors(_ report: [String: Any]) -> [String] {
        (report["findings"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "error" }.map {
            "\($0["code"] as? String ?? "?") \($0["path"] as? String ?? "")"
        }
    }

    @Test func zsignSignedAppVerifiesIntact() throws {
        let scratch = try ScratchDirectory("verify-zsign")
        let (status, report, stderr) = try Self.verify(try Self.signed(Self.unsigned(), in: scratch))
        #expect(status == 0, "\(Self.errors(report)) \(stderr)")
        #expect(Self.errors(report).isEmpty, "\(report["findings"] ?? "")")
        #expect(report["schemaVersion"] as? Int == 2)
        let bundles = report["bundles"] as? [[String: Any]] ?? []
        #expect(bundles.map { $0["kind"] as? String ?? "?" }.sorted() == ["app", "appex", "framework"])
        // Innermost first: the app last.
        #expect(bundles.last?["kind"] as? String == "app")
        for bundle in bundles {
            #expect(bundle["signed"] as? Bool == true)
            #expect(bundle["teamIdentifier"] as? String == "ABCDE12345")
            #expect((bundle["certificate"] as? [String: Any])?["commonName"] as? String == "Apple Distribution: Example Corp (ABCDE12345)")
        }
    }

    @Test func textReportNamesEveryBundle() throws {
        let scratch = try ScratchDirectory("verify-zsign")
        let result = try Command.ipawrap(["verify", try Self.signed(Self.unsigned(), in: scratch)])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Payload/Sample.app/Frameworks/Kit.framework  intact"), "\(result.stdout)")
        #expect(result.stdout.contains("Payload/Sample.app/PlugIns/Share.appex  intact"), "\(result.stdout)")
    }

    /// Rewrites one entry of a signed IPA (through Python's zipfile, an independent writer).
    static func rewrite(_ path: String, entry: String, in scratch: ScratchDirectory, _ change: String) throws -> String {
        let output = scratch.path("tampered.ipa")
        let script = """
            import sys, zipfile
            source, target, name = sys.argv[1], sys.argv[2], sys.argv[3]
            with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
                for info in zin.infolist():
                    data = zin.read(info)
                    if info.filename == name:
                        data = bytearray(data)
            \(change.split(separator: "\n").map { "            " + $0 }.joined(separator: "\n"))
                        data = bytes(data)
                    zout.writestr(info, data)
            """
        let result = try Command.run("python3", ["-c", script, path, output, entry])
        try #require(result.status == 0, "\(result.stderr)")
        return output
    }

    /// zsign's rules2 have no `nested` rule, so the app's seal lists every file of its framework by
    /// digest: a changed framework binary breaks its own pages and the app's seal of that file.
    @Test func aChangedFrameworkBinaryBreaksItsPagesAndItsParentsSeal() throws {
        let scratch = try ScratchDirectory("verify-zsign")
        let signed = try Self.signed(Self.unsigned(), in: scratch)
        let tampered = try Self.rewrite(signed, entry: "Payload/Sample.app/Frameworks/Kit.framework/Kit", in: scratch, "data[5000] ^= 1")
        let (status, report, _) = try Self.verify(tampered)
        #expect(status == 1)
        #expect(Set(Self.errors(report)) == [
            "SIGNATURE_PAGE_HASH_MISMATCH Payload/Sample.app/Frameworks/Kit.framework/Kit",
            "SIGNATURE_SEAL_BROKEN Payload/Sample.app/Frameworks/Kit.framework/Kit",
        ])
    }

    /// A framework re-signed alone (with a file added) holds by itself, but not in the app's seal,
    /// which lists its files one by one: one finding names the framework, its message the files.
    @Test func aFrameworkResignedAloneBreaksItsParentsSeal() throws {
        let scratch = try ScratchDirectory("verify-zsign")
        let signed = try Self.signed(Self.unsigned(), in: scratch)
        // Another signature of the same framework: its cdhash changes, its own seal holds.
        var other = Self.unsigned()
        other.nested[0].files["extra.dat"] = IPABuilder.File(data: [1, 2, 3])
        let second = try ScratchDirectory("verify-zsign-2")
        let resigned = try Self.signed(other, in: second)
        let output = scratch.path("swapped.ipa")
        try ZipOracle.swapEntries(under: "Payload/Sample.app/Frameworks/Kit.framework/", of: signed, from: resigned, to: output)
        let (status, report, _) = try Self.verify(output)
        #expect(status == 1)
        #expect(Self.errors(report) == ["SIGNATURE_NESTED_MISMATCH Payload/Sample.app/Frameworks/Kit.framework"])
        let message = (report["findings"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
            .first { $0.contains("is not the code this bundle sealed") } ?? ""
        for part in [
            "Frameworks/Kit.framework/Kit was modified", "Frameworks/Kit.framework/_CodeSignature/CodeResources was modified",
            "Frameworks/Kit.framework/extra.dat is not sealed",
        ] {
            #expect(message.contains(part), "\(message)")
        }
        let bundles = report["bundles"] as? [[String: Any]] ?? []
        #expect(bundles.first { $0["kind"] as? String == "framework" }?["intact"] as? Bool == true)
    }

    @Test func aChangedResourceBreaksTheSeal() throws {
        let scratch = try ScratchDirectory("verify-zsign")
        let signed = try Self.signed(Self.unsigned(), in: scratch)
        let tampered = try Self.rewrite(signed, entry: "Payload/Sample.app/images/logo.dat", in: scratch, "data[0] ^= 1")
        let (status, report, _) = try Self.verify(tampered)
        #expect(status == 1)
        #expect(Self.errors(report) == ["SIGNATURE_SEAL_BROKEN Payload/Sample.app/images/logo.dat"])
    }

    @Test func anUnsignedAppIsReportedMissing() throws {
        let scratch = try ScratchDirectory("verify-zsign")
        var ipa = IPABuilder()
        ipa.signed = false
        let path = try scratch.write("unsigned.ipa", try ipa.bytes())
        let (status, report, _) = try Self.verify(path)
        #expect(status == 1)
        #expect(Self.errors(report).contains("SIGNATURE_MISSING Payload/Sample.app/Sample"), "\(Self.errors(report))")
    }
}

/// `inspect` and `wrap` on a zsign-signed app: the signature summary, and the exact seal `wrap` breaks.
@Suite(.enabled(if: ZsignOracle.unavailable == nil, "\(ZsignOracle.unavailable ?? "")"))
struct ZsignSignedInspectTests {
    @Test func inspectSummarizesEveryBundlesSignature() throws {
        let scratch = try ScratchDirectory("verify-zsign")
        let signed = try ZsignSignedTests.signed(ZsignSignedTests.unsigned(), in: scratch)
        let result = try Command.ipawrap(["inspect", signed, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let bundles = try #require(report["bundles"] as? [[String: Any]])
        #expect(bundles.count == 3)
        for bundle in bundles {
            let signature = try #require(bundle["signature"] as? [String: Any], "\(bundle)")
            #expect(signature["signed"] as? Bool == true)
            #expect(signature["adHoc"] as? Bool == false)
            #expect(signature["teamId"] as? String == "ABCDE12345")
            #expect((signature["cdhash"] as? String)?.count == 40)
            #expect(signature["hashTypes"] as? [String] == ["SHA-256"])
            #expect((signature["certificateSubject"] as? String)?.contains("CN=Apple Distribution: Example Corp (ABCDE12345)") == true)
            #expect(signature["certificateExpiry"] is String)
        }
    }

    @Test func wrapNamesTheSealItBreaksAndVerifyFindsExactlyThoseFiles() throws {
        let scratch = try ScratchDirectory("verify-zsign")
        let signed = try ZsignSignedTests.signed(ZsignSignedTests.unsigned(), in: scratch)
        let output = scratch.path("wrapped.ipa")
        let wrap = try Command.ipawrap(["wrap", signed, "-o", output, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(wrap.stdout.utf8)) as? [String: Any], "\(wrap.stderr)")
        let invalidated = (report["findings"] as? [[String: Any]] ?? []).filter { $0["code"] as? String == "SIGNATURE_INVALIDATED" }
        #expect(invalidated.count == 1)
        let message = invalidated.first?["message"] as? String ?? ""
        #expect(message.contains("MDXPolicy.bundle/Info.plist and MDXPolicy.bundle/policy_metadata.xml are not in the seal"), "\(message)")
        try #require(wrap.status == 0, "\(report["findings"] ?? "")")
        let (status, verified, _) = try ZsignSignedTests.verify(output)
        #expect(status == 1)
        #expect(ZsignSignedTests.errors(verified) == [
            "SIGNATURE_UNSEALED_FILE Payload/Sample.app/MDXPolicy.bundle/Info.plist",
            "SIGNATURE_UNSEALED_FILE Payload/Sample.app/MDXPolicy.bundle/policy_metadata.xml",
        ])
    }
}
