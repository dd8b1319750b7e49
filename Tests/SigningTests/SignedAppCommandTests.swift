import Foundation
import Testing
import TestSupport

/// `verify`, `inspect` and `wrap` on an app `sign` wrote (a fat executable, a framework, an app
/// extension, a loose dylib, resources), which sigcheck accepts first: every bundle reported
/// intact and summarised, tampering afterwards reported as the matching finding, and `wrap`
/// naming exactly the seal it breaks.
@Suite struct SignedAppCommandTests {
    /// The app signed in `scratch`, checked by `verify` and sigcheck.
    static func signed(in scratch: ScratchDirectory) throws -> String {
        var app = SignCommandTests.app()
        var armv7 = MachOBuilder()
        armv7.is64Bit = false
        armv7.cpuType = 12
        armv7.cpuSubtype = 9
        armv7.headerPadding = 1024
        var arm64 = MachOBuilder()
        arm64.headerPadding = 1024
        app.executable = MachOBuilder.fat([MachOBuilder.FatSlice(armv7), MachOBuilder.FatSlice(arm64)])
        let input = try scratch.write("input.ipa", app.bytes())
        let output = scratch.path("signed.ipa")
        let result = try SignCommandTests.sign(input, output, scratch)
        try #require(result.status == 0, "\(result.stdout)\(result.stderr)")
        try SignCommandTests.expectVerifies(output)
        return output
    }

    static func verify(_ path: String) throws -> (status: Int32, report: [String: Any], stderr: String) {
        let result = try Command.ipawrap(["verify", path, "--json"])
        let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return (result.status, object as? [String: Any] ?? [:], result.stderr)
    }

    static func errors(_ report: [String: Any]) -> [String] {
        (report["findings"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "error" }.map {
            "\($0["code"] as? String ?? "?") \($0["path"] as? String ?? "")"
        }
    }

    @Test func everyBundleVerifiesIntact() throws {
        let scratch = try ScratchDirectory("signed-app")
        let (status, report, stderr) = try Self.verify(try Self.signed(in: scratch))
        #expect(status == 0, "\(Self.errors(report)) \(stderr)")
        #expect(report["schemaVersion"] as? Int == 2)
        let bundles = report["bundles"] as? [[String: Any]] ?? []
        #expect(bundles.map { $0["kind"] as? String ?? "?" }.sorted() == ["app", "appex", "dylib", "framework"])
        // Innermost first: the app last.
        #expect(bundles.last?["kind"] as? String == "app")
        for bundle in bundles {
            #expect(bundle["signed"] as? Bool == true)
            #expect(bundle["intact"] as? Bool == true)
            #expect(bundle["teamIdentifier"] as? String == "ABCDE12345")
            #expect((bundle["certificate"] as? [String: Any])?["commonName"] as? String == "Apple Distribution: Example Corp (ABCDE12345)")
        }
        let text = try Command.ipawrap(["verify", try Self.signed(in: scratch)])
        #expect(text.status == 0, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains("Payload/Sample.app/Frameworks/Kit.framework  intact"), "\(text.stdout)")
        #expect(text.stdout.contains("Payload/Sample.app/PlugIns/Share.appex  intact"), "\(text.stdout)")
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
                        \(change)
                        data = bytes(data)
                    zout.writestr(info, data)
            """
        let result = try Command.run("python3", ["-c", script, path, output, entry])
        try #require(result.status == 0, "\(result.stderr)")
        return output
    }

    /// Apple's rules2 have no `nested` rule, so the app's seal lists every file of its framework
    /// by digest: a changed framework binary breaks its own pages and the app's seal of that file.
    @Test func aChangedFrameworkBinaryBreaksItsPagesAndItsParentsSeal() throws {
        let scratch = try ScratchDirectory("signed-app")
        let kit = "Payload/Sample.app/Frameworks/Kit.framework/Kit"
        let tampered = try Self.rewrite(try Self.signed(in: scratch), entry: kit, in: scratch, "data[40] ^= 1")
        let (status, report, _) = try Self.verify(tampered)
        #expect(status == 1)
        #expect(Set(Self.errors(report)) == ["SIGNATURE_PAGE_HASH_MISMATCH \(kit)", "SIGNATURE_SEAL_BROKEN \(kit)"])
    }

    @Test func aChangedResourceBreaksTheSeal() throws {
        let scratch = try ScratchDirectory("signed-app")
        let icon = "Payload/Sample.app/AppIcon60x60@2x.png"
        let tampered = try Self.rewrite(try Self.signed(in: scratch), entry: icon, in: scratch, "data[-1] ^= 1")
        let (status, report, _) = try Self.verify(tampered)
        #expect(status == 1)
        #expect(Self.errors(report) == ["SIGNATURE_SEAL_BROKEN \(icon)"])
    }

    @Test func anUnsignedAppIsReportedMissing() throws {
        let scratch = try ScratchDirectory("signed-app")
        var ipa = IPABuilder()
        ipa.signed = false
        let (status, report, _) = try Self.verify(try scratch.write("unsigned.ipa", try ipa.bytes()))
        #expect(status == 1)
        #expect(Self.errors(report).contains("SIGNATURE_MISSING Payload/Sample.app/Sample"), "\(Self.errors(report))")
    }

    @Test func inspectSummarizesEveryBundlesSignature() throws {
        let scratch = try ScratchDirectory("signed-app")
        let result = try Command.ipawrap(["inspect", try Self.signed(in: scratch), "--json"])
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
            #expect((signature["hashTypes"] as? [String])?.contains("SHA-256") == true)
            #expect((signature["certificateSubject"] as? String)?.contains("CN=Apple Distribution: Example Corp (ABCDE12345)") == true)
            #expect(signature["certificateExpiry"] is String)
        }
    }

    @Test func wrapNamesTheSealItBreaksAndVerifyFindsExactlyThoseFiles() throws {
        let scratch = try ScratchDirectory("signed-app")
        let output = scratch.path("wrapped.ipa")
        let wrap = try Command.ipawrap(["wrap", try Self.signed(in: scratch), "-o", output, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(wrap.stdout.utf8)) as? [String: Any], "\(wrap.stderr)")
        let invalidated = (report["findings"] as? [[String: Any]] ?? []).filter { $0["code"] as? String == "SIGNATURE_INVALIDATED" }
        #expect(invalidated.count == 1)
        let message = invalidated.first?["message"] as? String ?? ""
        #expect(message.contains("MDXPolicy.bundle/Info.plist and MDXPolicy.bundle/policy_metadata.xml are not in the seal"), "\(message)")
        try #require(wrap.status == 0, "\(report["findings"] ?? "")")
        let (status, verified, _) = try Self.verify(output)
        #expect(status == 1)
        #expect(Self.errors(verified) == [
            "SIGNATURE_UNSEALED_FILE Payload/Sample.app/MDXPolicy.bundle/Info.plist",
            "SIGNATURE_UNSEALED_FILE Payload/Sample.app/MDXPolicy.bundle/policy_metadata.xml",
        ])
    }
}

/// Names the skip of sigcheck's assertions in the signing tests (`SigcheckOracle.expectAccepted`
/// does nothing without `../shared`), and shows the checker runs where it is.
@Suite struct SigcheckPresenceTests {
    @Test(.enabled(if: SigcheckOracle.isAvailable, SigcheckOracle.skipNote))
    func sigcheckChecksTheSignedOutputs() throws {
        let scratch = try ScratchDirectory("sigcheck-presence")
        let unsigned = try scratch.write("unsigned.ipa", { var ipa = IPABuilder(); ipa.signed = false; return try ipa.bytes() }())
        #expect(try SigcheckOracle.problemsWithTestCA(in: unsigned).contains { $0.hasPrefix("UNSIGNED ") })
    }
}
