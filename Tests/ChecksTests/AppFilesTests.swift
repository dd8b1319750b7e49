import AppBundle
@testable import Checks
import Foundation
import Testing
import TestSupport

/// `AppFiles.named`: the files a name rule matches, whether or not the byte prefilter lets a name
/// through unasked (ASCII names without any of the rule's texts) or asks about it (any other).
struct AppFilesTests {
    @Test func aRuleFindsExactlyTheNamesItMatches() throws {
        var builder = IPABuilder()
        let names = [
            "Frameworks/libsqlite3.dylib", "Frameworks/LibSQLCipher.dylib", "Frameworks/sqlite-notes.txt",
            "Xamarin.iOS.dll", "libmonosgen-2.0.dylib", "libxamarin-app.a", "other.txt",
            "Frameworks/caf\u{E9}-sqlite.dylib", "Frameworks/cafe\u{301}-sqlcipher.dylib",
        ]
        for name in names { builder.addFile(name, [1, 2, 3]) }
        let scratch = try ScratchDirectory("app-files")
        let archive = try AppArchive(path: try scratch.write("Sample.ipa", try builder.bytes()))
        let files = AppFiles(archive)
        func found(_ rule: AppFiles.NameRule) -> Set<String> {
            Set(files.named(rule).map { String($0.dropFirst("Payload/Sample.app/".count)) })
        }
        #expect(found(AppFiles.NameRule(anyOf: [.contains("sqlite")], suffix: ".dylib", excluding: ["sqlcipher"]))
            == ["Frameworks/libsqlite3.dylib", "Frameworks/caf\u{E9}-sqlite.dylib"])
        #expect(found(AppFiles.NameRule(anyOf: [.contains("sqlcipher")], suffix: ".dylib"))
            == ["Frameworks/LibSQLCipher.dylib", "Frameworks/cafe\u{301}-sqlcipher.dylib"])
        #expect(found(AppFiles.NameRule(anyOf: [.equals("xamarin.ios.dll"), .hasPrefix("libmonosgen"), .hasPrefix("libxamarin")]))
            == ["Xamarin.iOS.dll", "libmonosgen-2.0.dylib", "libxamarin-app.a"])
        // A non-ASCII text: every name is asked about, and canonical equivalents match.
        #expect(found(AppFiles.NameRule(anyOf: [.equals("cafe\u{301}-sqlite.dylib")])) == ["Frameworks/caf\u{E9}-sqlite.dylib"])
        #expect(found(AppFiles.NameRule(anyOf: [.equals("missing.dylib")])).isEmpty)
    }
}
