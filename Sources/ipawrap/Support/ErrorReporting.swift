import ArgumentParser
import FormatSupport
import Foundation

/// Runs a command body and turns every failure into one sentence on stderr and the exit status
/// of the command-line contract: 64 usage, 65 bad input, 74 I/O, 70 for an internal error.
func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as CodedError {
        Terminal.standardError("ipawrap: error[\(error.code)]: \(error)")
        throw ExitCode(error.category.exitStatus)
    } catch let error as ExitCode {
        throw error
    } catch {
        Terminal.standardError("ipawrap: internal error: \(error)")
        throw ExitCode(ExitStatus.internalError)
    }
}

func exitStatus(for category: ErrorCategory) -> Int32 {
    category.exitStatus
}

enum Terminal {
    static func standardError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
