import AppBundle
import ArgumentParser
import FormatSupport
import OutputFiles

struct IconCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "icon",
        abstract: "Write the app icon as a standard PNG and say where it came from.",
        discussion: """
            The icon is found by the documented Info.plist keys, the fallback files and the asset catalog \
            (see docs/commands.md, "icon: how the icon is found"); CgBI PNGs and asset-catalog renditions are converted to standard \
            PNGs. Exit codes: 0 written, 1 no icon, 64 the output is the input or a folder, 65 bad input, \
            74 output not written (a device or FIFO as the output is written through, never replaced).
            """
    )

    @Argument(help: "The .ipa (or an unzipped .app folder, or an Xcode .xcarchive) to take the icon from.")
    var ipa: String

    @Option(name: [.short, .customLong("output")], help: "Where to write the PNG.")
    var output: String

    @Flag(help: "Print every location that was tried.")
    var trace = false

    @OptionGroup(title: "Input limits") var limits: ArchiveLimitOptions

    func run() throws {
        let found = try reportingErrors {
            try OutputDestination.check(output, inputs: [ipa])
            let archive = try AppArchive(path: ipa, limits: limits.limits)
            let resolution = archive.resolveIcon()
            try archive.checkLimits()
            if trace { for line in resolution.trace { print("  " + Terminal.escaped(line)) } }
            guard let icon = resolution.icon else {
                Terminal.standardError("ipawrap: \(ipa): no app icon was found (run with --trace to see where ipawrap looked)")
                return false
            }
            let png: [UInt8]
            do {
                png = try archive.iconPNG(icon)
            } catch let error as CodedError where error.category == .invalidInput && !error.code.hasPrefix("ARCHIVE_") {
                throw error.located(in: "\(ipa): \(icon.path)")
            }
            let file = try AtomicOutputFile(destination: output)
            try file.write(png, at: 0)
            try file.commit(length: UInt64(png.count), synchronize: false)
            print("Wrote \(output) (\(icon.width)x\(icon.height)) from \(icon.path) (\(icon.format.rawValue), via \(icon.source.rawValue))")
            return true
        }
        if !found { throw ExitCode(1) }
    }
}
