import Foundation

/// One named benchmark. Each format's benchmark lives in its own file.
protocol Benchmark {
    static var name: String { get }
    static var summary: String { get }
    static func run(_ arguments: [String]) throws
}

/// Wall-clock timings of repeated runs of one operation.
struct Timing: CustomStringConvertible {
    let samples: [Double]

    var minimum: Double { samples.min() ?? 0 }
    var median: Double {
        let sorted = samples.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    var description: String {
        String(format: "median %.3f ms, min %.3f ms over %d runs", median * 1000, minimum * 1000, samples.count)
    }

    /// Runs `body` `warmup` times unmeasured, then `iterations` times measured.
    static func measure(iterations: Int, warmup: Int = 1, _ body: () throws -> Void) rethrows -> Timing {
        for _ in 0..<warmup { try body() }
        var samples: [Double] = []
        samples.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return Timing(samples: samples)
    }
}
