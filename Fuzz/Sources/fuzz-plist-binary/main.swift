// Fuzzes the bplist00 reader. Besides "never crash", it checks that whatever is read is written
// back as binary to the same value, and that writing it as XML either works or refuses a string
// XML cannot hold.
import FuzzDriver
import PropertyList

func fuzzOne(_ bytes: [UInt8]) {
    guard let value = try? BinaryPropertyList(bytes: bytes).root else { return }
    do {
        let binary = try BinaryPropertyList.encode(value)
        let reread = try BinaryPropertyList(bytes: binary).root
        precondition(reread == value, "binary round trip changed the value")
    } catch {
        preconditionFailure("binary round trip failed: \(error)")
    }
    do {
        let xml = try XMLPropertyList.encode(value)
        _ = try XMLPropertyList(bytes: xml)
    } catch where error.reason == .xmlUnrepresentable {
        // Binary strings may hold control characters; XML 1.0 cannot.
    } catch {
        preconditionFailure("XML round trip failed: \(error)")
    }
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
