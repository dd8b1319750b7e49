/// Where a finding is: a path inside the IPA, or a file on disk (a profile given with `--profile`
/// or found in `--profiles-dir`, or shown with `profile show`). Renderers place the two apart:
/// SARIF nests an archive path in the IPA's artifact and gives a file its own URI.
public enum FindingLocation: Sendable, Hashable {
    /// A path inside the archive, e.g. `Payload/A.app/Info.plist`.
    case archive(String)
    /// A file on disk, as it was given (absolute, or relative to the working folder).
    case file(String)

    /// The path as reports write it (JSON's `"path"`, text, JUnit), whatever its kind.
    public var path: String {
        switch self {
        case .archive(let path), .file(let path): path
        }
    }

    /// The location of a path read back from JSON, which writes only the path: the one place the
    /// kind is guessed. An absolute path is a file on disk; any other is an archive path (an IPA's
    /// entries are relative, `Payload/…`). A relative file given on the command line reads back as
    /// an archive path, which only SARIF of a merged report could show.
    public init(recordedPath path: String) {
        self = path.hasPrefix("/") ? .file(path) : .archive(path)
    }
}
