import Foundation
import Testing
import TestSupport

/// Where `sign` writes what Xcode writes: the whole chain in every CMS, every CodeDirectory in
/// CDHashes2, a dylib's embedded Info.plist bound in slot 1, hash types by deployment target; and
/// what `check` and `verify` say about code the bundle model used to miss.
@Suite struct XcodeLikeSignatureTests {
    /// Reads every Mach-O of an IPA with sigcheck's own parsers (`../shared/oracles/sigcheck.py`,
    /// imported as a module): per file, per slice, the CodeDirectories' hash types, whether slot 1
    /// is set and equals the hash of the slice's `__TEXT,__info_plist`, and the CMS certificates.
    static let anatomyScript = #"""
    import hashlib, json, struct, subprocess, sys, tempfile, os, zipfile
    sys.path.insert(0, sys.argv[2])
    import sigcheck
    z = zipfile.ZipFile(sys.argv[1])
    out = {}
    for info in z.infolist():
        if info.filename.endswith("/") or (info.external_attr >> 16) & 0o170000 == 0o120000: continue
        data = z.read(info)
        try:
            slices = sigcheck.macho_slices(data)
        except ValueError:
            continue
        if not slices: continue
        report = []
        for arch, _off, m in slices:
            _ft, segs, cs, embedded = sigcheck.load_commands(m)
            if cs is None:
                report.append({"arch": arch, "signed": False}); continue
            sb = m[cs[0]:cs[0] + cs[1]]
            _magic, _length, count = struct.unpack_from(">III", sb, 0)
            blobs = {}
            for i in range(count):
                typ, off = struct.unpack_from(">II", sb, 12 + 8 * i)
                blobs[typ] = sb[off:off + struct.unpack_from(">I", sb, off + 4)[0]]
            cds = [sigcheck.parse_cd(blobs[t]) for t in sigcheck.CD_SLOTS if t in blobs]
            slot1 = []
            for cd in cds:
                have = cd["special"].get(1)
                if have is None or not any(have): slot1.append("unset")
                elif embedded is not None and sigcheck._hash(cd["htype"], embedded)[:cd["hsize"]] == have: slot1.append("embedded")
                else: slot1.append("other")
            certificates = 0
            cms = blobs.get(0x10000)
            if cms is not None and len(cms) > 8:
                with tempfile.NamedTemporaryFile(delete=False) as f:
                    f.write(cms[8:])
                p = subprocess.run(["openssl", "pkcs7", "-inform", "DER", "-in", f.name, "-print_certs", "-noout"],
                                   capture_output=True, text=True)
                os.unlink(f.name)
                certificates = p.stdout.count("subject=")
            report.append({"arch": arch, "signed": True, "hashes": [sigcheck.HNAME[c["htype"]] for c in cds],
                           "slot1": slot1, "embedded": embedded is not None, "certificates": certificates})
        out[info.filename] = report
    print(json.dumps(out, sort_keys=True))
    """#

    struct Slice: Decodable {
        let arch: String
        let signed: Bool
        let hashes: [String]?
        let slot1: [String]?
        let embedded: Bool?
        let certificates: Int?
    }

    static func anatomy(_ ipa: String) throws -> [String: [Slice]] {
        let output = try PythonOracle.run(anatomyScript, arguments: [ipa, SharedFolder.path("oracles")])
        return try JSONDecoder().decode([String: [Slice]].self, from: Data(output.utf8))
    }

    static func signShape(
        _ shape: ToolchainShapes.Shape, in scratch: ScratchDirectory, identity: String = SigningFixtures.PKCS12.openssl.path,
        environment: [String: String] = [:]
    ) throws -> String {
        let input = try scratch.write("\(shape.name).ipa", shape.builder.bytes())
        let output = scratch.path("\(shape.name).signed.ipa")
        let profiles = try ToolchainShapeSigningTests.profilesFolder(shape.profiledBundleIDs, in: scratch)
        var arguments = try ToolchainShapeSigningTests.signArguments(input, output, profiles: profiles, scratch: scratch)
        if let index = arguments.firstIndex(of: "--identity") { arguments[index + 1] = identity }
        let result = try Command.ipawrap(arguments, environment: environment)
        try #require(result.status == 0, "\(result.stdout)\(result.stderr)")
        return output
    }

    @Test(.enabled(if: SigcheckOracle.isAvailable, SigcheckOracle.skipNote))
    func dylibsBindTheirEmbeddedInfoPlistAndEverySignatureCarriesTheWholeChain() throws {
        let scratch = try ScratchDirectory("xcode-like-swift")
        let output = try Self.signShape(ToolchainShapes.swiftAndLooseCode(), in: scratch)
        let anatomy = try Self.anatomy(output)
        let dylibs = anatomy.filter { $0.key.contains(".app/Frameworks/libswift") }
        #expect(dylibs.count == 4)
        for (path, slices) in dylibs {
            for slice in slices {
                #expect(slice.embedded == true && slice.slot1 == ["embedded"], "\(path): \(slice)")
            }
        }
        for (path, slices) in anatomy where !path.hasPrefix("SwiftSupport/") {
            for slice in slices {
                // Leaf, intermediate and root, as Xcode's signatures carry them.
                #expect(slice.certificates == 3, "\(path)")
            }
        }
    }

    @Test(.enabled(if: SigcheckOracle.isAvailable, SigcheckOracle.skipNote))
    func aFileWithoutTheRootGetsItFromTemplates() throws {
        // A .p12 with the leaf and its intermediate only, as some export tools write it.
        let scratch = try ScratchDirectory("xcode-like-chain")
        let p12 = scratch.path("leaf-and-wwdr.p12")
        _ = try SigningFixtures.openssl([
            "pkcs12", "-export", "-inkey", SigningFixtures.path("distribution.key.pem"), "-in",
            SigningFixtures.path("distribution.pem"), "-certfile", SigningFixtures.path("wwdr.pem"), "-passout",
            "pass:" + SigningFixtures.password, "-out", p12,
        ])
        let templates = scratch.path("Templates")
        try FileManager.default.copyItem(atPath: Fixtures.packageRoot.appendingPathComponent("Templates").path, toPath: templates)
        for (name, stand) in [("AppleRootCA.cer", "root.cer"), ("AppleWWDRCAG3.cer", "wwdr.cer")] {
            try FileManager.default.removeItem(atPath: templates + "/certificates/" + name)
            try FileManager.default.copyItem(atPath: SigningFixtures.path(stand), toPath: templates + "/certificates/" + name)
        }
        let output = try Self.signShape(
            ToolchainShapes.preferenceBundles(), in: scratch, identity: p12, environment: ["IPAWRAP_TEMPLATES": templates])
        for (path, slices) in try Self.anatomy(output) {
            #expect(slices.allSatisfy { $0.certificates == 3 }, "\(path): \(slices)")
        }
        #expect(try SigcheckOracle.problemsWithTestCA(in: output) == [])
    }

    @Test(.enabled(if: SigcheckOracle.isAvailable, SigcheckOracle.skipNote), arguments: [true, false])
    func oldDeploymentTargetsGetSHA1AndSHA256(_ xcode4: Bool) throws {
        let scratch = try ScratchDirectory("xcode-like-old")
        let output = try Self.signShape(ToolchainShapes.oldLayout(xcode4: xcode4), in: scratch)
        let anatomy = try Self.anatomy(output)
        let app = xcode4 ? "Legacy4" : "Legacy6"
        let slices = try #require(anatomy["Payload/\(app).app/\(app)"])
        #expect(slices.map(\.arch) == (xcode4 ? ["armv6", "armv7"] : ["armv7", "arm64"]))
        for slice in slices { #expect(slice.hashes == ["sha1", "sha256"], "\(slice)") }
        // The legacy top-level symlink stays a symlink to the new seal.
        let entries = try ZipOracle.entries(output)
        #expect(entries.first { $0.nameString == "Payload/\(app).app/CodeResources" }?.symlinkTarget == "_CodeSignature/CodeResources")
    }

    @Test func anEmptyFrameworkFolderIsSaidOnceAndSignedAround() throws {
        let shape = ToolchainShapes.emptyFrameworkFolder()
        let scratch = try ScratchDirectory("no-code")
        let input = try scratch.write("trimmed.ipa", shape.builder.bytes())
        let check = try Command.ipawrap(["check", input, "--for", "sign", "--json", "--at", "2026-06-01"])
        let report = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any]
        let codes = (report?["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(codes.filter { $0 == "BUNDLE_HAS_NO_CODE" }.count == 1, "\(codes)")
        #expect(!codes.contains("BUNDLE_INFO_PLIST_INVALID") && !codes.contains("BUNDLE_ID_INVALID"))
    }

    @Test func verifyNamesAnUnsignedHelperInsideASignedApp() throws {
        let scratch = try ScratchDirectory("unsigned-helper")
        let signed = try Self.signShape(ToolchainShapes.preferenceBundles(), in: scratch)
        // The same app with an unsigned helper executable added by hand after signing.
        var builder = ToolchainShapes.preferenceBundles().builder
        builder.addFile("Helpers/agent", ToolchainShapes.code(signedAs: nil), mode: 0o100755)
        let withHelper = try scratch.write("helper.ipa", builder.bytes())
        let mixed = scratch.path("mixed.ipa")
        try ZipOracle.swapEntries(under: "Payload/Prefs.app/Helpers/", of: signed, from: withHelper, to: mixed)
        let verify = try Command.ipawrap(["verify", mixed, "--json"])
        #expect(verify.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any]
        let missing = (report?["findings"] as? [[String: Any]] ?? []).filter { $0["code"] as? String == "SIGNATURE_MISSING" }
        #expect(missing.compactMap { $0["path"] as? String } == ["Payload/Prefs.app/Helpers/agent"])
    }

    @Test func bundlesNestedTooDeepAreRefused() throws {
        var builder = IPABuilder()
        builder.addPrimaryIcon()
        var path = "PlugIns"
        for level in 0..<17 { path += "/Level\(level).bundle" }
        builder.addFile(path + "/Resource.txt", Array("deep".utf8))
        let scratch = try ScratchDirectory("nesting")
        let input = try scratch.write("deep.ipa", builder.bytes())
        let result = try Command.ipawrap(["inspect", input])
        #expect(result.status == 65)
        #expect(result.stderr.contains("error[BUNDLE_NESTING_LIMIT]"), "\(result.stderr)")
        // 16 levels are read.
        var shallow = IPABuilder()
        shallow.addPrimaryIcon()
        shallow.addFile(String(path.split(separator: "/").dropLast().joined(separator: "/")) + "/Resource.txt", Array("ok".utf8))
        let fine = try Command.ipawrap(["inspect", try scratch.write("shallow.ipa", shallow.bytes())])
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}
