import Foundation
import Testing

/// One `ipawrap` run under `--time-limit`, with the wall time it took, the processor time it
/// used and its peak memory. The suite runs its tests in parallel on a 2-core machine, where a
/// process may wait seconds for a core: wall time then says more about the machine than about
/// ipawrap. Processor time (user + system, as the kernel accounted it to that one process) does
/// not grow with the machine's load, so the bound that proves the deadline is checked inside a
/// loop is on it.
public struct TimeLimitRun: Sendable {
    public let result: Command.Result
    public let wallSeconds: Double
    public let processorSeconds: Double
    /// The child's peak resident set (`ru_maxrss`), in bytes.
    public let peakMemoryBytes: Int

    /// Runs `ipawrap arguments` through a small Python parent that reports the child's resource use.
    public static func ipawrap(_ arguments: [String]) throws -> TimeLimitRun {
        try ipawrap(bytes: arguments.map { Array($0.utf8) })
    }

    /// Runs `ipawrap` with arguments given as bytes: a path that is not UTF-8, which `Process`
    /// cannot pass, reaches `execve` as it is (the Python parent takes them in hex).
    public static func ipawrap(bytes arguments: [[UInt8]], stdin: [UInt8]? = nil) throws -> TimeLimitRun {
        let scratch = try ScratchDirectory("time-limit-run")
        let usage = scratch.path("usage")
        // A run that hangs (a FIFO waited on) is killed after 120 s and reported as exit 124.
        let parent = """
            import resource, subprocess, sys
            try:
                status = subprocess.run([bytes.fromhex(argument) for argument in sys.argv[2:]], timeout=120).returncode
            except subprocess.TimeoutExpired:
                status = 124
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            with open(sys.argv[1], "w") as out:
                out.write("%r %d" % (used.ru_utime + used.ru_stime, used.ru_maxrss))
            sys.exit(status if status >= 0 else 128 - status)
            """
        let hex = ([Array(Command.ipawrapPath.utf8)] + arguments).map { $0.map { String(format: "%02x", $0) }.joined() }
        let start = ContinuousClock.now
        let result = try Command.run("python3", ["-c", parent, usage] + hex, input: stdin)
        let wall = (ContinuousClock.now - start) / .seconds(1)
        let fields = ((try? String(contentsOfFile: usage, encoding: .utf8)) ?? "").split(separator: " ")
        let processor = try #require(fields.first.flatMap { Double($0) }, "no resource use: \(result.stderr)")
        let peak = try #require(fields.last.flatMap { Int($0) }, "no peak memory: \(result.stderr)")
        return TimeLimitRun(result: result, wallSeconds: wall, processorSeconds: processor, peakMemoryBytes: peak * 1024)
    }

    /// A run that must stay cheap whatever its input: at most `processorSeconds` of processor
    /// time (more under a sanitizer) and `memoryBytes` of peak memory.
    public func expectBounded(
        processorSeconds bound: Double, memoryBytes: Int, sanitized: Bool, _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let slack = sanitized ? 4.0 : 1.0
        #expect(processorSeconds <= bound * slack + (sanitized ? 4 : 0),
                "\(label) used \(processorSeconds) s of processor time", sourceLocation: sourceLocation)
        // A sanitizer's shadow memory is not ipawrap's.
        if !sanitized {
            #expect(peakMemoryBytes <= memoryBytes, "\(label) peaked at \(peakMemoryBytes) bytes", sourceLocation: sourceLocation)
        }
    }

    /// docs/commands.md's promise for `--time-limit`, "within a second of the limit", in a form a busy
    /// machine cannot break: at most `limit` of work on each of the two worker cores, then at most
    /// a second more (more under a sanitizer, whose own work is not ipawrap's); and no hang (the
    /// wall time stays within a generous bound).
    public func expectWithin(limit: Double, sanitized: Bool, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let slack = sanitized ? 4.0 : 1.0
        #expect(processorSeconds <= 2 * limit + slack,
                "\(label) with --time-limit \(limit) used \(processorSeconds) s of processor time", sourceLocation: sourceLocation)
        #expect(wallSeconds <= limit + 30,
                "\(label) with --time-limit \(limit) took \(wallSeconds) s", sourceLocation: sourceLocation)
    }
}
