import PropertyList

/// Builds realistic IPAs for tests and for the sample app: an app with an Info.plist (XML or
/// binary), CgBI icons, a Mach-O executable, nested bundles with their own Info.plists,
/// executables and profiles, symlinks, and items outside the app, zipped the way Apple's tools do
/// (folder entries, Unix modes, extended timestamps). Every part can be changed or left out.
public struct IPABuilder: Sendable {
    public struct File: Sendable {
        public var data: [UInt8]
        public var mode: UInt16
        public var symlinkTarget: String?
        /// The CRC-32 both headers declare, when it is not the data's (a damaged entry).
        public var declaredCRC: UInt32?
        /// Written without compression (symlinks always are).
        public var stored: Bool

        public init(
            data: [UInt8], mode: UInt16 = 0o100644, symlinkTarget: String? = nil, declaredCRC: UInt32? = nil, stored: Bool = false
        ) {
            self.data = data
            self.mode = mode
            self.symlinkTarget = symlinkTarget
            self.declaredCRC = declaredCRC
            self.stored = stored
        }
    }

    public struct Nested: Sendable {
        /// Path relative to the app folder, e.g. `PlugIns/Share.appex`.
        public var path: String
        public var info: PropertyListDictionary?
        public var executable: [UInt8]?
        public var profile: [UInt8]?
        public var files: [String: File] = [:]
        public var signed = true

        public init(path: String, info: PropertyListDictionary?, executable: [UInt8]? = IPABuilder.executable(), profile: [UInt8]? = nil) {
            self.path = path
            self.info = info
            self.executable = executable
            self.profile = profile
        }
    }

    public var appName: String
    public var info: PropertyListDictionary
    public var infoPlistFormat: PropertyList.Format = .xml
    /// Raw Info.plist bytes, replacing `info` (for hostile or hand-written plists).
    public var rawInfoPlist: [UInt8]?
    /// Files relative to the app folder.
    public var files: [String: File] = [:]
    public var nested: [Nested] = []
    /// Files outside `Payload/`, relative to the archive root.
    public var rootFiles: [String: File] = [:]
    public var executable: [UInt8]? = IPABuilder.executable()
    /// The executable's entry is stored, as a zipper writes a file deflate cannot shrink
    /// (encrypted or random bytes).
    public var storesExecutable = false
    /// `embedded.mobileprovision`: by default the committed test profile whose App ID is the
    /// bundle ID (`ProfileBuilder.committedProfile(for:)`), as a real build embeds; nil for none.
    public var profile: [UInt8]?
    public var signed = true
    /// Seconds since 1970 for every entry.
    public var timestamp: UInt32 = 1_700_000_000

    public init(appName: String = "Sample", bundleIdentifier: String = "com.example.sample") {
        self.appName = appName
        self.info = IPABuilder.infoPlist(name: appName, bundleIdentifier: bundleIdentifier)
        self.profile = ProfileBuilder.committedProfile(for: bundleIdentifier)
    }

    // MARK: Parts

    /// A typical Xcode-built Info.plist.
    public static func infoPlist(
        name: String, bundleIdentifier: String, version: String = "1.2.0", build: String = "42",
        minimumOS: String = "15.0", packageType: String = "APPL"
    ) -> PropertyListDictionary {
        [
            "CFBundleDevelopmentRegion": "en",
            "CFBundleDisplayName": .string(name),
            "CFBundleExecutable": .string(name),
            "CFBundleIdentifier": .string(bundleIdentifier),
            "CFBundleInfoDictionaryVersion": "6.0",
            "CFBundleName": .string(name),
            "CFBundlePackageType": .string(packageType),
            "CFBundleShortVersionString": .string(version),
            "CFBundleSupportedPlatforms": ["iPhoneOS"],
            "CFBundleVersion": .string(build),
            "DTPlatformName": "iphoneos",
            "DTSDKName": "iphoneos17.2",
            "LSRequiresIPhoneOS": true,
            "MinimumOSVersion": .string(minimumOS),
            "UIDeviceFamily": [1, 2],
        ]
    }

    /// A small arm64 executable (or dylib) built with `MachOBuilder`.
    public static func executable(fileType: UInt32 = 2, minimumOS: String = "15.0", configure: (inout MachOBuilder) -> Void = { _ in }) -> [UInt8] {
        var builder = fileType == 6 ? MachOBuilder.dylib(installName: "@rpath/Kit.framework/Kit") : MachOBuilder()
        builder.fileType = fileType
        builder.version = .iOS(minimumOS, sdk: "17.2")
        configure(&builder)
        return builder.build()
    }

    /// A square icon picture of `size` pixels, as a CgBI (default) or standard PNG.
    public static func iconPNG(size: Int, seed: UInt8 = 0, cgbi: Bool = true) -> [UInt8] {
        let premultipliedBGRA = AssetCatalogBuilder.iconPixels(width: size, height: size, seed: seed)
        var rgba = premultipliedBGRA
        // The picture is opaque, so premultiplied equals straight; swap B and R.
        var index = 0
        while index < rgba.count {
            rgba.swapAt(index, index + 2)
            index += 4
        }
        return CgBIEncoder(cgbi ? .cgbi : .standard).encode(rgba: rgba, width: size, height: size)
    }

    /// Sets `CFBundleIcons` → `CFBundlePrimaryIcon` → `CFBundleIconFiles` and ships the files
    /// Xcode writes for them (`<name>@2x.png` 120 px and `@3x` 180 px).
    public mutating func addPrimaryIcon(_ name: String = "AppIcon60x60", cgbi: Bool = true) {
        info["CFBundleIcons"] = ["CFBundlePrimaryIcon": ["CFBundleIconFiles": [.string(name)], "CFBundleIconName": "AppIcon"]]
        files["\(name)@2x.png"] = File(data: IPABuilder.iconPNG(size: 120, seed: 20, cgbi: cgbi), mode: 0o100644)
        files["\(name)@3x.png"] = File(data: IPABuilder.iconPNG(size: 180, seed: 40, cgbi: cgbi), mode: 0o100644)
    }

    public mutating func addFile(_ path: String, _ data: [UInt8], mode: UInt16 = 0o100644) {
        files[path] = File(data: data, mode: mode)
    }

    public mutating func addSymlink(_ path: String, to target: String) {
        files[path] = File(data: Array(target.utf8), mode: 0o120755, symlinkTarget: target)
    }

    /// A framework with a binary Info.plist and a dylib.
    public mutating func addFramework(_ name: String, bundleIdentifier: String, version: String = "2.0.0") {
        var info = IPABuilder.infoPlist(name: name, bundleIdentifier: bundleIdentifier, version: version, build: "1", packageType: "FMWK")
        info["CFBundleDisplayName"] = nil
        nested.append(Nested(path: "Frameworks/\(name).framework", info: info, executable: IPABuilder.executable(fileType: 6)))
    }

    /// An app extension (`PlugIns/<name>.appex`) with its own identifier and profile; without
    /// `profile`, the committed test profile for the bundle ID when there is one (set the
    /// extension's `Nested.profile` to nil for none).
    public mutating func addExtension(_ name: String, bundleIdentifier: String, profile: [UInt8]? = nil) {
        let profile = profile ?? ProfileBuilder.committedProfile(for: bundleIdentifier)
        var info = IPABuilder.infoPlist(name: name, bundleIdentifier: bundleIdentifier, packageType: "XPC!")
        info["NSExtension"] = ["NSExtensionPointIdentifier": "com.apple.share-services", "NSExtensionPrincipalClass": "ShareViewController"]
        nested.append(Nested(path: "PlugIns/\(name).appex", info: info, executable: IPABuilder.executable(fileType: 8), profile: profile))
    }

    // MARK: Building

    public func bytes() throws -> [UInt8] {
        var zip = ZipBuilder()
        let stamp = ZipBuilder.extendedTimestamp(timestamp)
        let (dosTime, dosDate) = ZipBuilder.dosDateTime(timestamp)
        let app = "Payload/\(appName).app/"
        var written: Set<String> = []
        func folder(_ path: String) {
            guard written.insert(path).inserted else { return }
            var entry = ZipBuilder.Entry(name: Array(path.utf8), data: [], mode: 0o040755, compression: .stored)
            entry.localExtra = stamp
            entry.centralExtra = stamp
            (entry.dosTime, entry.dosDate) = (dosTime, dosDate)
            zip.entries.append(entry)
        }
        func parents(of path: String) {
            var prefix = ""
            for component in path.split(separator: "/").dropLast() {
                prefix += component + "/"
                folder(prefix)
            }
        }
        func file(_ path: String, _ file: File) {
            parents(of: path)
            var entry = ZipBuilder.Entry(
                name: Array(path.utf8), data: file.data, mode: file.mode,
                compression: file.symlinkTarget != nil || file.stored ? .stored : .deflate)
            entry.localExtra = stamp
            entry.centralExtra = stamp
            (entry.dosTime, entry.dosDate) = (dosTime, dosDate)
            if let crc = file.declaredCRC { (entry.localCRC, entry.centralCRC) = (crc, crc) }
            zip.entries.append(entry)
        }

        folder("Payload/")
        folder(app)
        let plistBytes = try rawInfoPlist ?? PropertyList(root: .dictionary(info), format: infoPlistFormat).serialized()
        file(app + "Info.plist", File(data: plistBytes, mode: 0o100644))
        file(app + "PkgInfo", File(data: Array("APPL????".utf8), mode: 0o100644))
        if let executable { file(app + appName, File(data: executable, mode: 0o100755, stored: storesExecutable)) }
        if let profile { file(app + "embedded.mobileprovision", File(data: profile, mode: 0o100644)) }
        for (path, item) in files.sorted(by: { $0.key < $1.key }) { file(app + path, item) }
        for bundle in nested {
            let base = app + bundle.path + "/"
            parents(of: base)
            folder(base)
            if let info = bundle.info {
                let format: PropertyList.Format = bundle.path.hasSuffix(".framework") ? .binary : .xml
                file(base + "Info.plist", File(data: try PropertyList(root: .dictionary(info), format: format).serialized(), mode: 0o100644))
                if let executable = bundle.executable, let name = info["CFBundleExecutable"]?.string {
                    file(base + name, File(data: executable, mode: 0o100755))
                }
            }
            if let profile = bundle.profile { file(base + "embedded.mobileprovision", File(data: profile, mode: 0o100644)) }
            for (path, item) in bundle.files.sorted(by: { $0.key < $1.key }) { file(base + path, item) }
            if bundle.signed {
                file(base + "_CodeSignature/CodeResources", File(data: Array("<plist version=\"1.0\"><dict/></plist>".utf8), mode: 0o100644))
            }
        }
        if signed {
            file(app + "_CodeSignature/CodeResources", File(data: Array("<plist version=\"1.0\"><dict/></plist>".utf8), mode: 0o100644))
        }
        for (path, item) in rootFiles.sorted(by: { $0.key < $1.key }) { file(path, item) }
        return zip.bytes()
    }
}
