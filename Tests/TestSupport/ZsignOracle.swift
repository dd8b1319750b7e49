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

    /// Runs zsign with `arguments`. zsign unpacks an IPA into `<temp>/zsign_folder_<microseconds>`
    /// and removes it when done, so two runs started in the same microsecond (parallel tests) would
    /// share, and delete, one folder: each run gets a temporary folder of its own (`-t`).
    public static func run(_ arguments: [String]) throws -> Command.Result {
        let temporary = try ScratchDirectory("zsign-unpack")
        return try Command.run(try binary(), ["-t", temporary.path] + arguments)
    }

    /// Signs `input` (an .ipa) into `output` with the identity in `p12` (by default the committed
    /// test distribution identity, `SigningFixtures`) and `profile`; zsign's output is returned
    /// when it fails.
    public static func sign(
        _ input: String, output: String, p12: String = SigningFixtures.PKCS12.openssl.path,
        password: String = SigningFixtures.password, profile: String, extraArguments: [String] = []
    ) throws {
        let result = try run(["-q", "-k", p12, "-p", password, "-m", profile, "-o", output] + extraArguments + [input])
        guard result.status == 0, FileManager.default.fileExists(atPath: output) else {
            throw ProfileBuilderError(message: "zsign failed (\(result.status)): \(result.stdout)\(result.stderr)")
        }
    }

    /// Signs a copy of a Mach-O ad hoc (`zsign -a`): the signed bytes, or nil when zsign refused
    /// it (with what it printed).
    public static func signAdHoc(_ bytes: [UInt8]) throws -> (signed: [UInt8]?, output: String) {
        let scratch = try ScratchDirectory("zsign")
        let path = try scratch.write("binary", bytes)
        let result = try run(["-a", path])
        let output = result.stdout + result.stderr
        guard result.status == 0 else { return (nil, output) }
        return (try Fixtures.bytesAt(path), output)
    }
}
