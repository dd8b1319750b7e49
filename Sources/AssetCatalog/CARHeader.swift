import FormatSupport

/// `CARHEADER`: what built the catalog and how many renditions it says it holds (little-endian,
/// magic `RATC` on disk).
public struct CARHeader: Sendable, Equatable {
    /// CoreUI version of the writer (e.g. 371 for CoreUI-371.4, Xcode 7).
    public let coreUIVersion: UInt32
    /// Version of the storage layout.
    public let storageVersion: UInt32
    /// When the catalog was written, in seconds since 1970.
    public let storageTimestamp: UInt32
    /// Renditions the writer counted (informational; the tree is authoritative).
    public let renditionCount: UInt32
    /// The writer's version string, e.g. `@(#)PROGRAM:CoreUI  PROJECT:CoreUI-371.4`.
    public let mainVersion: String
    /// The tool that compiled the catalog, e.g. `Xcode 12.0 (12A7209) via IBCocoaTouchImageCatalogTool`.
    public let versionString: String
    public let uuid: [UInt8]
    public let associatedChecksum: UInt32
    public let schemaVersion: UInt32
    /// Color space of the catalog's colors (0 sRGB, …).
    public let colorSpaceID: UInt32
    public let keySemantics: UInt32

    /// Parses the `CARHEADER` block. Older writers may end the block early; missing trailing fields
    /// read as zero.
    public init(_ block: ByteReader) throws(AssetCatalogError) {
        let start = block.lowerBound
        guard block.count >= 20, (try? block.bytes(at: start, count: 4).elementsEqual("RATC".utf8)) == true else {
            throw AssetCatalogError(.invalidHeader, "CARHEADER does not start with the RATC magic")
        }
        func u32(_ offset: Int) -> UInt32 {
            (try? block.uint32(at: start + offset, .little)) ?? 0
        }
        func string(_ offset: Int, _ size: Int) -> String {
            let available = max(0, min(size, block.count - offset))
            guard available > 0, let field = try? block.nulTerminatedField(at: start + offset, size: available) else {
                return ""
            }
            return String(decoding: field, as: UTF8.self).trimmingTrailingNewlines()
        }
        coreUIVersion = u32(4)
        storageVersion = u32(8)
        storageTimestamp = u32(12)
        renditionCount = u32(16)
        mainVersion = string(20, 128)
        versionString = string(148, 256)
        uuid = (try? Array(block.bytes(at: start + 404, count: 16))) ?? []
        associatedChecksum = u32(420)
        schemaVersion = u32(424)
        colorSpaceID = u32(428)
        keySemantics = u32(432)
    }
}

/// `EXTENDED_METADATA` (magic `META`): how the catalog was thinned and for which platform.
public struct ExtendedMetadata: Sendable, Equatable {
    public let thinningArguments: String
    /// e.g. `14.0`.
    public let deploymentPlatformVersion: String
    /// e.g. `ios`.
    public let deploymentPlatform: String
    /// e.g. `Xcode 12.0 (12A7209) via IBCocoaTouchImageCatalogTool`.
    public let authoringTool: String

    public init(_ block: ByteReader) throws(AssetCatalogError) {
        let start = block.lowerBound
        // The magic is the little-endian four-character code 'META'; accept it either way round.
        let magic = (try? Array(block.bytes(at: start, count: 4))) ?? []
        guard magic == Array("ATEM".utf8) || magic == Array("META".utf8) else {
            throw AssetCatalogError(.invalidHeader, "EXTENDED_METADATA does not start with the META magic")
        }
        func string(_ index: Int) -> String {
            let offset = 4 + 256 * index
            let available = max(0, min(256, block.count - offset))
            guard available > 0, let field = try? block.nulTerminatedField(at: start + offset, size: available) else {
                return ""
            }
            return String(decoding: field, as: UTF8.self)
        }
        thinningArguments = string(0)
        deploymentPlatformVersion = string(1)
        deploymentPlatform = string(2)
        authoringTool = string(3)
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var result = self
        while let last = result.last, last.isNewline { result.removeLast() }
        return result
    }
}
