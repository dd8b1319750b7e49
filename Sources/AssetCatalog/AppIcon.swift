import PNG

/// The rendition chosen as an app's icon, its pixels, and why each other rendition of the icon set was
/// not chosen, so that a caller can explain the choice.
public struct AppIconSelection: Sendable {
    /// The icon set, as named by `CFBundleIconName`.
    public let facet: Facet
    public let rendition: Rendition
    public let image: RGBAImage
    /// Every rendition of the icon set, in catalog order, with its verdict.
    public let candidates: [AppIconCandidate]
    /// True when no rendition had a preferred idiom and another idiom's was used.
    public let usedFallbackIdiom: Bool
}

public struct AppIconCandidate: Sendable {
    public enum Verdict: Sendable, Equatable {
        case chosen
        /// A rendition for another idiom, while the preferred idioms had one.
        case otherIdiom
        /// A dark or tinted variant, while a default-appearance rendition existed.
        case otherAppearance
        /// Not pixels: a size list, stored file, color or other structure.
        case notBitmap
        /// A bitmap that could not be decoded (the `AssetCatalogError` code and sentence).
        case notExtractable(code: String, reason: String)
        /// Decodable, but a larger rendition was chosen.
        case smaller
    }

    public let rendition: Rendition
    public let verdict: Verdict
}

extension AssetCatalog {
    /// The largest decodable rendition of the icon set `name` for the app's devices.
    ///
    /// Preferred idioms are phone and universal, or pad when `iPadOnly`; if the set has no bitmap for
    /// them, other device idioms are used, and App Store (marketing) artwork last. Within the idioms
    /// used, default-appearance renditions come before dark or tinted ones, then the largest pixel
    /// area wins (higher scale, then catalog order, on a tie). A rendition that fails to decode is
    /// recorded and the next one tried.
    ///
    /// A tvOS image stack (`CFBundlePrimaryIcon` names one) holds a layer-stack rendition and,
    /// usually, its flattened image. Without a flattened image, its layers are the candidates: the
    /// renditions of the facet itself (told apart by their `layer` attribute) and those of the
    /// facets named `<stack>/<layer>`; the largest layer wins, as any rendition would.
    ///
    /// - Returns: nil when the catalog has no facet called `name`.
    /// - Throws: `.notExtractable` when the set exists but none of its renditions can be decoded.
    public func appIcon(named name: String, iPadOnly: Bool) throws(AssetCatalogError) -> AppIconSelection? {
        guard let facet = facet(named: name) else { return nil }
        let isBitmap: (Rendition) -> Bool = { rendition in
            switch rendition.content {
            case .bitmap, .internalLink: rendition.layout != .multisizeImageSet
            default: false
            }
        }
        var members = renditions(of: facet)
        if !members.contains(where: isBitmap), members.contains(where: { $0.layout == .layerStack }) {
            let layerPrefix = name + "/"
            let layers = Set(facets.filter { $0.name.hasPrefix(layerPrefix) }.compactMap(\.identifier))
            members += renditions.filter { $0.identifier.map(layers.contains) ?? false }
        }
        let preferred: Set<UInt16> = iPadOnly
            ? [RenditionIdiom.pad.rawValue]
            : [RenditionIdiom.phone.rawValue, RenditionIdiom.universal.rawValue]
        let tiers: [(Rendition) -> Bool] = [
            { preferred.contains($0.idiom) },
            { $0.idiom != RenditionIdiom.marketing.rawValue },
            { _ in true },
        ]
        let bitmaps = members.indices.filter { isBitmap(members[$0]) }
        guard let tier = tiers.firstIndex(where: { test in bitmaps.contains { test(members[$0]) } }) else {
            throw AssetCatalogError(
                .notExtractable,
                members.isEmpty
                    ? "the icon set \"\(name)\" has no renditions"
                    : "the icon set \"\(name)\" has no bitmap rendition (\(members.count) other renditions)")
        }
        let inTier = bitmaps.filter { tiers[tier](members[$0]) }
        let hasDefaultAppearance = inTier.contains { members[$0].appearance == 0 }
        let eligible = inTier.filter { !hasDefaultAppearance || members[$0].appearance == 0 }
        let ordered = eligible.sorted { lhs, rhs in
            let (a, b) = (members[lhs], members[rhs])
            if a.area != b.area { return a.area > b.area }
            if a.scaleFactor != b.scaleFactor { return a.scaleFactor > b.scaleFactor }
            return lhs < rhs
        }

        var verdicts = [AppIconCandidate.Verdict?](repeating: nil, count: members.count)
        var chosen: (index: Int, image: RGBAImage)? = nil
        var firstFailure: AssetCatalogError? = nil
        for index in ordered {
            if chosen != nil {
                verdicts[index] = .smaller
                continue
            }
            do throws(AssetCatalogError) {
                chosen = (index, try image(for: members[index]))
                verdicts[index] = .chosen
            } catch {
                verdicts[index] = .notExtractable(code: error.code, reason: error.detail)
                if firstFailure == nil { firstFailure = error }
            }
        }
        let candidates = members.indices.map { index in
            let verdict: AppIconCandidate.Verdict
            if let decided = verdicts[index] {
                verdict = decided
            } else if !isBitmap(members[index]) {
                verdict = .notBitmap
            } else if !tiers[tier](members[index]) {
                verdict = .otherIdiom
            } else {
                verdict = .otherAppearance
            }
            return AppIconCandidate(rendition: members[index], verdict: verdict)
        }
        guard let chosen else {
            throw AssetCatalogError(
                .notExtractable,
                "no rendition of the icon set \"\(name)\" can be decoded; the largest: \(firstFailure?.detail ?? "none")")
        }
        return AppIconSelection(
            facet: facet, rendition: members[chosen.index], image: chosen.image, candidates: candidates,
            usedFallbackIdiom: tier > 0)
    }
}
