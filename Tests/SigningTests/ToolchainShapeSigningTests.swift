import Foundation
import Testing
import TestSupport

/// `ipawrap sign` on apps in the shapes real toolchains make (`ToolchainShapes`): `check --for
/// sign` passes exactly what `sign` signs, every signed output passes `ipawrap verify` and the
/// independent checker `../shared/oracles/sigcheck.py`, and every Mach-O the build had signed is
/// signed by the new team afterwards (read by a Python oracle that parses the signatures itself).
@Suite struct ToolchainShapeSigningTests {
    static let newTeam = "ABCDE12345"

    /// Profiles for `ids`, of the test team (or the other team), listing its certificates, in a folder.
    static func profilesFolder(_ ids: [String], in scratch: ScratchDirectory, otherTeam: Bool = false) throws -> String {
        let folder = scratch.path(otherTeam ? "other-profiles" : "profiles")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for id in ids {
            var builder = otherTeam
                ? ProfileBuilder(bundlePattern: id, team: "ZYXWV98765", teamName: "Other Company")
                : ProfileBuilder(bundlePattern: id)
            builder.name = "\(id) Ad Hoc"
            builder.getTaskAllow = false
            builder.developerCertificates = (otherTeam ? ["other-team"] : ["distribution", "distribution-ec"]).compactMap {
                try? SigningFixtures.certificateDER($0)
            }
            if id.hasSuffix(".Clip") {
                builder.extraEntitlements = [
                    "com.apple.developer.parent-application-identifiers": ["ABCDE12345.com.example.sample"],
                    "com.apple.developer.on-demand-install-capable": true,
                ]
            }
            try Data(try builder.signed()).write(to: URL(fileURLWithPath: folder + "/\(id).mobileprovision"))
        }
        return folder
    }

    static func signArguments(
        _ input: String, _ output: String, profiles: String, scratch: ScratchDirectory,
        identity: SigningFixtures.PKCS12 = .openssl
    ) throws -> [String] {
        let password = try scratch.write("password.txt", Array((SigningFixtures.password + "\n").utf8))
        return ["sign", input, "-o", output, "--signing-time", "1767225600", "--identity", identity.path,
                "--password-file", password, "--profiles-dir", profiles, "--at", "2026-06-01"]
    }

    /// Every Mach-O file in an IPA (by its magic) and the team IDs of its CodeDirectories (empty
    /// when unsigned), read with Python's zipfile and struct: an oracle that shares no code with
    /// ipawrap.
    static let teamsScript = #"""
    import json, struct, sys, zipfile
    def teams_of(b):
        def thin(m):
            if m[:4] not in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe"): return None
            is64 = m[:4] == b"\xcf\xfa\xed\xfe"
            ncmds, = struct.unpack_from("<I", m, 16)
            p = 32 if is64 else 28
            for _ in range(ncmds):
                cmd, size = struct.unpack_from("<II", m, p)
                if cmd == 0x1D:
                    off, _n = struct.unpack_from("<II", m, p + 8)
                    magic, length, count = struct.unpack_from(">III", m, off)
                    out = []
                    for i in range(count):
                        typ, boff = struct.unpack_from(">II", m, off + 12 + 8 * i)
                        if typ in (0, 0x1000, 0x1001):
                            cd = m[off + boff:]
                            version, = struct.unpack_from(">I", cd, 8)
                            toff = struct.unpack_from(">I", cd, 48)[0] if version >= 0x20200 else 0
                            out.append(cd[toff:cd.index(b"\0", toff)].decode() if toff else None)
                    return out
                p += size
            return []
        if b[:4] == b"\xca\xfe\xba\xbe":
            n, = struct.unpack_from(">I", b, 4)
            res = []
            for i in range(n):
                _c, _s, off, size, _a = struct.unpack_from(">iiIII", b, 8 + 20 * i)
                res += thin(b[off:off + size]) or ["unsigned"]
            return res
        t = thin(b)
        return None if t is None else (t or ["unsigned"])
    z = zipfile.ZipFile(sys.argv[1])
    result = {}
    for info in z.infolist():
        if info.filename.endswith("/") or (info.external_attr >> 16) & 0o170000 == 0o120000: continue
        data = z.read(info)
        t = teams_of(data)
        if t is not None: result[info.filename] = t
    print(json.dumps(result, sort_keys=True))
    """#

    static func teams(_ ipa: String) throws -> [String: [String?]] {
        let output = try PythonOracle.run(teamsScript, arguments: [ipa])
        let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: [Any]] ?? [:]
        return object.mapValues { $0.map { $0 as? String } }
    }

    static let shapes = ToolchainShapes.signable()

    @Test(arguments: shapes.map(\.name))
    func signsEveryPieceOfCode(_ name: String) throws {
        let shape = try #require(Self.shapes.first { $0.name == name })
        let scratch = try ScratchDirectory("shape-\(name)")
        let input = try scratch.write("\(name).ipa", shape.builder.bytes())
        let output = scratch.path("\(name).signed.ipa")
        let profiles = try Self.profilesFolder(shape.profiledBundleIDs, in: scratch)

        let check = try Command.ipawrap(["check", input, "--for", "sign", "--profiles-dir", profiles, "--at", "2026-06-01"])
        #expect(check.status == 0, "check --for sign: \(check.stdout)\(check.stderr)")
        let signed = try Command.ipawrap(try Self.signArguments(input, output, profiles: profiles, scratch: scratch))
        try #require(signed.status == 0, "sign: \(signed.stdout)\(signed.stderr)")

        try SignCommandTests.expectVerifies(output)
        if SigcheckOracle.isAvailable {
            #expect(try SigcheckOracle.problemsWithTestCA(in: output, team: Self.newTeam) == [])
        }
        // Every Mach-O the build signed is signed by the new team now; Apple's platform code
        // (SwiftSupport/, _WatchKitStub/, the stubs an App Store export carries beside the app)
        // is left byte for byte.
        let before = try Self.teams(input)
        let after = try Self.teams(output)
        let stored = { (path: String) in
            Dictionary(try ZipOracle.entries(path).map { ($0.nameString, $0.rawSHA256) }, uniquingKeysWith: { first, _ in first })
        }
        let inputEntries = try stored(input)
        let outputEntries = try stored(output)
        for (path, teams) in before.sorted(by: { $0.key < $1.key }) {
            if ["SwiftSupport/", "WatchKitSupport2/", "MessagesApplicationSupport/"].contains(where: path.hasPrefix)
                || path.contains("/_WatchKitStub/")
            {
                #expect(inputEntries[path] == outputEntries[path], "\(path) must stay as Apple signed it")
                continue
            }
            let now = after[path] ?? []
            #expect(!teams.isEmpty && now.allSatisfy { $0 == Self.newTeam }, "\(path): \(teams) → \(now)")
        }
    }

    @Test func checkAndSignAgreeOnTheWrappingRules() throws {
        // The XCUITest runner has no icon: a rule of wrapping, an error for wrap, a warning for sign.
        let shape = ToolchainShapes.xcuitestRunner()
        let scratch = try ScratchDirectory("shape-gates")
        let input = try scratch.write("runner.ipa", shape.builder.bytes())
        let profiles = try Self.profilesFolder(shape.profiledBundleIDs, in: scratch)
        let forWrap = try Command.ipawrap(["check", input, "--profiles-dir", profiles, "--at", "2026-06-01", "--json"])
        #expect(forWrap.status == 1)
        #expect(forWrap.stdout.contains("\"ICON_NOT_FOUND\""))
        let forSign = try Command.ipawrap(["check", input, "--for", "sign", "--profiles-dir", profiles, "--at", "2026-06-01", "--json"])
        #expect(forSign.status == 0, "\(forSign.stdout)")
        let report = try JSONSerialization.jsonObject(with: Data(forSign.stdout.utf8)) as? [String: Any]
        let icon = (report?["findings"] as? [[String: Any]] ?? []).first { $0["code"] as? String == "ICON_NOT_FOUND" }
        #expect(icon?["severity"] as? String == "warning")
        let wrap = try Command.ipawrap(["wrap", input, "-o", scratch.path("wrapped.ipa"), "--profiles-dir", profiles, "--at", "2026-06-01"])
        #expect(wrap.status == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("wrapped.ipa")))
    }

    /// Xcode 15's mergeable libraries: a framework cut down to its resources, which nothing
    /// loads, is an info and signs; the same folder when the app loads it is EXECUTABLE_MISSING,
    /// which stops `sign` (dyld would stop the app at launch).
    /// The shape's IPA and profiles in `scratch`, and the findings of `check --for sign`, which must pass.
    static func checkedForSigning(
        _ shape: ToolchainShapes.Shape, in scratch: ScratchDirectory, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (input: String, profiles: String, findings: [[String: Any]]) {
        let input = try scratch.write("\(shape.name).ipa", shape.builder.bytes())
        let profiles = try profilesFolder(shape.profiledBundleIDs, in: scratch)
        let check = try Command.ipawrap(["check", input, "--for", "sign", "--profiles-dir", profiles, "--at", "2026-06-01", "--json"])
        #expect(check.status == 0, "\(check.stdout)", sourceLocation: sourceLocation)
        let report = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any]
        return (input, profiles, report?["findings"] as? [[String: Any]] ?? [])
    }

    @Test func mergedFrameworksSignAndOnesTheAppLoadsDoNot() throws {
        let shape = ToolchainShapes.mergedFrameworks()
        let scratch = try ScratchDirectory("shape-merged")
        let (input, profiles, findings) = try Self.checkedForSigning(shape, in: scratch)
        let merged = findings.filter { $0["code"] as? String == "FRAMEWORK_CODE_MERGED" }
        #expect(merged.map { $0["path"] as? String } == [
            "Payload/Merged.app/Frameworks/Feature.framework", "Payload/Merged.app/Frameworks/Orders.framework",
            "Payload/Merged.app/Frameworks/Search.framework",
        ])
        #expect(merged.allSatisfy { $0["severity"] as? String == "info" })
        // The cut-down frameworks' files, their old signature among them, stay byte for byte.
        let output = scratch.path("merged.signed.ipa")
        let signed = try Command.ipawrap(try Self.signArguments(input, output, profiles: profiles, scratch: scratch))
        try #require(signed.status == 0, "\(signed.stdout)\(signed.stderr)")
        let before = Dictionary(try ZipOracle.entries(input).map { ($0.nameString, $0.rawSHA256) }, uniquingKeysWith: { a, _ in a })
        let after = Dictionary(try ZipOracle.entries(output).map { ($0.nameString, $0.rawSHA256) }, uniquingKeysWith: { a, _ in a })
        let cutDown = before.keys.filter { path in
            ["Feature", "Orders", "Search"].contains { path.contains("/\($0).framework/") } && !path.hasSuffix("/")
        }
        #expect(cutDown.count == 24)
        for path in cutDown { #expect(before[path] == after[path], "\(path)") }

        // The app loads Feature.framework/Feature, which is not there.
        var loading = shape.builder
        loading.executable = ToolchainShapes.code(
            signedAs: "com.example.merged",
            links: [.init("@rpath/Kit.framework/Kit"), .init("@rpath/Feature.framework/Feature"),
                    .init("@rpath/Search.framework/Search", useFlags: 0x08)])
        let broken = try scratch.write("loads-missing.ipa", loading.bytes())
        let refused = scratch.path("loads-missing.signed.ipa")
        let sign = try Command.ipawrap(try Self.signArguments(broken, refused, profiles: profiles, scratch: scratch))
        #expect(sign.status == 1)
        #expect(sign.stdout.contains("EXECUTABLE_MISSING: Payload/Merged.app/Frameworks/Feature.framework: CFBundleExecutable names 'Feature'"), "\(sign.stdout)")
        // Delayed initialisation is no weak link: the binary must be there.
        #expect(sign.stdout.contains("EXECUTABLE_MISSING: Payload/Merged.app/Frameworks/Search.framework: CFBundleExecutable names 'Search'"), "\(sign.stdout)")
        #expect(!sign.stdout.contains("Frameworks/Orders.framework: CFBundleExecutable"), "a weak link may be missing: \(sign.stdout)")
        #expect(!FileManager.default.fileExists(atPath: refused))
    }

    /// A debug build with mergeable libraries: the binaries in `ReexportedBinaries/` are what the
    /// app loads, so the cut-down frameworks are FRAMEWORK_CODE_MERGED and nothing is a warning.
    @Test func aDebugBuildOfMergeableLibrariesChecksClean() throws {
        let scratch = try ScratchDirectory("shape-merged-debug")
        let findings = try Self.checkedForSigning(ToolchainShapes.mergeableLibrariesDebug(), in: scratch).findings.filter {
            !["ICON_NOT_FOUND", "DATA_PROTECTION_NOT_ENABLED"].contains($0["code"] as? String)
        }
        #expect(findings.map { "\($0["code"] ?? "") \($0["path"] ?? "")" } == ["FRAMEWORK_CODE_MERGED Payload/Merged.app/Frameworks/Feature.framework"])
    }

    @Test(arguments: [true, false])
    func simulatorBuildsAreRefusedEverywhere(_ appleSilicon: Bool) throws {
        let shape = ToolchainShapes.simulatorBuild(appleSilicon: appleSilicon)
        let scratch = try ScratchDirectory("shape-simulator")
        let input = try scratch.write("sim.ipa", shape.builder.bytes())
        let profiles = try Self.profilesFolder(shape.profiledBundleIDs, in: scratch)
        for purpose in ["wrap", "sign"] {
            let check = try Command.ipawrap(["check", input, "--for", purpose, "--profiles-dir", profiles, "--at", "2026-06-01"])
            #expect(check.status == 1)
            #expect(check.stdout.contains("PLATFORM_SIMULATOR"))
        }
        let output = scratch.path("sim.signed.ipa")
        let signed = try Command.ipawrap(try Self.signArguments(input, output, profiles: profiles, scratch: scratch))
        #expect(signed.status == 1)
        #expect(signed.stdout.contains("PLATFORM_SIMULATOR"))
        #expect(!FileManager.default.fileExists(atPath: output))
        let wrap = try Command.ipawrap(["wrap", input, "-o", scratch.path("w.ipa"), "--profiles-dir", profiles, "--at", "2026-06-01"])
        #expect(wrap.status == 1)
        #expect(wrap.stdout.contains("PLATFORM_SIMULATOR"))
    }

    @Test func appStoreDownloadsAreRefusedBySignAsByCheck() throws {
        let shape = ToolchainShapes.appStoreDownload()
        let scratch = try ScratchDirectory("shape-store")
        let input = try scratch.write("store.ipa", shape.builder.bytes())
        let profiles = try Self.profilesFolder(shape.profiledBundleIDs, in: scratch)
        let check = try Command.ipawrap(["check", input, "--for", "sign", "--profiles-dir", profiles, "--at", "2026-06-01"])
        #expect(check.status == 1)
        #expect(check.stdout.contains("APP_ENCRYPTED"))
        let output = scratch.path("store.signed.ipa")
        let signed = try Command.ipawrap(try Self.signArguments(input, output, profiles: profiles, scratch: scratch))
        #expect(signed.status == 1)
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func verifyNamesNestedCodeOfAnotherTeam() throws {
        // The runner signed by the test team, with its test bundle taken from a signing by another team.
        let shape = ToolchainShapes.xcuitestRunner()
        let scratch = try ScratchDirectory("shape-team")
        let input = try scratch.write("runner.ipa", shape.builder.bytes())
        let ours = scratch.path("ours.ipa")
        let theirs = scratch.path("theirs.ipa")
        let mixed = scratch.path("mixed.ipa")
        let profiles = try Self.profilesFolder(shape.profiledBundleIDs, in: scratch)
        let otherProfiles = try Self.profilesFolder(shape.profiledBundleIDs, in: scratch, otherTeam: true)
        let signOurs = try Command.ipawrap(try Self.signArguments(input, ours, profiles: profiles, scratch: scratch))
        try #require(signOurs.status == 0, "\(signOurs.stdout)\(signOurs.stderr)")
        let signTheirs = try Command.ipawrap(
            try Self.signArguments(input, theirs, profiles: otherProfiles, scratch: scratch, identity: .otherTeam))
        try #require(signTheirs.status == 0, "\(signTheirs.stdout)\(signTheirs.stderr)")
        let xctest = "Payload/AppUITests-Runner.app/PlugIns/AppUITests.xctest/"
        try ZipOracle.swapEntries(under: xctest, of: ours, from: theirs, to: mixed)

        let verify = try Command.ipawrap(["verify", mixed, "--json"])
        #expect(verify.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any]
        let mismatches = (report?["findings"] as? [[String: Any]] ?? []).filter { $0["code"] as? String == "SIGNATURE_TEAM_MISMATCH" }
        #expect(mismatches.map { $0["path"] as? String } == [String(xctest.dropLast())])
        if SigcheckOracle.isAvailable {
            let problems = try SigcheckOracle.problems(in: mixed)
            #expect(problems.contains { $0.hasPrefix("TEAM ") && $0.contains("AppUITests.xctest/AppUITests") }, "\(problems)")
        }
    }
}
