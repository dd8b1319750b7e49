import FormatSupport

/// Work on many entries of one archive on several cores: each worker opens the archive on its
/// own (a `ZipArchive` reads through its own file handle) and takes the next job, so inflating
/// and hashing overlap on as many entries as there are workers. Verification and signing both
/// hash entries this way; callers order the jobs largest first so the last one does not leave
/// a core idle.
public enum ParallelEntryWork {
    /// `perform` applied to every job, results in the jobs' order, the jobs taken in `order`
    /// (indices into `jobs`; by default as given). The error of the first failing job by index is
    /// thrown (`ConcurrentJobs`). Each worker opens `archive`'s file again under its name, limits
    /// and deadline; a single worker uses `archive` itself.
    public static func run<Job: Sendable, Result: Sendable>(
        _ jobs: [Job], order: [Int]? = nil, archive: ZipArchive, workers: Int,
        _ perform: @Sendable (Job, ZipArchive) throws -> Result
    ) throws -> [Result] {
        if min(workers, jobs.count) <= 1 { return try jobs.map { try perform($0, archive) } }
        let reopening = archive.reopening
        return try ConcurrentJobs.run(count: jobs.count, workers: workers, order: order, setUp: { try reopening.open() }) { zip, index in
            try perform(jobs[index], zip)
        }
    }
}
