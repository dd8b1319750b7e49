import ArgumentParser
import FormatSupport
import Foundation
import ToolData
import PropertyList
import Signing
import SigningIdentity

/// The identity and signing options of `sign` and `wrap --sign`. A password is never taken
/// from the command line: it comes from a file or an environment variable.
struct SigningOptionGroup: ParsableArguments {
    @Option(help: ArgumentHelp("The signing identity: a PKCS #12 (.p12) file with the certificate and its key.", valueName: "file.p12"))
    var identity: String?

    @Option(help: ArgumentHelp("A file whose first line is the .p12's (or encrypted key's) password.", valueName: "file"))
    var passwordFile: String?

    @Option(help: ArgumentHelp("An environment variable holding the .p12's (or encrypted key's) password.", valueName: "name"))
    var passwordEnv: String?

    @Option(help: ArgumentHelp("The signing certificate as PEM (with --key, instead of --identity); issuers may follow it.", valueName: "pem"))
    var certificate: String?

    @Option(help: ArgumentHelp("The certificate's private key as PEM (with --certificate).", valueName: "pem"))
    var key: String?

    @Option(name: .customLong("entitlements"), help: ArgumentHelp(
        "Sign a bundle with these entitlements (a plist) instead of its profile's; each must be granted by the profile. Repeatable.",
        valueName: "BUNDLE_ID=FILE"))
    var entitlements: [EntitlementsArgument] = []

    // `.unconditional`: `--signing-time -1` is refused for its value, not as a missing one.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The signing time written into every signature, in seconds since 1970 (default: SOURCE_DATE_EPOCH, else now); fixes the output's bytes.",
        valueName: "seconds"))
    var signingTime: String?

    /// Whether any signing option is on the command line: `wrap` and `batch wrap` take them only
    /// with `--sign` (an option that would be ignored is refused instead).
    var isGiven: Bool {
        identity != nil || certificate != nil || key != nil || passwordFile != nil || passwordEnv != nil
            || !entitlements.isEmpty || signingTime != nil
    }

    /// The usage error of a signing option given to `wrap` or `batch wrap` without `--sign`.
    static let needsSign = "the signing options (--identity, --certificate, --key, --password-file, --password-env, --entitlements, --signing-time) need --sign"

    /// Every file these options read, so no output can replace one of them.
    var inputFiles: [String] {
        [identity, passwordFile, certificate, key].compactMap { $0 }
            + entitlements.compactMap(\.file).filter { !$0.isEmpty }
    }

    func validate() throws {
        if identity != nil && (certificate != nil || key != nil) {
            throw ValidationError("--identity cannot be used with --certificate and --key")
        }
        if (certificate == nil) != (key == nil) {
            throw ValidationError("--certificate and --key go together")
        }
        if passwordFile != nil && passwordEnv != nil {
            throw ValidationError("--password-file and --password-env cannot be used together")
        }
    }

    /// Refuses a `--signing-time` or `SOURCE_DATE_EPOCH` that is not seconds since 1970, before
    /// any input; called only by the commands that sign, so a `wrap` without `--sign` never reads
    /// the variable.
    func validateSigningTime() throws {
        _ = try parsedSigningTime()
    }

    /// The request: the identity read (its chain completed from `templates`, the Templates
    /// folder the command resolved) within `timeLimit` (the command's `--time-limit`: loading an
    /// identity runs key derivations whose cost the file decides), the entitlement overrides
    /// parsed, the signing time.
    func request(templates: TemplateDirectory, timeLimit: Double) throws -> SigningRequest {
        let password = try readPassword()
        var signingIdentity: SigningIdentity
        if let identity {
            // The usage asks for a password source; trying an empty password instead would report
            // a wrong password for a file whose password was simply not given.
            guard let password else {
                throw SigningError(
                    .identityOptions, "--identity \(identity) needs its password, and no --password-file or --password-env was given",
                    remedy: "pass one (an empty one for a file exported without a password)")
            }
            signingIdentity = try SigningIdentity(
                pkcs12File: identity, password: password, clock: WorkClock(seconds: timeLimit, file: identity))
        } else if let certificate, let key {
            signingIdentity = try SigningIdentity(
                certificateFile: certificate, keyFile: key, password: password, clock: WorkClock(seconds: timeLimit, file: key))
        } else {
            throw SigningError(
                .identityOptions, "signing needs an identity",
                remedy: "pass --identity FILE.p12 (with --password-file or --password-env), or --certificate and --key")
        }
        // Keychain Access exports the leaf alone: Apple's intermediate and root from Templates
        // complete the chain when they issued it.
        signingIdentity = signingIdentity.completingChain(from: templates.issuerCertificates())
        var overrides: [String: PropertyListDictionary] = [:]
        for argument in entitlements {
            guard let identifier = argument.bundleIdentifier, let file = argument.file else {
                throw SigningError(
                    .entitlementsFile, "--entitlements expects BUNDLE_ID=FILE, got '\(argument.text)'",
                    remedy: "name the bundle ID, an equals sign and the plist file")
            }
            let bytes: [UInt8]
            do {
                bytes = try Self.optionFile(file)
            } catch {
                throw SigningError(
                    .entitlementsFile, "\(file): cannot be read: \(error.detail)",
                    remedy: "name a regular file holding the entitlements as an XML plist")
            }
            let parsed: PropertyList
            do {
                // A key twice is refused: the device and ipawrap could read different grants.
                parsed = try PropertyList(bytes: bytes, limits: PropertyListLimits(refusesDuplicateKeys: true))
            } catch {
                throw SigningError(
                    .entitlementsFile, "\(file) is not a usable property list: \(error.code): \(error)",
                    remedy: "write the entitlements as an XML plist dictionary, each key once")
            }
            guard let dictionary = parsed.root.dictionary else {
                throw SigningError(
                    .entitlementsFile, "\(file) is not a property list holding a dictionary",
                    remedy: "write the entitlements as an XML plist dictionary")
            }
            overrides[identifier] = dictionary
        }
        return SigningRequest(identity: signingIdentity, signingTime: try parsedSigningTime(), entitlements: overrides)
    }

    /// `--signing-time`, else `SOURCE_DATE_EPOCH`, under the one rule of `EpochSeconds`; else now.
    private func parsedSigningTime() throws -> Date {
        guard let seconds = try EpochSeconds.value(
            of: "--signing-time", signingTime, environment: ProcessInfo.processInfo.environment)
        else { return Date() }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private func readPassword() throws -> [UInt8]? {
        if let passwordEnv {
            guard let value = ProcessInfo.processInfo.environment[passwordEnv] else {
                throw SigningError(
                    .identityOptions, "--password-env \(passwordEnv): the environment has no such variable",
                    remedy: "export the variable, or use --password-file")
            }
            return Array(value.utf8)
        }
        if let passwordFile {
            let data: [UInt8]
            do {
                data = try Self.optionFile(passwordFile)
            } catch {
                throw SigningError(
                    .identityOptions, "--password-file \(passwordFile): cannot be read: \(error.detail)",
                    remedy: "name a regular file whose first line is the password")
            }
            let line = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first ?? []
            var bytes = [UInt8](line)
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
            return bytes
        }
        return nil
    }
}

extension SigningOptionGroup {
    /// Larger than any password or entitlements file.
    static let maximumOptionFileSize = 1 << 20

    /// A small file an option names (the password, entitlements), under the rule every input
    /// follows: a regular file, opened without blocking and looked at before any read, so a FIFO
    /// is refused rather than waited on, `/dev/zero` rather than read without end, and a folder
    /// or a file over `maximumOptionFileSize` bytes is named for what it is.
    static func optionFile(_ path: String) throws(FileReadError) -> [UInt8] {
        try FileByteSource.wholeFile(path, limit: maximumOptionFileSize)
    }
}

/// `--entitlements BUNDLE_ID=FILE`, split at its first `=` once, when the arguments are parsed.
/// A value without a bundle ID before the `=` is kept as given and refused when the request is
/// built, as `SIGN_ENTITLEMENTS_FILE` (docs/signing.md) rather than the parser's usage error.
struct EntitlementsArgument: ExpressibleByArgument, Equatable, Sendable {
    /// The value as given.
    let text: String
    /// Nil when the value does not start with `BUNDLE_ID=`.
    let bundleIdentifier: String?
    /// The plist file after the `=`; nil when the value is malformed.
    let file: String?

    init(argument: String) {
        text = argument
        if let equals = argument.firstIndex(of: "="), equals != argument.startIndex {
            bundleIdentifier = String(argument[..<equals])
            file = String(argument[argument.index(after: equals)...])
        } else {
            bundleIdentifier = nil
            file = nil
        }
    }
}
