import Foundation
import HTTPEndpoints
import TestSupport
import Testing

/// The same hostile event streams, cut at random chunk boundaries and served by the fault
/// server's `/replay` route, read by Heron's client and by two widely used clients:
/// Debian's node-eventsource (the W3C `EventSource` for Node.js) and Python's httpx-sse.
/// Heron must read every stream as the WHATWG standard does (the plain reference reading
/// of the whole stream); where a peer reads one otherwise, the difference must be one the
/// test knows and explains, and the standard decides.
@Suite("Server-sent events: Heron, node-eventsource and httpx-sse read the same streams")
struct EventStreamPeerTests {
    typealias Event = ReferenceEventStream.Event
    static let caseCount = 1500

    /// Seeded hostile streams, each cut into chunks at random places.
    static func cases() -> [[[UInt8]]] {
        var random = SplitMix(seed: 2026)
        return (0..<caseCount).map { _ in
            let stream = ReferenceEventStream.hostileStream(&random)
            var chunks: [[UInt8]] = []
            var start = 0
            for cut in ReferenceEventStream.cuts(&random, count: stream.count) + [stream.count] where cut > start {
                chunks.append(Array(stream[start..<cut]))
                start = cut
            }
            return chunks
        }
    }

    @Test("a thousand and a half hostile streams cut at random: Heron reads each as the standard does")
    func peers() async throws {
        // A fault server of this test's own, at the lowest priority like the peers: the 4,500
        // streams it serves would otherwise take CPU from the tests that start with this one.
        let server = try await ReplayServer.start(python: try Self.python())
        defer { server.stop() }
        let base = server.url
        let cases = Self.cases()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-sse-cases-\(UUID()).json")
        let hex = cases.map { $0.map(Self.hex) }
        try JSONEncoder().encode(hex).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let pause = "0.0005"

        // The peers run at the lowest priority too: on a 2-core machine two interpreters at
        // full speed would starve the other tests of the suite, which start at the same time.
        async let node = Self.peer(
            "/usr/bin/env",
            [
                "NODE_PATH=/usr/share/nodejs", "nice", "-n", "19", "node",
                SnippetSource.packageRoot.path + "/Tests/Peers/sse_node.js",
            ], base: base, file: file, pause: pause)
        async let httpx = Self.peer(
            "/usr/bin/env",
            ["nice", "-n", "19", try Self.python(), SnippetSource.packageRoot.path + "/Tests/Peers/sse_httpx.py"],
            base: base, file: file, pause: pause)
        let client = Client(baseURL: base, retry: .none)
        var heron: [[Event]] = []
        for index in cases.indices {
            let stream = try await client.events(
                .get("replay").query(["file": file.path, "case": "\(index)", "pause": pause]))
            var events: [Event] = []
            for try await event in stream { events.append(Event(type: event.type, data: event.data, id: event.id)) }
            heron.append(events)
        }
        let standard = cases.map { ReferenceEventStream.events(of: $0.flatMap { $0 }) }
        for index in cases.indices {
            #expect(heron[index] == standard[index], "case \(index): \(cases[index])")
        }
        #expect(standard.reduce(0) { $0 + $1.count } > 1000)
        for (name, read) in [("node-eventsource", try await node), ("httpx-sse", try await httpx)] {
            #expect(read.count == cases.count, "\(name) read \(read.count) cases")
            var unexplained = 0
            var explained: [String: Int] = [:]
            for index in cases.indices where index < read.count && read[index] != standard[index] {
                if let why = Self.knownDifference(peer: name, chunks: cases[index], read: read[index]) {
                    explained[why, default: 0] += 1
                } else {
                    unexplained += 1
                    Issue.record(
                        "\(name), case \(index) \(cases[index]): read \(read[index]), the standard gives \(standard[index])"
                    )
                }
            }
            print(
                "\(name): \(cases.count - explained.values.reduce(0, +) - unexplained) of \(cases.count) streams read as the standard; differences: \(explained)"
            )
        }
    }

    /// What each peer is known to do otherwise than the standard, read off its source:
    /// - node-eventsource 2.0.2 parses a line only when it has a colon (`fieldLength > 0`),
    ///   so `data` and `id` lines without one are lost; it takes any `id`, NUL or not; and it
    ///   drops a BOM only when the first chunk it receives holds all three bytes.
    /// - httpx-sse 0.4.3 dispatches an event at a blank line when an event type, a last
    ///   event ID (which persists) or a retry is set, data or not; and it never drops a BOM.
    static let knownDeviations: [String: [ReferenceEventStream.Deviations]] = [
        "node-eventsource": [
            [.ignoresLinesWithoutColon, .takesIDWithNUL],
            [.ignoresLinesWithoutColon, .takesIDWithNUL, .keepsByteOrderMark],
        ],
        "httpx-sse": [[.dispatchesWithoutData, .keepsByteOrderMark]],
    ]

    /// The known deviations that explain how `peer` read the stream cut into `chunks`, or
    /// `nil` when none do.
    static func knownDifference(peer: String, chunks: [[UInt8]], read: [Event]) -> String? {
        let stream = chunks.flatMap { $0 }
        for deviations in knownDeviations[peer] ?? []
        where ReferenceEventStream.events(of: stream, deviations: deviations) == read {
            // Name only the deviations this stream brings out.
            let standard = ReferenceEventStream.events(of: stream)
            let telling = [.ignoresLinesWithoutColon, .takesIDWithNUL, .keepsByteOrderMark, .dispatchesWithoutData]
                .filter {
                    deviations.contains($0) && ReferenceEventStream.events(of: stream, deviations: $0) != standard
                }
            return telling.isEmpty ? deviations.description : telling.map(\.description).joined(separator: " + ")
        }
        // The chunks as sent, or as TCP may have joined them on the way.
        if peer == "node-eventsource",
            ReferenceEventStream.nodeEventSourceEvents(of: chunks) == read
                || ReferenceEventStream.nodeEventSourceEvents(of: [stream]) == read
        {
            return "loses a blank line after a CR earlier in its buffer (its rescan from the buffer start)"
        }
        return nil
    }

    static func peer(
        _ executable: String, _ arguments: [String], base: URL, file: URL, pause: String
    ) async throws
        -> [[Event]]
    {
        let output = try await ExternalProcess.run(
            executable, arguments + [base.absoluteString, file.path, "\(caseCount)", pause])
        guard output.status == 0 else {
            throw PeerFailure(
                description: "\(arguments.last ?? executable) exited with \(output.status): "
                    + String(decoding: output.standardError.suffix(2000), as: UTF8.self))
        }
        return try JSONDecoder().decode([[Event]].self, from: output.standardOutput)
    }

    /// `bytes` as lowercase hex digits.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func python() throws -> String {
        guard let python = ProcessInfo.processInfo.environment["HERON_PYTHON"], !python.isEmpty else {
            throw PeerFailure(description: "HERON_PYTHON is not set: run the suite with scripts/test")
        }
        return python
    }

    struct PeerFailure: Error, CustomStringConvertible { let description: String }

    /// Tests/Servers/fault_server.py started at `nice -n 19` on a free port.
    final class ReplayServer: Sendable {
        let url: URL
        private let process: Process

        private init(url: URL, process: Process) {
            self.url = url
            self.process = process
        }

        static func start(python: String) async throws -> ReplayServer {
            let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("heron-replay-\(UUID()).port")
            defer { try? FileManager.default.removeItem(at: portFile) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "nice", "-n", "19", python, SnippetSource.packageRoot.path + "/Tests/Servers/fault_server.py",
                "--port", "0", "--port-file", portFile.path,
            ]
            try process.run()
            for _ in 0..<200 {
                if let text = try? String(contentsOf: portFile, encoding: .utf8),
                    let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                    let url = URL(string: "http://127.0.0.1:\(port)")
                {
                    return ReplayServer(url: url, process: process)
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            kill(process.processIdentifier, SIGKILL)
            throw PeerFailure(description: "the replay server did not report its port within 10 s")
        }

        /// Kills the server: SIGKILL, since the test process may hand its children an
        /// ignored SIGTERM.
        func stop() { kill(process.processIdentifier, SIGKILL) }
    }
}
