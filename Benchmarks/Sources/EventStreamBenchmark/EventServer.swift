import Foundation

/// A loopback HTTP server, a Python child process, that answers `GET /events` with a fixed
/// `text/event-stream` body: the file it was given, sent chunked (16 KiB chunks) from memory
/// with one `sendall`, so the clients, not the server, are what is measured.
///
/// The child exits when its standard input closes, so it ends with this process even when
/// this process is killed.
final class EventServer {
    let url: String
    private let process: Process
    private let stdin: Pipe
    private let file: URL

    private static let script = #"""
        import http.server, os, sys, threading
        body = open(sys.argv[1], "rb").read()
        size = 16384
        framed = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size])
                          for i in range(0, len(body), size)) + b"0\r\n\r\n"

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                if self.path != "/events":
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.wfile.write(framed)

            def log_message(self, *args):
                pass

        def watch_parent():
            sys.stdin.buffer.read()
            os._exit(0)

        threading.Thread(target=watch_parent, daemon=True).start()
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// Starts the server on a free port, serving `body`.
    init(body: [UInt8]) throws {
        file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-events-\(UUID().uuidString)")
        try Data(body).write(to: file)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, file.path]
        stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // The first line is the port, once the server listens.
        var line = Data()
        while !line.contains(0x0A) {
            let more = stdout.fileHandleForReading.availableData
            guard !more.isEmpty else { break }
            line.append(more)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            try? FileManager.default.removeItem(at: file)
            throw CocoaError(.executableLoad)
        }
        url = "http://127.0.0.1:\(port)/events"
    }

    func stop() {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: file)
    }
}
