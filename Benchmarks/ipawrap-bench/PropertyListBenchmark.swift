enum PropertyListBenchmark: Benchmark {
    static let name = "plist"
    static let summary = "property list parsing against Foundation's PropertyListSerialization"

    static func run(_ arguments: [String]) throws {
        print("\(name): not implemented yet")
    }
}
