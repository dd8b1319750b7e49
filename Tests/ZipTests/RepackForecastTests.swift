import Foundation
import IPAArchive
import Testing
import TestSupport
@testable import Zip

/// `RepackForecast`: the runs a repack will copy after a stored entry replaced in place, placed
/// before that entry's bytes exist (as the signer places them once its executable's length is
/// known). A copy started from a right forecast is the writer's own work done early; from a wrong
/// one it is not used; the output is a plain repack's bytes either way.
@Suite struct RepackForecastTests {
    static let executable = "Payload/A.app/A"
    static let profile = "Payload/A.app/embedded.mobileprovision"
    static let seal = "Payload/A.app/_CodeSignature/CodeResources"

    /// An app whose executable is stored, with a profile after it and resources after that, one
    /// of them the seal (as a signed app has it).
    static func archive(in scratch: ScratchDirectory) throws -> String {
        var zip = ZipBuilder()
        zip.file("Payload/A.app/Info.plist", "<plist version=\"1.0\"><dict/></plist>")
        zip.file(executable, Noise.bytes(300_000, seed: 1), compression: .stored)
        zip.file(profile, String(repeating: "profile ", count: 200))
        for index in 0..<20 { zip.file("Payload/A.app/Resources/r\(index).txt", String(repeating: "resource \(index) ", count: 500)) }
        zip.file(seal, "<plist version=\"1.0\"><dict/></plist>")
        zip.file("Payload/A.app/Z/last.bin", Noise.bytes(50_000, seed: 2))
        return try scratch.write("in.ipa", zip.bytes())
    }

    /// Signing's edits: the profile and the executable replaced in place (the executable stored,
    /// as the signer asks for an entry deflate did not shrink), the seal too, and a policy file added.
    static func edits(executable bytes: [UInt8], seal sealBytes: [UInt8]) -> ArchiveEdits {
        ArchiveEdits(
            additions: [
                .init(name: profile, content: .bytes(Array(String(repeating: "new profile ", count: 300).utf8))),
                .init(name: executable, content: .bytes(bytes), stored: true, revisesReplacedEntry: true),
                .init(name: seal, content: .bytes(sealBytes)),
                .init(name: "Payload/A.app/MDXPolicy.bundle/Info.plist", content: .bytes(Array("<plist/>".utf8))),
            ],
            replacesInPlace: true)
    }

    /// Repacks with `final` edits continuing a copy started from the forecast of `placeholders`
    /// with `pendingSize`, and plainly (`EarlyCopyCheck`). Returns the bytes reused.
    private func reused(
        _ input: String, placeholders: ArchiveEdits, final: ArchiveEdits, pendingSize: UInt64, unknown: Set<String>,
        in scratch: ScratchDirectory
    ) throws -> UInt64 {
        let archive = try IPAArchive(path: input).zip
        let forecast = try #require(try RepackForecast.make(
            archive, edits: placeholders, options: RepackOptions(), pending: Self.executable, unknown: unknown))
        return try EarlyCopyCheck.reused(archive, edits: final, in: scratch) { destination in
            let early = try #require(EarlyCopy(archive, destination: destination, startingNow: false))
            early.starter.start(forecast.segments(pendingSize: pendingSize))
            return early
        }
    }

    /// A pending size no offset can follow (a hostile length) places the runs before the pending
    /// entry only, and traps nowhere.
    @Test func aSizePastEveryOffsetPlacesOnlyTheRunsBefore() throws {
        let scratch = try ScratchDirectory("repack-forecast-overflow")
        let archive = try IPAArchive(path: try Self.archive(in: scratch)).zip
        let forecast = try #require(try RepackForecast.make(
            archive, edits: Self.edits(executable: [], seal: []), options: RepackOptions(), pending: Self.executable,
            unknown: [Self.seal]))
        #expect(!forecast.before.isEmpty && !forecast.after.isEmpty)
        #expect(forecast.segments(pendingSize: 1000).count == forecast.before.count + forecast.after.count)
        #expect(forecast.segments(pendingSize: .max) == forecast.before)
    }

    @Test func aRightForecastCopiesEverythingBetweenTheReplacements() throws {
        let scratch = try ScratchDirectory("repack-forecast")
        let input = try Self.archive(in: scratch)
        let archive = try IPAArchive(path: input).zip
        let signed = Noise.bytes(310_000, seed: 3)
        let placeholders = Self.edits(executable: [], seal: [])
        let final = Self.edits(executable: signed, seal: Array("<plist version=\"1.0\"><dict><key>files</key></dict></plist>".utf8))
        let entry = { (name: String) in try #require(archive.entry(named: name)) }
        // Before the executable: Info.plist, at the same offsets. Between the profile and the seal:
        // the resources, moved by the executable's and the profile's new sizes.
        let head = try entry(Self.executable).localHeaderOffset
        let resources = try entry(Self.seal).localHeaderOffset - (try entry(Self.profile).endOffset)
        let all = try reused(
            input, placeholders: placeholders, final: final, pendingSize: UInt64(signed.count), unknown: [Self.seal], in: scratch)
        // The seal's size is not known, so nothing after it is placed (the fixture has entries there).
        #expect(all == head + resources)
        #expect(try entry(Self.seal).endOffset < archive.centralDirectoryOffset)
    }

    /// Signing an app this writer signed before, with the same bytes: every replacement keeps its
    /// size, so the runs after the executable stay where they were, at the same offsets as in the
    /// input, and are copied early all the same (not only as far as the output's first run).
    @Test func runsThatDoNotMoveAreCopiedEarlyToo() throws {
        let scratch = try ScratchDirectory("repack-forecast")
        let signed = Noise.bytes(310_000, seed: 3)
        let final = Self.edits(executable: signed, seal: Array("<plist version=\"1.0\"><dict/></plist>".utf8))
        let once = scratch.path("once.ipa")
        try ArchiveWriter.repack(try IPAArchive(path: try Self.archive(in: scratch)).zip, to: once, edits: final, verifying: nil)
        let archive = try IPAArchive(path: once).zip
        let entry = { (name: String) in try #require(archive.entry(named: name)) }
        let head = try entry(Self.executable).localHeaderOffset
        let resources = try entry(Self.seal).localHeaderOffset - (try entry(Self.profile).endOffset)
        let all = try reused(
            once, placeholders: Self.edits(executable: [], seal: []), final: final, pendingSize: UInt64(signed.count),
            unknown: [Self.seal], in: scratch)
        #expect(all == head + resources)
    }

    /// Segments a copy could not keep apart (out of output order, overlapping, or past what a file
    /// offset can say) start no copy at all.
    @Test func segmentsThatOverlapStartNothing() throws {
        let scratch = try ScratchDirectory("repack-forecast")
        let archive = try IPAArchive(path: try Self.archive(in: scratch)).zip
        let cases: [[EarlyCopy.Segment]] = [
            [.init(inputOffset: 0, outputOffset: 100, length: 50), .init(inputOffset: 200, outputOffset: 120, length: 10)],
            [.init(inputOffset: 0, outputOffset: 100, length: 50), .init(inputOffset: 200, outputOffset: 0, length: 10)],
            [.init(inputOffset: .max - 5, outputOffset: 0, length: 10)],
            [.init(inputOffset: 0, outputOffset: UInt64(Int64.max), length: 10)],
        ]
        for segments in cases {
            let early = try #require(EarlyCopy(archive, destination: scratch.path("out.ipa"), startingNow: false))
            early.starter.start(segments)
            early.finish(firstRunLength: .max)
            #expect(early.copiedBytes == 0, "\(segments)")
        }
        // Apart and in order, they are copied.
        let early = try #require(EarlyCopy(archive, destination: scratch.path("out.ipa"), startingNow: false))
        early.starter.start([.init(inputOffset: 0, outputOffset: 100, length: 50), .init(inputOffset: 60, outputOffset: 150, length: 10)])
        early.finish(firstRunLength: 0)
        #expect(early.copiedBytes == 60)
    }

    @Test func aWrongLengthLeavesTheMovedRunsToTheWriter() throws {
        let scratch = try ScratchDirectory("repack-forecast")
        let input = try Self.archive(in: scratch)
        let archive = try IPAArchive(path: input).zip
        let signed = Noise.bytes(310_000, seed: 3)
        let final = Self.edits(executable: signed, seal: [])
        let head = try #require(archive.entry(named: Self.executable)).localHeaderOffset
        for wrong in [signed.count - 1, signed.count + 1] {
            let used = try reused(
                input, placeholders: Self.edits(executable: [], seal: []), final: final, pendingSize: UInt64(wrong),
                unknown: [Self.seal], in: scratch)
            #expect(used == head, "only the runs before the executable are where the forecast put them")
        }
    }

    @Test func nothingIsForecastForAMissingOrAppendedEntry() throws {
        let scratch = try ScratchDirectory("repack-forecast")
        let archive = try IPAArchive(path: try Self.archive(in: scratch)).zip
        #expect(try RepackForecast.make(
            archive, edits: Self.edits(executable: [], seal: []), options: RepackOptions(), pending: "Payload/A.app/none",
            unknown: []) == nil)
        // Not replaced in place: the edits would put it after the kept entries.
        var appended = Self.edits(executable: [], seal: [])
        appended.replacesInPlace = false
        #expect(try RepackForecast.make(archive, edits: appended, options: RepackOptions(), pending: Self.executable, unknown: []) == nil)
    }
}
