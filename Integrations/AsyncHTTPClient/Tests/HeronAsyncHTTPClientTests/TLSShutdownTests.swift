import AsyncHTTPClient
import Foundation
import HTTPClient
import HTTPCore
import HeronAsyncHTTPClient
import NIOCore
import Testing

/// A download over TLS cancelled by its caller, against a local HTTPS server (Python's `ssl`,
/// with a private CA that `openssl` makes at test time) that sends for as long as it can: how
/// long after the cancel the server's writes fail is how long the closing connection lingered.
@Suite("AsyncHTTPClientTransport: a cancelled download over TLS")
struct TLSShutdownTests {
    /// The server: answers one request with an endless chunked body, then prints when its
    /// writes failed (seconds since 1970).
    static let server = #"""
        import socket, ssl, sys, time
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        with open(sys.argv[3] + ".tmp", "w") as port:
            port.write(str(listener.getsockname()[1]))
        import os
        os.rename(sys.argv[3] + ".tmp", sys.argv[3])
        connection, _ = listener.accept()
        tls = context.wrap_socket(connection, server_side=True)
        head = b""
        while b"\r\n\r\n" not in head:
            head += tls.recv(4096)
        tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"4000\r\n" + b"x" * 0x4000 + b"\r\n"
        try:
            while True:
                tls.sendall(chunk)
                time.sleep(0.002)
        except Exception:
            pass
        print(time.time(), flush=True)
        """#

    /// Runs `arguments` to its end; fails with its output when it exits non-zero.
    static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ClientError(.transport, "\(executable) \(arguments.first ?? "") failed: \(text)")
        }
    }

    /// A CA and a certificate for 127.0.0.1 it signed, in `directory`: (CA, certificate, key).
    static func certificates(in directory: URL) throws -> (ca: String, certificate: String, key: String) {
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let openssl = "/usr/bin/openssl"
        try run(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                path("ca.key"), "-out", path("ca.pem"), "-days", "1", "-subj", "/CN=Heron test CA",
            ])
        try run(
            openssl,
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("leaf.key"),
                "-out", path("leaf.csr"), "-subj", "/CN=127.0.0.1",
            ])
        try Data("subjectAltName=IP:127.0.0.1\n".utf8).write(to: directory.appendingPathComponent("leaf.ext"))
        try run(
            openssl,
            [
                "x509", "-req", "-in", path("leaf.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                "-CAcreateserial", "-out", path("leaf.pem"), "-days", "1", "-extfile", path("leaf.ext"),
            ])
        return (path("ca.pem"), path("leaf.pem"), path("leaf.key"))
    }

    /// Seconds from the cancel of a download over TLS to the server's failed write, with a
    /// transport whose closing connection waits `shutdown` for the server's `close_notify`.
    static func lingering(shutdown: Duration) async throws -> Double {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heron-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (ca, certificate, key) = try certificates(in: directory)
        let portFile = directory.appendingPathComponent("port").path
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        server.arguments = ["python3", "-c", Self.server, certificate, key, portFile]
        let output = Pipe()
        server.standardOutput = output
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        var port: Int?
        for _ in 0..<500 where port == nil {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let serverPort = try #require(port)

        var settings = AsyncHTTPClientTransport.clientConfiguration(.init(tlsShutdownTimeout: shutdown))
        settings.tlsConfiguration?.trustRoots = .file(ca)
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: settings)
        let transport = AsyncHTTPClientTransport(client: client)
        var options = TransportOptions()
        options.awaitsWholeBody = false
        let response = try await transport.send(
            HTTPRequest(url: URL(string: "https://127.0.0.1:\(serverPort)/endless")!), options: options)
        let body = try #require(response.body)
        let reading = Task {
            var received = 0
            for try await chunk in body.chunks() { received += chunk.count }
            return received
        }
        try await Task.sleep(for: .milliseconds(300))
        let cancelledAt = Date().timeIntervalSince1970
        reading.cancel()
        _ = try? await reading.value
        // The server prints when its writes failed, then exits; 15 s at most.
        let ended = Task.detached { output.fileHandleForReading.readDataToEndOfFile() }
        let watchdog = Task.detached {
            try await Task.sleep(for: .seconds(15))
            server.terminate()
        }
        let printed = String(decoding: await ended.value, as: UTF8.self)
        watchdog.cancel()
        try await client.shutdown()
        let stopped = try #require(Double(printed.trimmingCharacters(in: .whitespacesAndNewlines)))
        return stopped - cancelledAt
    }

    @Test("the server stops sending within a second of the cancel; with NIOSSL's 5 s it sends on for seconds")
    func closesPromptly() async throws {
        let prompt = try await Self.lingering(shutdown: AsyncHTTPClientTransport.Configuration().tlsShutdownTimeout)
        #expect(prompt < 1.0, "the server sent for \(prompt) s after the cancel")
        // What the transport's clients did before (NIOSSL's default), to show the measure sees it.
        let before = try await Self.lingering(shutdown: .seconds(5))
        #expect(before > 3.0, "with a 5 s shutdown timeout the server stopped after \(before) s")
        print("TLS shutdown: the server sent on \(prompt) s after the cancel (5 s timeout: \(before) s)")
    }
}
