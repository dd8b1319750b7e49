enum PNGBenchmark: Benchmark {
    static let name = "png"
    static let summary = "CgBI and PNG decoding"

    static func run(_ arguments: [String]) throws {
        print("\(name): not implemented yet")
    }
}
