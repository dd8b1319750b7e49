import Foundation
import TestSupport
import Testing

/// The generated Xcode-shaped app (`XcodeShapedApp`) is what it claims to be, by readers that
/// share no code with it or with ipawrap: sigcheck (page hashes, special slots, the seal both
/// ways, the CMS chain and CDHashes, team, entitlements) accepts everything but the files its
/// trimmed seal lists, and Python's plistlib reads its binary Info.plist and its seal.
@Suite struct XcodeShapedAppTests {
    @Test(.enabled(if: SigcheckOracle.isAvailable, SigcheckOracle.skipNote))
    func sigcheckFindsOnlyTheTrimmedFiles() throws {
        let scratch = try ScratchDirectory("xcode-shaped")
        let app = "\(XcodeShapedApp.appName).app"
        for (input, shown) in [(try XcodeShapedApp.folder(in: scratch).path, app), (try XcodeShapedApp.ipa(in: scratch), "Payload/" + app)] {
            let problems = try SigcheckOracle.problemsWithTestCA(in: input)
            let expected = XcodeShapedApp.trimmed.map { "SEAL \(shown): \($0) is sealed but missing" }
            #expect(problems.sorted() == expected.sorted())
        }
    }

    @Test func plistlibReadsABinaryInfoPlistWithoutIconKeys() throws {
        let scratch = try ScratchDirectory("xcode-shaped")
        let info = try scratch.write("Info.plist", try XcodeShapedApp.bytes("Info.plist"))
        let seal = try scratch.write("CodeResources", try XcodeShapedApp.bytes("_CodeSignature/CodeResources"))
        let script = """
            import plistlib, sys
            data = open(sys.argv[1], 'rb').read()
            assert data.startswith(b'bplist00'), 'not a binary plist'
            info = plistlib.loads(data)
            print(info['CFBundleIdentifier'], info['CFBundleExecutable'], info['MinimumOSVersion'])
            print(sorted(key for key in info if 'Icon' in key))
            seal = plistlib.load(open(sys.argv[2], 'rb'))
            print(sorted(seal['files2']))
            print(sorted(seal['files']) == sorted(set(seal['files2']) | {'Info.plist', 'PkgInfo'}))
            """
        let result = try Command.run("python3", ["-c", script, info, seal])
        try #require(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(XcodeShapedApp.bundleIdentifier) \(XcodeShapedApp.appName) 12.0")
        #expect(lines.dropFirst().first == "[]")
        let sealed = try XcodeShapedApp.files().map(\.path).filter {
            !["Info.plist", "PkgInfo", "_CodeSignature/CodeResources", XcodeShapedApp.appName].contains($0)
        }
        let expectedFiles2 = (sealed + XcodeShapedApp.trimmed).sorted()
        #expect(lines.dropFirst(2).first == "[" + expectedFiles2.map { "'\($0)'" }.joined(separator: ", ") + "]")
        #expect(lines.last == "True")
    }
}
