import Foundation
import MachO

/// The device an app is judged for (`--device UDID`, repeatable; `--os VERSION`): the checks
/// installd and amfid make that depend on the device, beside the ones that hold for any.
public struct InstallOptions: Sendable, Equatable {
    /// UDIDs a development or ad hoc profile must list.
    public var devices: [String]
    /// The iOS version the app must install on (`17.2`); nil: not judged.
    public var osVersion: OSVersion?

    public init(devices: [String] = [], osVersion: OSVersion? = nil) {
        self.devices = devices
        self.osVersion = osVersion
    }

    /// An iOS version as people write it (`17`, `17.2`, `16.4.1`), compared part by part.
    public struct OSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
        public let parts: [Int]

        /// Nil for text that is not 1 to 3 dot-separated numbers below 1000.
        public init?(_ text: String) {
            let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...3).contains(pieces.count) else { return nil }
            var parts: [Int] = []
            for piece in pieces {
                guard !piece.isEmpty, piece.count <= 3, piece.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(piece) else { return nil }
                parts.append(number)
            }
            self.parts = parts
        }

        public var major: Int { parts.first ?? 0 }
        public var description: String { parts.map(String.init).joined(separator: ".") }

        public static func < (lhs: OSVersion, rhs: OSVersion) -> Bool {
            for index in 0..<max(lhs.parts.count, rhs.parts.count) {
                let left = index < lhs.parts.count ? lhs.parts[index] : 0
                let right = index < rhs.parts.count ? rhs.parts[index] : 0
                if left != right { return left < right }
            }
            return false
        }

        public static func == (lhs: OSVersion, rhs: OSVersion) -> Bool { !(lhs < rhs) && !(rhs < lhs) }
        public func hash(into hasher: inout Hasher) {
            var trimmed = parts
            while trimmed.last == 0 { trimmed.removeLast() }
            hasher.combine(trimmed)
        }
    }
}
