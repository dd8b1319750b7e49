import Foundation
@testable import FormatSupport
import Testing
import TestSupport

/// Paths are bytes: `PathEncoding` carries any of them in a `String` and gives them back exactly,
/// and `FileSystem` hands those bytes to the kernel (checked against files Python makes by bytes).
@Suite struct PathEncodingTests {
    /// Byte strings that are not UTF-8, and UTF-8 that comes close to the escape range.
    static let awkward: [[UInt8]] = [
        [0xFF, 0xFE],
        Array("App-".utf8) + [0xFF, 0xFE] + Array(".ipa".utf8),
        [0xED, 0xA0, 0x80],  // a lone surrogate, CESU-8 style
        [0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80],  // a surrogate pair, CESU-8 style
        [0xC0, 0xAF],  // an overlong '/'
        [0xE2, 0x82],  // a sequence cut short
        [0xE2, 0x82, 0x41],  // cut short by ASCII
        [0x80, 0xBF, 0x80],  // stray continuations
        [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
        [0xF4, 0x8F, 0xBF, 0xBF],  // U+10FFFF itself: in the escape range, so carried as bytes
        [0xF4, 0x8F, 0xBE, 0x80],  // U+10FF80, the first escaped scalar
        [0xF4, 0x8F, 0xBD, 0xBF],  // U+10FF7F, just below it: text
        Array("é/日本/🙂".utf8),
    ]

    @Test(arguments: awkward)
    func awkwardBytesComeBackExactly(_ bytes: [UInt8]) {
        let carried = PathEncoding.string(bytes)
        #expect(PathEncoding.bytes(carried) == bytes)
        #expect(PathEncoding.isUTF8(carried) == (String(validating: bytes, as: UTF8.self) != nil
            && !String(decoding: bytes, as: UTF8.self).unicodeScalars.contains { $0.value >= 0x10FF80 }))
        PathEncoding.withCString(carried) { pointer in
            #expect(Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer))) == bytes)
        }
    }

    @Test func randomBytesComeBackExactly() {
        var random = SplitMix64(seed: 27)
        // Bytes weighted towards the ones UTF-8 decoding turns on.
        let alphabet: [UInt8] = [0x41, 0x2F, 0x80, 0x8F, 0xBF, 0xBE, 0xC2, 0xC3, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0xA0]
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 1...12, using: &random)).map { _ in
                alphabet.randomElement(using: &random) ?? 0x41
            }
            #expect(PathEncoding.bytes(PathEncoding.string(bytes)) == bytes, "\(bytes)")
        }
    }

    @Test func textIsCarriedAsItself() {
        for text in ["App.ipa", "/tmp/é/日本.app", "🙂", ""] {
            #expect(PathEncoding.string(Array(text.utf8)) == text)
            #expect(PathEncoding.bytes(text) == Array(text.utf8))
            #expect(PathEncoding.displayed(text) == text)
            #expect(PathEncoding.isUTF8(text))
        }
    }

    @Test func carriedBytesAreDisplayedAsHexEscapes() {
        let path = PathEncoding.string(Array("/tmp/".utf8) + [0xFF, 0xFE] + Array("/é.ipa".utf8) + [0xED, 0xA0, 0x80])
        #expect(PathEncoding.displayed(path) == "/tmp/\\xFF\\xFE/é.ipa\\xED\\xA0\\x80")
        #expect(PathEncoding.replacingCarriedBytes(path) == "/tmp/\u{FFFD}\u{FFFD}/é.ipa\u{FFFD}\u{FFFD}\u{FFFD}")
        #expect(!PathEncoding.isUTF8(path))
    }

    /// Files Python made by bytes are opened, looked at and listed by `FileSystem` under the
    /// names `PathEncoding` carries, and a file `FileSystem` makes has the bytes Python expects.
    @Test func theKernelSeesTheBytes() throws {
        let scratch = try ScratchDirectory("path-encoding")
        let names: [[UInt8]] = [[0xFF, 0xFE], [0xED, 0xA0, 0x80], Array("plain".utf8), [0xF4, 0x8F, 0xBF, 0xBF]]
        let make = """
            import os, sys
            folder = os.fsencode(sys.argv[1])
            for index, name in enumerate(sys.argv[2:]):
                with open(os.path.join(folder, bytes.fromhex(name)), "wb") as out:
                    out.write(b"file %d" % index)
            """
        let made = try Command.run("python3", ["-c", make, scratch.path] + names.map(Self.hex))
        #expect(made.status == 0, "\(made.stderr)")

        let listed = try FileSystem.names(inFolder: scratch.path, unreadable: { $0 })
        #expect(Set(listed.map(PathEncoding.bytes)) == Set(names))
        for (index, name) in names.enumerated() {
            let path = scratch.path + "/" + PathEncoding.string(name)
            #expect(FileSystem.kind(of: path, following: false) == S_IFREG)
            let source = try FileByteSource(path: path)
            #expect(try source.read(offset: 0, count: Int(source.size)) == Array("file \(index)".utf8))
        }

        let created = scratch.path + "/" + PathEncoding.string([0xFE, 0xFF]) + "/sub"
        try FileSystem.createFolders(created)
        let renamed = scratch.path + "/" + PathEncoding.string([0x80])
        #expect(FileSystem.rename(scratch.path + "/" + PathEncoding.string([0xFF, 0xFE]), renamed) == 0)
        let check = """
            import os, sys
            folder = os.fsencode(sys.argv[1])
            print(os.path.isdir(os.path.join(folder, b"\\xfe\\xff", b"sub")), open(os.path.join(folder, b"\\x80"), "rb").read().decode())
            """
        let seen = try Command.run("python3", ["-c", check, scratch.path])
        #expect(seen.stdout == "True file 0\n", "\(seen.stderr)")
    }

    @Test func symlinkTargetsAndResolvedPathsKeepTheirBytes() throws {
        let scratch = try ScratchDirectory("path-encoding")
        let target = PathEncoding.string([0xFF, 0x41])
        let link = scratch.path + "/link"
        let file = scratch.path + "/" + target
        let descriptor = FileSystem.open(file, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(descriptor >= 0)
        close(descriptor)
        let made = try Command.run("python3", ["-c", "import os, sys; os.symlink(b'\\xffA', os.fsencode(sys.argv[1]))", link])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try FileSystem.symlinkTarget(link) == target)
        #expect(FileSystem.realpath(link) == FileSystem.realpath(scratch.path).map { $0 + "/" + target })
        #expect(throws: SystemError(ENAMETOOLONG)) { try FileSystem.symlinkTarget(link, limit: 1) }
    }

    @Test func parentFolders() {
        #expect(FileSystem.parentFolder(of: "a/b/c") == "a/b")
        #expect(FileSystem.parentFolder(of: "a/b/") == "a")
        #expect(FileSystem.parentFolder(of: "/a") == "/")
        #expect(FileSystem.parentFolder(of: "/") == nil)
        #expect(FileSystem.parentFolder(of: "name") == nil)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
