import Foundation
import Testing
import TestSupport

/// Signed apps tampered with where a signature reader could take "absent" for "nothing to check"
/// (issue 27, class 1): each must fail `verify` with the finding that names what is wrong.
@Suite struct TamperedSignatureTests {
    /// Rewrites one entry of an IPA with Python's zipfile: `op` patches the thin Mach-O's signature.
    static let tamper = #"""
    import struct, sys, zipfile
    src, dst, member, op = sys.argv[1:5]
    zin = zipfile.ZipFile(src)
    b = bytearray(zin.read(member))
    ncmds, = struct.unpack_from("<I", b, 16)
    p = 32
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", b, p)
        if cmd == 0x1D:
            off, _size = struct.unpack_from("<II", b, p + 8)
        p += size
    count, = struct.unpack_from(">I", b, off + 8)
    cd = None
    for i in range(count):
        typ, boff = struct.unpack_from(">II", b, off + 12 + 8 * i)
        if typ == 0: cd = off + boff
    if op == "no-code-directory":
        struct.pack_into(">I", b, off + 8, 0)
        b[off // 2] ^= 0xFF
    elif op == "unbound-seal":
        hoff, = struct.unpack_from(">I", b, cd + 16)
        hsize = b[cd + 36]
        b[cd + hoff - 3 * hsize:cd + hoff - 2 * hsize] = bytes(hsize)
    elif op == "short-code-limit":
        ncode, limit = struct.unpack_from(">II", b, cd + 28)
        struct.pack_into(">II", b, cd + 28, ncode - 1, (ncode - 1) * 4096)
        b[(ncode - 1) * 4096] ^= 0xFF
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename == member:
                if op != "remove": zout.writestr(info, bytes(b))
            else:
                zout.writestr(info, zin.read(info))
    """#

    static func signedSample(_ scratch: ScratchDirectory) throws -> String {
        let input = try scratch.write("Sample.ipa", SignCommandTests.app().bytes())
        let output = scratch.path("Sample.signed.ipa")
        let result = try SignCommandTests.sign(input, output, scratch)
        try #require(result.status == 0, "\(result.stdout)\(result.stderr)")
        return output
    }

    static func findings(_ ipa: String) throws -> (status: Int32, findings: [(code: String, path: String, message: String)]) {
        let result = try Command.ipawrap(["verify", ipa, "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let findings = (report?["findings"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "error" }.map {
            (code: $0["code"] as? String ?? "", path: $0["path"] as? String ?? "", message: $0["message"] as? String ?? "")
        }
        return (result.status, findings)
    }

    @Test(arguments: [
        ("no-code-directory", "SIGNATURE_MALFORMED", "holds no CodeDirectory"),
        ("unbound-seal", "SIGNATURE_SPECIAL_SLOT_MISMATCH", "_CodeSignature/CodeResources is there, but"),
        ("short-code-limit", "SIGNATURE_PAGE_HASH_MISMATCH", "the bytes between are not signed"),
        ("remove", "SIGNATURE_MISSING", "the executable its Info.plist names is not there"),
    ])
    func tamperedCodeNeverVerifies(_ operation: String, _ code: String, _ words: String) throws {
        let scratch = try ScratchDirectory("tampered")
        let signed = try Self.signedSample(scratch)
        let tampered = scratch.path("tampered.ipa")
        _ = try PythonOracle.run(Self.tamper, arguments: [signed, tampered, "Payload/Sample.app/Sample", operation])
        let (status, findings) = try Self.findings(tampered)
        #expect(status == 1)
        #expect(findings.contains { $0.code == code && $0.message.contains(words) }, "\(operation): \(findings)")
    }
}
