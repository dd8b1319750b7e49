import FormatSupport
#if canImport(Glibc)
import Glibc
#endif

/// An output path that cannot be used at all (exit 64): it is one of the command's inputs, or a
/// folder where one file is written.
public struct OutputDestinationError: ReasonCodedError, Equatable {
    /// The stable code a user can search for.
    public enum Reason: String, ErrorReason, CaseIterable {
        case isInput = "OUTPUT_IS_INPUT"
        case isFolder = "OUTPUT_IS_FOLDER"

        public var category: ErrorCategory { .usage }
    }

    /// What is wrong, with the facts the message names.
    public enum Fault: Equatable, Sendable {
        /// The output resolves (after symbolic links) to the same file as this input.
        case isInput(String)
        case isFolder
    }

    public let path: String
    public let fault: Fault

    public var reason: Reason {
        switch fault {
        case .isInput: .isInput
        case .isFolder: .isFolder
        }
    }

    public var description: String {
        switch fault {
        case .isInput(let input) where input == path:
            "\(path): the output is an input of this command; write to another path (inputs are never modified)"
        case .isInput(let input):
            "\(path): the output is the same file as the input \(input); write to another path (inputs are never modified)"
        case .isFolder:
            "\(path): the output is a folder; name a file"
        }
    }
}

/// The checks every command makes on an output path before any work, so that no output ever
/// replaces a file the command reads.
public enum OutputDestination {
    /// Refuses `output` when it is a folder or the same file (device and inode, after symbolic
    /// links) as any of `inputs`. Inputs that do not exist are skipped (they fail on their own).
    public static func check(_ output: String, inputs: [String]) throws(OutputDestinationError) {
        var outputInfo = stat()
        guard FileSystem.stat(output, &outputInfo) == 0 else { return }
        if (outputInfo.st_mode & S_IFMT) == S_IFDIR {
            throw OutputDestinationError(path: output, fault: .isFolder)
        }
        // Device nodes and FIFOs are written through, never replaced: /dev/null as an output is
        // fine even when an input is /dev/null too (that input is refused on its own).
        guard (outputInfo.st_mode & S_IFMT) == S_IFREG else { return }
        for input in inputs {
            var inputInfo = stat()
            if FileSystem.stat(input, &inputInfo) == 0, inputInfo.st_dev == outputInfo.st_dev, inputInfo.st_ino == outputInfo.st_ino {
                throw OutputDestinationError(path: output, fault: .isInput(input))
            }
        }
    }
}
