import Dispatch
import Foundation
import FormatSupport
import MachO
import Synchronization
import Zip

/// A bundle's main executable signed on a thread of its own while the bundle's resources are
/// hashed on the others: the code pages (most of a large executable's signing) need nothing from
/// the resources; only the signature's resource slot does, and the signer waits for it there
/// (`PendingResources`). The thread reads the executable through its own opening of the archive.
final class ExecutableSigning: Sendable {
    /// The executable's Mach-O headers and its signed bytes.
    struct Signed: Sendable {
        let file: MachOFile
        let code: SignedCode
        /// The start of its entry's deflate stream, made once its code was written (for a thin file,
        /// while the resources were still hashed).
        let deflatedPrefix: ArchiveEdits.DeflatedPrefix?
    }

    /// How the outermost bundle's executable is encoded so that its entry's size is known before
    /// its signature: stored (the size is the file's length, known from the layout), or, for a
    /// thin file, its revision's stream made up to the signature with the signature stored after
    /// it (`ArchiveEdits.Addition.deflatedPrefix`). The entries after it are then placed early.
    /// (A fat file's first signature already waits for the resources, so its later slices' code
    /// is written only once they are hashed: nothing would be gained; it is spliced as before.)
    struct EarlyEncoding: Sendable {
        /// The repack's options (its compression level).
        let options: RepackOptions
        /// The entry is written stored (deflate did not shrink the original).
        let stored: Bool
        /// Told the entry's data size as soon as it is known: starts the early copy.
        let onSizeKnown: (@Sendable (UInt64) -> Void)?
    }

    /// Nil until the thread is done; then what it made (nil: not Mach-O) or the error it met.
    private let outcome = Mutex<Result<Signed?, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts signing the file at `path` of `tree` (which must be a file).
    init(tree: BundleTree, path: String, signer: CodeSigner, inputs: CodeSigningInputs, early: EarlyEncoding? = nil) {
        let detached = tree.detachedFile(at: path)
        let clock = tree.archive.workClock()
        Thread.detachNewThread { [self] in
            let result = Result { () throws -> Signed? in
                guard let detached else { return nil }
                var (source, clock) = try detached.open(clock: clock)
                guard let file = try BundleTree.machO(from: &source, clock: clock) else { return nil }
                var inputs = inputs
                var prefix: ArchiveEdits.DeflatedPrefix?
                var codeWritten: (([UInt8], UInt64) throws -> Void)?
                if let early, early.stored {
                    inputs.laidOut = early.onSizeKnown
                } else if let early, file.slices.count == 1, case .entry(let entrySource) = source {
                    codeWritten = { code, length in
                        // Clamped: a length past Int is past what `deflatedPrefix` encodes whole (nil).
                        let total = Int(clamping: length)
                        prefix = try entrySource.deflatedPrefix(of: code, totalLength: total, level: early.options.compressionLevel)
                        if let prefix { early.onSizeKnown?(UInt64(prefix.encodedSize(totalLength: total))) }
                    }
                }
                let code = try signer.sign(
                    file: file, source: &source, inputs: inputs, path: path, hashingOnAllCores: true, codeWritten: codeWritten)
                return Signed(file: file, code: code, deflatedPrefix: prefix)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
    }

    /// Waits for the thread: the signed executable, nil when it is not Mach-O, or the error.
    func finish() -> Result<Signed?, any Error> {
        done.wait()
        done.signal()
        return outcome.withLock { $0 } ?? .success(nil)
    }
}

/// `_CodeSignature/CodeResources` for the executable's signer on its own thread: delivered once
/// by the thread that hashes the resources (nil when that failed, which makes the signer stop),
/// waited for by the signer.
final class PendingResources: Sendable {
    private enum State {
        case waiting
        case delivered([UInt8])
        case abandoned
    }

    private let state = Mutex(State.waiting)
    private let delivered = DispatchSemaphore(value: 0)

    func deliver(_ resources: [UInt8]?) {
        state.withLock { $0 = resources.map(State.delivered) ?? .abandoned }
        delivered.signal()
    }

    func wait() throws -> [UInt8] {
        delivered.wait()
        // Left signalled for any later wait.
        delivered.signal()
        switch state.withLock({ $0 }) {
        case .delivered(let bytes): return bytes
        case .waiting, .abandoned: throw CancellationError()
        }
    }
}
