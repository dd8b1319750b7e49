import Foundation

/// App folders as users have them before zipping: an unzipped `.app` and an Xcode archive.
public enum AppFolders {
    /// Unzips an IPA with `unzip` (modes and symlinks kept) into `scratch/<folder>/` and returns
    /// the path of its `.app` folder.
    public static func unpack(_ ipa: [UInt8], in scratch: ScratchDirectory, folder: String = "unpacked") throws -> String {
        let archive = try scratch.write(folder + ".zip", ipa)
        let destination = scratch.path(folder)
        let result = try Command.run("unzip", ["-q", archive, "-d", destination])
        guard result.status == 0 else { throw FolderError("unzip failed: \(result.stderr)") }
        let apps = try FileManager.default.contentsOfDirectory(atPath: destination + "/Payload").filter { $0.hasSuffix(".app") }
        guard apps.count == 1, let app = apps.first else { throw FolderError("the IPA holds \(apps) in Payload/") }
        return destination + "/Payload/" + app
    }

    /// An Xcode archive `scratch/<name>.xcarchive/` holding a copy of `app` in
    /// `Products/Applications/`, with the `Info.plist` and `dSYMs/` Xcode writes beside it.
    public static func xcarchive(holding app: String, in scratch: ScratchDirectory, name: String = "Sample") throws -> String {
        let archive = scratch.path(name + ".xcarchive")
        let applications = archive + "/Products/Applications"
        let files = FileManager.default
        try files.createDirectory(atPath: applications, withIntermediateDirectories: true)
        try files.createDirectory(atPath: archive + "/dSYMs/\(name).app.dSYM/Contents", withIntermediateDirectories: true)
        let copy = try Command.run("cp", ["-a", app, applications + "/"])
        guard copy.status == 0 else { throw FolderError("cp failed: \(copy.stderr)") }
        let appName = URL(fileURLWithPath: app).lastPathComponent
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>ApplicationProperties</key><dict>
            <key>ApplicationPath</key><string>Applications/\(appName)</string>
            <key>CFBundleIdentifier</key><string>com.example.sample</string>
            </dict>
            <key>ArchiveVersion</key><integer>2</integer>
            <key>Name</key><string>\(name)</string>
            </dict></plist>
            """
        try Data(plist.utf8).write(to: URL(fileURLWithPath: archive + "/Info.plist"))
        return archive
    }

    public struct FolderError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
