// swift-tools-version:6.2
// ipawrap: wrap and inspect iOS app archives on Linux.
//
// Dependencies point one way, from the command line down to the C shims (ARCHITECTURE.md):
//   C shims ← formats ← tool data ← bundle model ← bundle hashing ← reporting ← bundle signatures
//   (Verification, Signing) ← checks ← wrapping ← batch ← the `ipawrap` command line.
// Tests/ArchitectureTests reads the dependency lists below and fails on one that points upwards, on
// a format target that depends on one above it in its `formatOrder`, on Signing and Verification
// depending on each other, on a local target a target imports without listing it, on one it lists
// without importing it, and on an `@_exported import`.
import PackageDescription

/// Every target is Swift 6 with warnings treated as errors, locally and in CI.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

/// What the targets that read, verify and sign certificates and CMS use: swift-asn1,
/// swift-certificates and swift-crypto (with `_CryptoExtras` for RSA).
let certificateLibraries: [Target.Dependency] = [
    .product(name: "SwiftASN1", package: "swift-asn1"),
    .product(name: "X509", package: "swift-certificates"),
    .product(name: "Crypto", package: "swift-crypto"),
    .product(name: "_CryptoExtras", package: "swift-crypto"),
]

let package = Package(
    name: "ipawrap",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ipawrap", targets: ["ipawrap"]),
        .executable(name: "ipawrap-bench", targets: ["ipawrap-bench"]),
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "FormatSupport", targets: ["FormatSupport"]),
        .library(name: "XMLSupport", targets: ["XMLSupport"]),
        .library(name: "OutputFiles", targets: ["OutputFiles"]),
        .library(name: "Deflate", targets: ["Deflate"]),
        .library(name: "Zip", targets: ["Zip"]),
        .library(name: "IPAArchive", targets: ["IPAArchive"]),
        .library(name: "PNG", targets: ["PNG"]),
        .library(name: "LZFSE", targets: ["LZFSE"]),
        .library(name: "AssetCatalog", targets: ["AssetCatalog"]),
        .library(name: "MachO", targets: ["MachO"]),
        .library(name: "Policy", targets: ["Policy"]),
        .library(name: "CMS", targets: ["CMS"]),
        .library(name: "SigningIdentity", targets: ["SigningIdentity"]),
        .library(name: "ProvisioningProfile", targets: ["ProvisioningProfile"]),
        .library(name: "CodeSignature", targets: ["CodeSignature"]),
        .library(name: "AppBundle", targets: ["AppBundle"]),
        .library(name: "Signing", targets: ["Signing"]),
        .library(name: "Verification", targets: ["Verification"]),
        .library(name: "Installation", targets: ["Installation"]),
        .library(name: "Reporting", targets: ["Reporting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // 4.5.2 or later: 3.x freed an RSA public key twice when BoringSSL refused it (a profile
        // certificate can carry such a key; see ProvisioningProfileTests/FuzzRegressionTests).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        // System libraries, found with pkg-config; the providers tell SwiftPM which package to suggest.
        .systemLibrary(name: "CLibzip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CLibxml2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Whole-buffer inflate, deflate and CRC-32 (Deflate): several times zlib's speed.
        .systemLibrary(name: "CLibdeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        // OpenSSL 3's libcrypto: PKCS #12 and encrypted PEM keys (its legacy provider reads RC2).
        .systemLibrary(name: "CLibcrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),

        // Formats: each target owns one Apple or container format and knows nothing of bundles.
        .target(name: "FormatSupport", swiftSettings: strict),
        .target(name: "CSystemShims"),
        // DEFLATE on whole buffers and the checksums (libdeflate): what zip entries, PNG image data
        // and asset renditions are inflated with, and new entries compressed with.
        .target(name: "Deflate", dependencies: ["CLibdeflate"], swiftSettings: strict),
        // Output files: an output appears complete or not at all, and never replaces an input.
        .target(name: "OutputFiles", dependencies: ["CSystemShims", "FormatSupport"], swiftSettings: strict),
        // Zip: the validated reader (the path tree, the central directory, local headers, libzip's
        // view) and the raw-copy writer (new entries deflated whole or in blocks, the early copy).
        .target(
            name: "Zip", dependencies: ["CLibzip", "CZlib", "CSystemShims", "Deflate", "FormatSupport", "OutputFiles"],
            swiftSettings: strict),
        // IPAArchive: an IPA's rules on top of Zip (one app in Payload/, symlinks that stay inside
        // it), and an app or Xcode archive folder read as the IPA it makes.
        .target(name: "IPAArchive", dependencies: ["Zip", "FormatSupport"], swiftSettings: strict),
        .target(name: "XMLSupport", dependencies: ["CLibxml2", "FormatSupport"], swiftSettings: strict),
        .target(name: "PropertyList", dependencies: ["XMLSupport", "FormatSupport"], swiftSettings: strict),
        .target(name: "PNG", dependencies: ["CZlib", "Deflate", "FormatSupport"], swiftSettings: strict),
        .target(name: "LZFSE", dependencies: ["FormatSupport"], swiftSettings: strict),
        .target(name: "AssetCatalog", dependencies: ["LZFSE", "PNG", "Deflate", "FormatSupport"], swiftSettings: strict),
        .target(name: "MachO", dependencies: ["FormatSupport"], swiftSettings: strict),
        .target(name: "Policy", dependencies: ["XMLSupport", "FormatSupport"], swiftSettings: strict),
        // CMS SignedData: parsed (profiles, code signatures), verified and built (detached code signatures).
        .target(
            name: "CMS",
            dependencies: ["PropertyList", "FormatSupport"] + certificateLibraries,
            swiftSettings: strict),
        // A signing identity (certificate, private key, chain) from PKCS #12 or PEM files.
        .target(
            name: "SigningIdentity",
            dependencies: ["CLibcrypto", "CMS", "FormatSupport"] + certificateLibraries,
            swiftSettings: strict),
        // Apple code signatures: SuperBlob, CodeDirectory, requirements, entitlements,
        // CodeResources and resource rules, read and written. Built on MachO (a slice hands out
        // its signature bytes and page range); the CMS blob is carried as bytes.
        .target(
            name: "CodeSignature",
            dependencies: ["MachO", "PropertyList", "FormatSupport",
                           .product(name: "SwiftASN1", package: "swift-asn1"),
                           .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),
        .target(
            name: "ProvisioningProfile",
            dependencies: ["CMS", "PropertyList", "FormatSupport",
                           .product(name: "SwiftASN1", package: "swift-asn1"),
                           .product(name: "X509", package: "swift-certificates"),
                           .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),

        // Tool data: the Templates folder (policy templates, schema, issuer certificates), its SDK
        // catalog and the toolkit version, resolved once by the command line and passed down.
        // Data and formats only: it knows nothing of bundles, checks or signing.
        .target(name: "ToolData", dependencies: ["Policy", "XMLSupport", "FormatSupport"], swiftSettings: strict),

        // The bundle model: the app, its nested bundles and icon, read from an IPA.
        .target(
            name: "AppBundle",
            dependencies: ["IPAArchive", "Zip", "PropertyList", "PNG", "AssetCatalog", "MachO", "FormatSupport"],
            swiftSettings: strict),

        // Bundle hashing: archive entries inflated and hashed once, on both cores (resource digests,
        // a Mach-O's headers and code pages), for Verification and Signing alike.
        .target(
            name: "BundleHashing", dependencies: ["AppBundle", "CodeSignature", "FormatSupport", "MachO", "Zip"],
            swiftSettings: strict),

        // Reporting: findings and reports as typed values, the one JSON form, and the renderers
        // that need nothing else (text, JSON, SARIF, JUnit).
        .target(
            name: "Reporting",
            dependencies: ["AppBundle", "FormatSupport", "Policy", "PropertyList", "ProvisioningProfile", "ToolData", "XMLSupport"],
            swiftSettings: strict),

        // Installation: the checks a device's installd and amfid make (profile, devices, OS, bundle
        // structure), for check, sign, wrap and verify.
        .target(
            name: "Installation",
            dependencies: ["Reporting", "AppBundle", "MachO", "PropertyList", "ProvisioningProfile"],
            swiftSettings: strict),

        // Verification: every code signature of an IPA checked (pages, special slots, CMS, seals,
        // profile consistency), entries streamed once on two workers.
        .target(
            name: "Verification",
            dependencies: ["Reporting", "AppBundle", "BundleHashing", "CodeSignature", "CMS", "FormatSupport", "Installation", "Zip", "MachO",
                           "PropertyList", "ProvisioningProfile"] + certificateLibraries,
            swiftSettings: strict),

        // Checks and the report: every finding, produced as data.
        .target(
            name: "Checks",
            dependencies: ["Reporting", "AppBundle", "CodeSignature", "FormatSupport", "Installation", "IPAArchive", "Zip", "MachO", "PropertyList",
                           "ProvisioningProfile", "ToolData", "Verification", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),

        // Wrapping: the policy bundle, the repack and the .mdx container.
        .target(
            name: "Wrapping",
            dependencies: ["Checks", "Reporting", "ToolData", "Signing", "AppBundle", "CodeSignature", "IPAArchive", "Zip", "Policy", "PropertyList",
                           "ProvisioningProfile", "FormatSupport", "OutputFiles", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),

        // Signing: every bundle's signature planned innermost first, as archive edits.
        .target(
            name: "Signing",
            dependencies: ["CodeSignature", "CMS", "SigningIdentity", "MachO", "ProvisioningProfile", "AppBundle",
                           "Zip", "PropertyList", "FormatSupport", "BundleHashing"] + certificateLibraries,
            swiftSettings: strict),

        // Batch: many IPAs in parallel, per-input isolation, sharding, the HTML diagnostics report.
        .target(
            name: "Batch",
            dependencies: ["Checks", "Reporting", "ToolData", "Wrapping", "Signing", "SigningIdentity", "AppBundle", "Zip", "Policy",
                           "PropertyList", "PNG", "XMLSupport", "FormatSupport", "OutputFiles", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),

        // The command line: parses arguments and renders reports, nothing else.
        .executableTarget(
            name: "ipawrap",
            dependencies: [
                "IPAArchive", "Zip", "FormatSupport", "AppBundle", "Checks", "Reporting", "Policy", "AssetCatalog", "Wrapping", "ProvisioningProfile", "Batch", "ToolData",
                "Signing", "SigningIdentity", "PropertyList", "Verification", "Installation", "OutputFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),

        // Micro-benchmarks of the format libraries (release builds only; see Scripts/bench).
        .executableTarget(
            name: "ipawrap-bench",
            dependencies: ["PropertyList", "PNG", "LZFSE", "AssetCatalog", "CodeSignature", "Zip"],
            path: "Benchmarks/ipawrap-bench",
            swiftSettings: strict
        ),

        // The sample app's generator (Scripts/make-sample), built from the tests' IPA builders.
        .executableTarget(
            name: "sample-generator", dependencies: ["TestSupport", "PropertyList"], path: "Samples/Generator",
            swiftSettings: strict),

        // Tests mirror the source layout; fixtures live in Tests/Fixtures with their licenses.
        .target(
            name: "TestSupport", dependencies: ["FormatSupport", "CZlib", "CLibcrypto", "PropertyList", "ToolData"], path: "Tests/TestSupport",
            swiftSettings: strict),
        .testTarget(name: "FormatSupportTests", dependencies: ["FormatSupport", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "XMLSupportTests", dependencies: ["XMLSupport", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "DeflateTests", dependencies: ["Deflate", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ZipTests", dependencies: ["Zip", "IPAArchive", "Deflate", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "IPAArchiveTests", dependencies: ["IPAArchive", "Zip", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "PropertyListTests", dependencies: ["PropertyList", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "PNGTests", dependencies: ["PNG", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "LZFSETests", dependencies: ["LZFSE", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "AssetCatalogTests", dependencies: ["AssetCatalog", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "MachOTests", dependencies: ["MachO", "CodeSignature", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "CodeSignatureTests", dependencies: ["CodeSignature", "MachO", "PropertyList", "TestSupport"],
            swiftSettings: strict),
        .testTarget(name: "ProvisioningProfileTests", dependencies: ["ProvisioningProfile", "CMS", "TestSupport", "PropertyList"], swiftSettings: strict),
        .testTarget(
            name: "CMSTests",
            dependencies: ["CMS", "ProvisioningProfile", "TestSupport", "PropertyList"] + certificateLibraries,
            swiftSettings: strict),
        .testTarget(
            name: "SigningIdentityTests",
            dependencies: ["SigningIdentity", "CMS", "FormatSupport", "TestSupport"] + certificateLibraries,
            swiftSettings: strict),
        .testTarget(
            name: "SigningTests",
            dependencies: ["Signing", "Verification", "AppBundle", "Reporting", "CodeSignature", "MachO", "Zip", "PropertyList",
                           "FormatSupport", "ProvisioningProfile", "SigningIdentity", "TestSupport"] + certificateLibraries,
            swiftSettings: strict),
        .testTarget(name: "PolicyTests", dependencies: ["Reporting", "Checks", "Policy", "ToolData", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ToolDataTests", dependencies: ["ToolData", "Policy", "FormatSupport", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ReportingTests", dependencies: ["Reporting"], swiftSettings: strict),
        .testTarget(name: "InstallationTests", dependencies: ["Installation", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "AppBundleTests", dependencies: ["AppBundle", "AssetCatalog", "TestSupport", "PNG"], swiftSettings: strict),
        .testTarget(name: "ChecksTests", dependencies: ["Reporting", "Checks", "ToolData", "Policy", "AppBundle", "CodeSignature", "TestSupport", "PropertyList", "ProvisioningProfile", "FormatSupport"], swiftSettings: strict),
        .testTarget(
            name: "VerificationTests",
            dependencies: ["Verification", "Reporting", "AppBundle", "CodeSignature", "MachO", "PropertyList", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "WrappingTests", dependencies: ["Reporting", "Wrapping", "ToolData", "Checks", "Policy", "Signing", "SigningIdentity", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "BatchTests",
            dependencies: ["Reporting", "Batch", "ToolData", "Checks", "Wrapping", "Policy", "PNG", "XMLSupport", "FormatSupport", "TestSupport"],
            swiftSettings: strict),
        // The layering of ARCHITECTURE.md, checked against this file's dependency lists.
        .testTarget(name: "ArchitectureTests", dependencies: ["TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "CLITests",
            dependencies: ["IPAArchive", "TestSupport"],
            swiftSettings: strict
        ),
    ]
)
