import Foundation

/// zsign (`/work/shared/oracles/zsign`, MIT), an independent C++ re-signer, built once per test
/// process into `.build/oracles/zsign` and run on generated IPAs. Tests using it skip with
/// `unavailable` when the source (absent from CI's clone) or the compiler is missing.
public enum ZsignOracle {
    public static let sourcePath = "/work/shared/oracles/zsign"

    /// Why zsign cannot be built here, or nil.
    public static let unavailable: String? = {
        guard FileManager.default.fileExists(atPath: sourcePath + "/build/linux/Makefile") else {
            return "zsign's source is not at \(sourcePath) (only the development machine has it)"
        }
        for tool in ["g++", "make", "pkg-config", "openssl"] where !Command.exists(tool) {
            return "\(tool) is not installed; zsign cannot be built"
        }
        return nil
    }()

    /// The built binary, or why it could not be built.
    private static let built: Result<String, ProfileBuilderError> = {
        let copy = Fixtures.packageRoot.appendingPathComponent(".build/oracles/zsign").path
        let binary = copy + "/bin/zsign"
        if FileManager.default.isExecutableFile(atPath: binary) { return .success(binary) }
        do {
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.createDirectory(
                atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let copied = try Command.run("cp", ["-R", sourcePath, copy])
            guard copied.status == 0 else { return .failure(ProfileBuilderError(message: "copying zsign failed: \(copied.stderr)")) }
            _ = try Command.run("chmod", ["-R", "u+w", copy])
            let make = try Command.run("make", ["-C", copy + "/build/linux", "-j2"])
            guard make.status == 0, FileManager.default.isExecutableFile(atPath: binary) else {
                return .failure(ProfileBuilderError(message: "building zsign failed: \(make.stderr.suffix(2000))"))
            }
            return .success(binary)
        } catch {
            return .failure(ProfileBuilderError(message: "building zsign failed: \(error)"))
        }
    }()

    public static func binary() throws -> String {
        try built.get()
    }

    /// Signs `input` (an .ipa) into `output` with `identity` and `profile`; zsign's output is
    /// returned when it fails.
    public static func sign(
        _ input: String, output: String, identity: SigningIdentity, profile: String, extraArguments: [String] = []
    ) throws {
        let result = try Command.run(
            try binary(),
            ["-q", "-k", identity.p12Path, "-p", identity.password, "-m", profile, "-o", output] + extraArguments + [input])
        guard result.status == 0, FileManager.default.fileExists(atPath: output) else {
            throw ProfileBuilderError(message: "zsign failed (\(result.status)): \(result.stdout)\(result.stderr)")
        }
    }
}

/// A throwaway signing identity made with openssl: a CA, and a leaf issued by it for code
/// signing, exported with its chain as a .p12.
public struct SigningIdentity: Sendable {
    public let p12Path: String
    public let password: String
    /// The leaf certificate's subject common name, as Apple names development identities.
    public let commonName: String
    public let team: String
    /// The leaf and CA certificates, DER.
    public let leafDER: [UInt8]
    public let caPath: String

    public static func make(
        in scratch: ScratchDirectory, commonName: String = "iPhone Developer: Test Signer (ABCDE12345)",
        team: String = "ABCDE12345"
    ) throws -> SigningIdentity {
        func openssl(_ arguments: [String]) throws {
            let result = try Command.run("openssl", arguments)
            guard result.status == 0 else {
                throw ProfileBuilderError(message: "openssl \(arguments.first ?? "") failed: \(result.stderr)")
            }
        }
        let ca = scratch.path("ca.pem")
        let caKey = scratch.path("ca.key")
        try openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "3650", "-keyout", caKey, "-out", ca,
            "-subj", "/CN=ipawrap Test Root CA/O=ipawrap tests/C=US",
        ])
        let leafKey = scratch.path("leaf.key")
        let request = scratch.path("leaf.csr")
        try openssl([
            "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", leafKey, "-out", request,
            "-subj", "/CN=\(commonName)/OU=\(team)/O=Example Corp/C=US",
        ])
        let extensions = try scratch.write(
            "leaf.cnf",
            Array("keyUsage = critical, digitalSignature\nextendedKeyUsage = critical, codeSigning\nbasicConstraints = critical, CA:false\n".utf8))
        let leaf = scratch.path("leaf.pem")
        try openssl([
            "x509", "-req", "-in", request, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-days", "3650", "-sha256",
            "-extfile", extensions, "-out", leaf,
        ])
        let leafDER = scratch.path("leaf.cer")
        try openssl(["x509", "-in", leaf, "-outform", "DER", "-out", leafDER])
        let p12 = scratch.path("identity.p12")
        let password = "zsign-test"
        try openssl([
            "pkcs12", "-export", "-inkey", leafKey, "-in", leaf, "-certfile", ca, "-out", p12, "-passout", "pass:\(password)",
        ])
        return SigningIdentity(
            p12Path: p12, password: password, commonName: commonName, team: team, leafDER: try Fixtures.bytesAt(leafDER),
            caPath: ca)
    }
}
