#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP listener on 127.0.0.1 at an ephemeral port, never serving anything: a parser that tried
/// to fetch a URL naming it would leave a connection in its accept queue, which `acceptPending`
/// finds without blocking. `connectToSelf` is the control that shows a real attempt is seen.
final class LocalListener {
    struct Failure: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    let port: UInt16
    private let descriptor: Int32

    init() throws {
        let descriptor = Self.makeSocket()
        guard descriptor >= 0 else { throw Failure(call: "socket", code: errno) }
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 16) == 0,
              fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(call: "bind/listen", code: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(call: "getsockname", code: code)
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        close(descriptor)
    }

    /// Waits up to `milliseconds` for a connection, then accepts (and closes) every connection
    /// waiting; returns how many there were.
    func acceptPending(waiting milliseconds: Int32 = 200) -> Int {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&request, 1, milliseconds)
        var count = 0
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { break }  // EAGAIN: nothing (more) is waiting
            close(client)
            count += 1
        }
        return count
    }

    /// Connects to the listener, as a fetch would, and hands back the open client socket.
    func connectToSelf() throws -> Int32 {
        let client = Self.makeSocket()
        guard client >= 0 else { throw Failure(call: "socket", code: errno) }
        var address = Self.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(client)
            throw Failure(call: "connect", code: code)
        }
        return client
    }

    private static func makeSocket() -> Int32 {
        #if canImport(Glibc)
        socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
