import Foundation
import Testing
import TestSupport
@testable import PNG

/// The PNGError a throwing expression gives, recorded as a test failure if it gives another
/// error or none.
func pngError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> PNGError? {
    do {
        try body()
        Issue.record("expected a PNGError, but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as PNGError {
        return error
    } catch {
        Issue.record("expected a PNGError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Straight-alpha pixels as they come back from a premultiplied store: what a correct CgBI decoder
/// returns, checked two ways by `expectMatchesPremultiplied`.
func expectMatchesPremultiplied(_ decoded: [UInt8], original: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(decoded.count == original.count, sourceLocation: sourceLocation)
    var failures = 0
    for pixel in 0..<(min(decoded.count, original.count) / 4) where failures < 5 {
        let alpha = original[pixel * 4 + 3]
        let got = Array(decoded[(pixel * 4)..<(pixel * 4 + 4)])
        let want = Array(original[(pixel * 4)..<(pixel * 4 + 4)])
        var ok = got[3] == alpha
        for channel in 0..<3 {
            // Premultiplying what we decoded must give back exactly what the file stored…
            ok = ok && CgBIEncoder.premultiply(got[channel], alpha: alpha) == CgBIEncoder.premultiply(want[channel], alpha: alpha)
            // …and the colour can be off only by the precision premultiplication threw away.
            let tolerance = alpha == 0 ? 0 : 255 / (2 * Int(alpha)) + 1
            ok = ok && (alpha == 0 ? got[channel] == 0 : abs(Int(got[channel]) - Int(want[channel])) <= tolerance)
        }
        if !ok {
            failures += 1
            Issue.record("pixel \(pixel): decoded \(got), original \(want)", sourceLocation: sourceLocation)
        }
    }
}

/// Runs `Tests/Fixtures/png/oracle.py`, an independent python3 zlib/binascii/struct check.
enum PNGOracle {
    static let script = Fixtures.path("png/oracle.py")

    static let available: Bool = {
        guard let process = try? run(["-c", "import zlib, binascii, struct"]) else { return false }
        return process.status == 0
    }()

    struct Result {
        let status: Int32
        let output: String
        let error: String
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
                      error: String(decoding: error, as: UTF8.self))
    }

    /// Checks `png` with the oracle; returns its chunk types and decoded RGBA pixels.
    static func check(_ png: [UInt8]) throws -> (chunks: [String], rgba: [UInt8]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ipawrap-png-oracle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.png"), output = directory.appendingPathComponent("out.rgba")
        try Data(png).write(to: input)
        let result = try run([script, input.path, output.path])
        #expect(result.status == 0, "oracle.py: \(result.error)")
        guard result.status == 0 else { return ([], []) }
        let rgba = [UInt8](try Data(contentsOf: output))
        return (result.output.split(separator: "\n").map(String.init), rgba)
    }
}

extension RGBAImage {
    /// Compares ignoring the colour of fully transparent pixels.
    func pixels(droppingAlpha: Bool) -> [UInt8] {
        droppingAlpha ? pixels.enumerated().map { $0.offset % 4 == 3 ? 255 : $0.element } : pixels
    }
}
