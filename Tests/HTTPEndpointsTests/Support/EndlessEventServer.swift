import Foundation

@testable import HTTPCore

#if os(Linux)
import Glibc

/// An HTTP server on loopback (Linux only) that answers every request with an endless
/// `text/event-stream` (an event every `interval`, chunked), and counts the connections it
/// accepted and those it saw the client close: what the fault server cannot tell a test.
///
/// Each connection is served by a thread of its own with blocking sockets, off Swift's
/// cooperative pool. The server notices a closed connection when a write fails or a peek
/// reads the end of the stream, within one interval or two.
///
/// `@unchecked Sendable`: `listener` and `port` are set once in `init`; the counts live in
/// a `Locked`.
final class EndlessEventServer: @unchecked Sendable {
    /// How many connections were accepted and how many the client closed.
    struct Counts: Sendable, Equatable {
        var accepted = 0
        var closed = 0
    }

    /// The server's URL, `http://127.0.0.1:PORT`.
    let url: URL
    private let listener: Int32
    private let interval: Duration
    private let counts = Locked(Counts())

    /// The connections so far.
    var connections: Counts { counts.withLock { $0 } }

    /// Starts listening on a free port.
    /// - Parameter interval: The wait between two events.
    init(interval: Duration) throws {
        self.interval = interval
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw Failure(description: "bind() or listen() failed: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    /// Stops accepting connections; those open go on until their client closes them.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptConnections() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }  // the listener was closed
            counts.withLock { $0.accepted += 1 }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer {
            close(connection)
            counts.withLock { $0.closed += 1 }
        }
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            head += buffer[..<count]
        }
        let answer = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        guard write(Array(answer.utf8), to: connection) else { return }
        let pause = UInt32(
            interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        for number in 1... {
            let event = Array("id: \(number)\ndata: \(number)\n\n".utf8)
            guard write(Array(String(event.count, radix: 16).utf8) + [13, 10] + event + [13, 10], to: connection)
            else { return }
            // A client that closed its end: a peek reads the end of the stream at once.
            var probe: UInt8 = 0
            if recv(connection, &probe, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) == 0 { return }
            usleep(pause)
        }
    }

    /// Writes all of `bytes`; `false` once the connection is gone.
    private func write(_ bytes: [UInt8], to connection: Int32) -> Bool {
        var start = 0
        while start < bytes.count {
            let written = bytes[start...].withUnsafeBytes {
                send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return false }
            start += written
        }
        return true
    }

    struct Failure: Error, CustomStringConvertible { let description: String }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
#endif
