// Fuzzes the whole inspect path over a zip input: `AppArchive(path:)` (the archive checks, the
// app's and nested bundles' Info.plists), each bundle's Mach-O executable headers, and
// `resolveIcon()` with `iconPNG(_:)`. Checks that:
// - every failure is a `CodedError` (archive, bundle, Mach-O, PNG or asset-catalog), never an
//   untyped error;
// - the PNG written for a resolved icon decodes, with every checksum verified, at the icon's size.
import AppBundle
import FormatSupport
import FuzzDriver
import Glibc
import PNG

func expectCoded(_ error: any Error, _ what: String) {
    precondition(error is any CodedError, "\(what) threw \(type(of: error)), not a CodedError: \(error)")
}

func fuzzOne(_ bytes: [UInt8]) {
    let fd = bytes.withUnsafeBufferPointer { ipawrap_fuzz_memory_file($0.baseAddress, $0.count) }
    precondition(fd >= 0, "memfd_create failed")
    defer { close(fd) }

    let app: AppArchive
    do {
        app = try AppArchive(path: "/proc/self/fd/\(fd)")
    } catch {
        expectCoded(error, "AppArchive(path:)")
        return
    }
    for bundle in app.allBundles.prefix(16) {
        _ = (bundle.bundleIdentifier, bundle.shortVersion, bundle.buildVersion, bundle.displayName, bundle.deviceFamilies)
        guard let executable = bundle.executablePath else { continue }
        do {
            _ = try app.machO(at: executable)
        } catch {
            expectCoded(error, "machO(at:)")
        }
    }
    let resolution = app.resolveIcon()
    guard let icon = resolution.icon else { return }
    precondition(icon.width > 0 && icon.height > 0, "a resolved icon of \(icon.width)×\(icon.height)")
    let png: [UInt8]
    do {
        png = try app.iconPNG(icon)
    } catch {
        expectCoded(error, "iconPNG")
        return
    }
    do {
        let decoded = try PNGDecoder.decode(png, checksums: .verifyAll)
        precondition(decoded.image.width == icon.width && decoded.image.height == icon.height,
                     "a \(icon.width)×\(icon.height) icon was written as \(decoded.image.width)×\(decoded.image.height)")
    } catch {
        preconditionFailure("the icon PNG does not decode: \(error)")
    }
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
