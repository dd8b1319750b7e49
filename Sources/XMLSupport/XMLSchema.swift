import CLibxml2
import FormatSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an XML Schema (XSD) could not be compiled.
public struct XMLSchemaError: ReasonCodedError, Equatable {
    public enum Reason: String, ErrorReason, CaseIterable {
        case invalid = "XML_SCHEMA_INVALID"
    }

    /// 1-based line in the schema document, or 0 when unknown.
    public let line: Int
    public let message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    public var reason: Reason { .invalid }
    public var description: String {
        line > 0 ? "schema line \(line): \(message)" : "schema: \(message)"
    }
}

/// One way a document breaks its schema, as libxml2 reported it.
public struct XMLSchemaViolation: Sendable, Equatable, CustomStringConvertible {
    /// 1-based line of the offending node in the validated document, or 0 when unknown.
    public let line: Int
    /// libxml2's sentence, e.g. "Element 'PolicyHidden': [facet 'enumeration'] The value 'yes' is
    /// not an element of the set {'true', 'false'}."
    public let message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { line > 0 ? "line \(line): \(message)" : message }
}

/// A compiled W3C XML Schema (XSD 1.0), validated by libxml2's xmlschemas.
///
/// The schema text is read by `XMLDocument`, so it gets the same safety settings as any other
/// input, and a schema that includes, imports or redefines another schema is refused: compiling
/// one never reads another file or the network.
///
/// Sendable: the compiled schema is read-only after `init`, and validations are serialized by a
/// lock because libxml2 does not document concurrent use of one `xmlSchemaPtr` as safe.
public final class XMLSchema: @unchecked Sendable {
    /// Violations kept per validation; the rest are counted in `XMLSchemaValidation.omitted`.
    public static let violationLimit = 1000

    private let document: XMLDocument
    /// The compiled `xmlSchemaPtr`. Stored untyped so that modules using this class never need
    /// libxml2's headers, which clash with Foundation's ICU module when both are imported.
    private let schema: OpaquePointer
    private let lock = Lock()

    /// Compiles the schema in `bytes`.
    public init(bytes: [UInt8]) throws(XMLSchemaError) {
        let document: XMLDocument
        do {
            document = try XMLDocument(bytes: bytes)
        } catch {
            throw XMLSchemaError(line: error.line, message: "not well-formed XML: \(error.message)")
        }
        guard let root = document.root, root.name == "schema" else {
            throw XMLSchemaError(line: document.root?.line ?? 0, message: "the root element is not an XML Schema 'schema' element")
        }
        for child in root.children where ["import", "include", "redefine", "override"].contains(child.name) {
            throw XMLSchemaError(
                line: child.line,
                message: "the schema has an '\(child.name)' element; schemas that read other schemas are refused")
        }
        guard let parser = xmlSchemaNewDocParserCtxt(document.libxml2Document) else {
            throw XMLSchemaError(line: 0, message: "out of memory creating the schema parser")
        }
        defer { xmlSchemaFreeParserCtxt(parser) }
        let collector = ViolationCollector(limit: 1)
        let compiled: xmlSchemaPtr? = withExtendedLifetime(collector) {
            xmlSchemaSetParserStructuredErrors(parser, collectViolation, Unmanaged.passUnretained(collector).toOpaque())
            return xmlSchemaParse(parser)
        }
        guard let compiled, collector.violations.isEmpty else {
            if let compiled { xmlSchemaFree(compiled) }
            let first = collector.violations.first
            throw XMLSchemaError(line: first?.line ?? 0, message: first?.message ?? "libxml2 could not compile the schema")
        }
        // The schema parser keeps pointers into the document's tree; it lives as long as we do.
        self.document = document
        self.schema = compiled
    }

    deinit {
        xmlSchemaFree(schema)
    }

    /// Validates `document` and returns every violation in document order (empty when valid).
    public func validate(_ target: XMLDocument) -> XMLSchemaValidation {
        lock.lock()
        defer { lock.unlock() }
        guard let context = xmlSchemaNewValidCtxt(schema) else {
            return XMLSchemaValidation(violations: [XMLSchemaViolation(line: 0, message: "out of memory creating the schema validator")], omitted: 0)
        }
        defer { xmlSchemaFreeValidCtxt(context) }
        let collector = ViolationCollector(limit: XMLSchema.violationLimit)
        let result: Int32 = withExtendedLifetime(collector) {
            xmlSchemaSetValidStructuredErrors(context, collectViolation, Unmanaged.passUnretained(collector).toOpaque())
            return xmlSchemaValidateDoc(context, target.libxml2Document)
        }
        if result != 0, collector.violations.isEmpty, collector.omitted == 0 {
            collector.violations.append(XMLSchemaViolation(line: 0, message: "libxml2 could not validate the document (error \(result))"))
        }
        return XMLSchemaValidation(violations: collector.violations, omitted: collector.omitted)
    }

    /// Parses `bytes` with `XMLDocument`'s safety settings and validates the document.
    public func validate(bytes: [UInt8], maximumSize: Int = XMLDocument.defaultMaximumSize) throws(XMLParseError) -> XMLSchemaValidation {
        validate(try XMLDocument(bytes: bytes, maximumSize: maximumSize))
    }
}

// MARK: libxml2 plumbing

private final class ViolationCollector {
    let limit: Int
    var violations: [XMLSchemaViolation] = []
    var omitted = 0

    init(limit: Int) {
        self.limit = limit
    }
}

/// libxml2's structured-error callback; `userData` is the `ViolationCollector` of the call.
/// A global rather than a static member, so that looking up `XMLSchema`'s members never needs
/// libxml2's headers.
private let collectViolation: xmlStructuredErrorFunc = { userData, error in
    guard let userData, let error else { return }
    let collector = Unmanaged<ViolationCollector>.fromOpaque(userData).takeUnretainedValue()
    guard collector.violations.count < collector.limit else {
        collector.omitted += 1
        return
    }
    var message = error.pointee.message.map { String(cString: $0) } ?? "schema violation"
    while message.last?.isWhitespace == true { message.removeLast() }
    // The node's own line survives documents longer than 65535 lines; the error's may not.
    var line = Int(error.pointee.line)
    if let node = error.pointee.node {
        let nodeLine = Int(xmlGetLineNo(node.assumingMemoryBound(to: xmlNode.self)))
        if nodeLine > 0 { line = nodeLine }
    }
    collector.violations.append(XMLSchemaViolation(line: max(line, 0), message: message))
}

/// A mutual-exclusion lock. Foundation's NSLock is out of reach here: Foundation's ICU module
/// and libxml2's headers declare the same C types, so one module cannot import both.
private final class Lock {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
}

/// The outcome of one validation.
public struct XMLSchemaValidation: Sendable, Equatable {
    /// At most `XMLSchema.violationLimit` violations, in the order libxml2 found them.
    public let violations: [XMLSchemaViolation]
    /// How many further violations were dropped.
    public let omitted: Int

    public var isValid: Bool { violations.isEmpty && omitted == 0 }
}

extension XMLDocument {
    /// The encoding named in the XML declaration (`<?xml version="1.0" encoding="UTF-8"?>`), if any.
    public var declaredEncoding: String? {
        libxml2Document.pointee.encoding.map { String(cString: $0) }
    }
}
