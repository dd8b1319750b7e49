// Fuzzes the XML property-list reader. Besides "never crash", it checks that whatever is read
// can be written as XML and as binary, and reads back to the same value both ways.
import FuzzDriver
import PropertyList

func fuzzOne(_ bytes: [UInt8]) {
    guard let value = try? XMLPropertyList(bytes: bytes).root else { return }
    do {
        let xml = try XMLPropertyList.encode(value)
        let fromXML = try XMLPropertyList(bytes: xml).root
        precondition(fromXML == value, "XML round trip changed the value")
        let binary = try BinaryPropertyList.encode(value)
        let fromBinary = try BinaryPropertyList(bytes: binary).root
        precondition(fromBinary == value, "binary round trip changed the value")
    } catch {
        // Everything read from XML must be writable and readable again.
        preconditionFailure("round trip failed: \(error)")
    }
}

ipawrap_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
    fuzzOne(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
