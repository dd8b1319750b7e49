import FormatSupport
import Foundation
import ProvisioningProfile

/// The provisioning profiles a command is given (`--profile PATH`, `--profile BUNDLE_ID=PATH`,
/// `--profiles-dir DIR`), each file read and decoded once, before any input: the command line
/// loads the set as it resolves `ToolData`, and every inspection of a run (every input of a
/// batch) assigns from it. Each profile keeps the bytes it was decoded from, so what `sign` and
/// `wrap --sign` embed is the profile that was checked, whatever happens to the file meanwhile.
///
/// A file that cannot be read is an I/O error (`PROFILE_FILE_UNREADABLE`, exit 74); one that is
/// not a profile, or larger than `ProvisioningProfile.maximumSize`, is invalid input (exit 65).
public struct ProfileSet: Sendable {
    /// One profile file, as read.
    public struct Loaded: Sendable {
        /// The path as given (or the folder joined with the file's name).
        public let path: String
        public let profile: ProvisioningProfile
        /// The file's bytes, from which `profile` was decoded.
        public let bytes: [UInt8]
    }

    /// More `.mobileprovision` files than any team keeps; bounds the folder scan.
    public static let maximumDirectoryProfiles = 4096

    /// `--profile PATH`: the main app's.
    public private(set) var app: Loaded?
    /// `--profile BUNDLE_ID=PATH`.
    public private(set) var byBundleID: [String: Loaded] = [:]
    /// `--profiles-dir`, as given.
    public private(set) var directory: String?
    /// The folder's profiles, in file-name order.
    public private(set) var directoryProfiles: [Loaded] = []

    /// No profiles: each bundle is judged with its embedded one.
    public init() {}

    /// Reads every file the options name, each once (a path named twice is read once).
    public init(appProfile: String? = nil, bundleProfiles: [String: String] = [:], directory: String? = nil) throws(ProfileError) {
        var cache: [String: Loaded] = [:]
        func load(_ path: String) throws(ProfileError) -> Loaded {
            if let cached = cache[path] { return cached }
            let (profile, bytes) = try ProvisioningProfile.read(file: path)
            let loaded = Loaded(path: path, profile: profile, bytes: bytes)
            cache[path] = loaded
            return loaded
        }
        if let appProfile { app = try load(appProfile) }
        for (identifier, path) in bundleProfiles.sorted(by: { $0.key < $1.key }) {
            byBundleID[identifier] = try load(path)
        }
        if let directory {
            self.directory = directory
            for path in try Self.profileFiles(in: directory) { directoryProfiles.append(try load(path)) }
        }
    }

    /// Whether no profile was given.
    public var isEmpty: Bool { app == nil && byBundleID.isEmpty && directory == nil }

    /// The `.mobileprovision` files directly in `folder`, sorted by name.
    static func profileFiles(in folder: String) throws(ProfileError) -> [String] {
        guard let kind = FileSystem.kind(of: folder, following: true) else {
            throw ProfileError(.fileUnreadable, "the --profiles-dir folder does not exist", file: folder)
        }
        guard kind == S_IFDIR else {
            throw ProfileError(.fileUnreadable, "--profiles-dir must name a folder, and this is a file", file: folder)
        }
        let names = try FileSystem.names(inFolder: folder, unreadable: { error in
            ProfileError(.fileUnreadable, "the --profiles-dir folder cannot be listed: \(error)", file: folder)
        })
        let profiles = names.filter { $0.lowercased().hasSuffix(".mobileprovision") && !$0.hasPrefix(".") }.sorted()
        guard profiles.count <= maximumDirectoryProfiles else {
            throw ProfileError(
                .tooLarge, "the --profiles-dir folder holds \(profiles.count) profiles, more than the limit of "
                    + "\(maximumDirectoryProfiles)", file: folder)
        }
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        return profiles.map { base + $0 }
    }
}
