import CodeSignature
import Foundation

/// A bundle unpacked on disk, seen as resource entries.
enum BundleOnDisk {
    /// Every file, symlink and folder below `root`, relative to it.
    static func entries(of root: URL) throws -> [ResourceEntry] {
        let manager = FileManager.default
        guard let walker = manager.enumerator(atPath: root.path) else { return [] }
        var entries: [ResourceEntry] = []
        for case let path as String in walker {
            let url = root.appendingPathComponent(path)
            let attributes = try manager.attributesOfItem(atPath: url.path)
            switch attributes[.type] as? FileAttributeType {
            case .typeSymbolicLink?:
                entries.append(ResourceEntry(path: path, kind: .symlink(target: try manager.destinationOfSymbolicLink(atPath: url.path))))
            case .typeDirectory?:
                entries.append(ResourceEntry(path: path, kind: .directory))
            default:
                entries.append(ResourceEntry(path: path, kind: .file))
            }
        }
        return entries
    }

    /// The digests each request asks for, computed from the files under `root`.
    static func facts(for requests: [ResourceRequest], in root: URL) throws -> [String: ResourceFacts] {
        var facts: [String: ResourceFacts] = [:]
        for request in requests {
            let bytes = [UInt8](try Data(contentsOf: root.appendingPathComponent(request.path)))
            let types: [HashType] =
                switch request.need {
                case .digests(let types), .nestedCode(digests: let types): types
                }
            var digests: [HashType: [UInt8]] = [:]
            for type in types { digests[type] = type.digest(bytes) }
            facts[request.path] = .digests(digests)
        }
        return facts
    }
}

func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}
