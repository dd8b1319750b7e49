// ipawrap-bench: micro-benchmarks of the format libraries, run in release mode:
//   swift run -c release ipawrap-bench            lists them
//   swift run -c release ipawrap-bench NAME ARGS  runs one
// Whole-command benchmarks (repack vs cp, inspect, wrap) live in Scripts/bench.
import Foundation

let benchmarks: [any Benchmark.Type] = [
    PropertyListBenchmark.self,
    PNGBenchmark.self,
    LZFSEBenchmark.self,
    PageHashBenchmark.self,
    FloorBenchmark.self,
]

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let benchmark = benchmarks.first(where: { $0.name == name }) else {
    print("usage: ipawrap-bench NAME [ARGS]\n")
    for benchmark in benchmarks {
        print("  \(benchmark.name.padding(toLength: 10, withPad: " ", startingAt: 0))  \(benchmark.summary)")
    }
    exit(arguments.isEmpty ? 0 : 64)
}
do {
    try benchmark.run(Array(arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("ipawrap-bench \(name): \(error)\n".utf8))
    exit(1)
}
