// swift-tools-version:6.2
// libFuzzer harnesses for ipawrap's format readers; a separate package so the sanitizer flags
// never touch the main build. Build and run them with Scripts/fuzz TARGET [SECONDS].
//
// Adding a format: a folder Sources/fuzz-FORMAT-READER/ with a main.swift that hands its
// per-input function to LLVMFuzzerRunDriver, seeds in seeds/fuzz-FORMAT-READER/, optionally a
// dictionaries/fuzz-FORMAT-READER.dict, and one line in `harnesses`.
import Foundation
import PackageDescription

/// The main package, referred to by its identity: the name of the folder it is checked out in.
let ipawrap = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

/// Each harness: target name → the library products of the main package it exercises.
let harnesses: [(name: String, products: [String])] = [
    ("fuzz-plist-xml", ["PropertyList"]),
    ("fuzz-plist-binary", ["PropertyList"]),
    ("fuzz-zip", ["Zip", "IPAArchive", "FormatSupport"]),
    ("fuzz-png", ["PNG", "FormatSupport"]),
    ("fuzz-macho", ["MachO", "CodeSignature", "FormatSupport"]),
    ("fuzz-lzfse", ["LZFSE"]),
    ("fuzz-assets", ["AssetCatalog", "PNG", "FormatSupport"]),
    ("fuzz-profile", ["ProvisioningProfile", "CMS", "CodeSignature", "PropertyList"]),
    ("fuzz-cms", ["CMS"]),
    ("fuzz-policy", ["Policy", "XMLSupport"]),
    ("fuzz-bundle", ["AppBundle", "PNG", "FormatSupport"]),
    ("fuzz-signature", ["CodeSignature", "PropertyList"]),
    ("fuzz-entitlements", ["CodeSignature", "PropertyList", "ProvisioningProfile"]),
    ("fuzz-pkcs12", ["SigningIdentity", "FormatSupport"]),
    ("fuzz-splice", ["Zip", "Deflate"]),
]

let package = Package(
    name: "ipawrap-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        // Declares libFuzzer's driver, which -sanitize=fuzzer links in.
        .target(name: "FuzzDriver"),
    ] + harnesses.map { harness in
        .executableTarget(
            name: harness.name,
            dependencies: ["FuzzDriver"] + harness.products.map { .product(name: $0, package: ipawrap.lastPathComponent) },
            swiftSettings: [.treatAllWarnings(as: .error)]
        )
    }
)
