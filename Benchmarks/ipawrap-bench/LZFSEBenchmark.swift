enum LZFSEBenchmark: Benchmark {
    static let name = "lzfse"
    static let summary = "LZFSE decoding of a 1024x1024 rendition"

    static func run(_ arguments: [String]) throws {
        print("\(name): not implemented yet")
    }
}
