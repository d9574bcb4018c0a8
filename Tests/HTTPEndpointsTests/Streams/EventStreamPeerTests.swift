import Foundation
import HTTPEndpoints
import TestSupport
import TestTraits
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
    static let caseCount = 2000
    /// One case in this many has a huge line (64 to 128 KiB) in the middle of its stream.
    static let hugeLineEvery = 10
    /// The data size from which an event counts as huge.
    static let hugeSize = 64 * 1024

    /// Seeded hostile streams, each cut into chunks at random places.
    static func cases() -> [[[UInt8]]] {
        var random = SplitMix(seed: 2026)
        return (0..<caseCount).map { index in
            var stream = ReferenceEventStream.hostileStream(&random)
            var most = 8
            if index % hugeLineEvery == hugeLineEvery - 1 {
                stream += ReferenceEventStream.hugeLine(&random)
                if random.below(4) > 0 { stream += Array("\n\n".utf8) }  // dispatch a huge data line
                stream += ReferenceEventStream.hostileStream(&random)
                most = 32
            }
            var chunks: [[UInt8]] = []
            var start = 0
            for cut in ReferenceEventStream.cuts(&random, count: stream.count, most: most) + [stream.count]
            where cut > start {
                chunks.append(Array(stream[start..<cut]))
                start = cut
            }
            return chunks
        }
    }

    @Test(
        "two thousand hostile streams, some with 64 KiB lines, cut at random: Heron reads each as the standard does",
        .heavyWork)
    func peers() async throws {
        // A fault server of this test's own, at the lowest priority like the peers: the 6,000
        // streams it serves would otherwise take CPU from the tests that start with this one.
        let server = try await ReplayServer.start(python: try Self.python())
        defer { server.stop() }
        let base = server.url
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-sse-cases-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        // Seconds of computing in a debug build: off the cooperative pool, which the other
        // tests of the suite need meanwhile (``DedicatedThread``).
        let (cases, standard) = try await DedicatedThread.run {
            let cases = Self.cases()
            try JSONEncoder().encode(cases.map { $0.map(Self.hex) }).write(to: file)
            return (cases, cases.map { ReferenceEventStream.events(of: $0.flatMap { $0 }) })
        }
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
        for index in cases.indices {
            #expect(heron[index] == standard[index], "case \(index): \(cases[index])")
        }
        #expect(standard.reduce(0) { $0 + $1.count } > 1200)
        let hugeCases = cases.indices.filter { index in standard[index].contains { $0.data.utf8.count >= Self.hugeSize }
        }
        #expect(hugeCases.count >= 40, "only \(hugeCases.count) cases dispatch a huge event")
        // For each peer, the cases it reads otherwise than the standard, with the reasons.
        var differences: [String: [Int: [String]]] = [:]
        for (name, reading) in [("node-eventsource", try await node), ("httpx-sse", try await httpx)] {
            let read = reading.events
            #expect(read.count == cases.count, "\(name) read \(read.count) cases")
            var explained: [Int: [String]] = [:]
            for index in cases.indices where index < read.count && read[index] != standard[index] {
                let sizes = reading.chunks.flatMap { index < $0.count ? $0[index] : nil }
                if let why = Self.knownDifference(peer: name, chunks: cases[index], read: read[index], sizes: sizes) {
                    explained[index] = why
                } else {
                    let model = sizes.map { "its model on them gives \(Self.brief(Self.nodeModel(cases[index], $0)))" }
                    let handed = sizes.map { "\($0)" } ?? "unknown"
                    let summary =
                        "\(name), case \(index) \(Self.brief(cases[index])), handed in chunks of \(handed): read "
                        + "\(Self.brief(read[index])), the standard gives \(Self.brief(standard[index])); \(model ?? "")"
                    Issue.record(Comment(rawValue: summary))
                }
            }
            differences[name] = explained
            // The huge lines reached the peer: it read the huge events of most of those cases.
            let hugeRead = hugeCases.filter { index in
                index < read.count && read[index].contains { $0.data.utf8.count >= Self.hugeSize }
            }
            #expect(hugeRead.count * 2 >= hugeCases.count, "\(name) read huge events in \(hugeRead.count) cases")
            var byReason: [String: Int] = [:]
            for reasons in explained.values { for reason in reasons { byReason[reason, default: 0] += 1 } }
            print(
                "\(name): \(cases.count - explained.count) of \(cases.count) streams read as the standard, "
                    + "\(hugeRead.count) of \(hugeCases.count) with a huge event among them or not; "
                    + "differences by reason (a case may have several): "
                    + byReason.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
        }
        // Where both peers read a stream otherwise than the standard, the standard (which Heron
        // follows) decides: the cases are named, grouped by the two peers' reasons.
        let nodeDiffers = differences["node-eventsource"] ?? [:]
        let httpxDiffers = differences["httpx-sse"] ?? [:]
        var both: [String: [Int]] = [:]
        for index in nodeDiffers.keys.sorted() {
            guard let byNode = nodeDiffers[index], let byHTTPX = httpxDiffers[index] else { continue }
            let key =
                "node-eventsource \(byNode.joined(separator: " + ")); httpx-sse \(byHTTPX.joined(separator: " + "))"
            both[key, default: []].append(index)
        }
        print("both peers read \(both.values.reduce(0) { $0 + $1.count }) streams otherwise than the standard:")
        for (reasons, indices) in both.sorted(by: { $0.key < $1.key }) {
            print("  \(reasons): cases \(indices.map(String.init).joined(separator: ", "))")
        }
    }

    /// What each peer is known to do otherwise than the standard, read off its source:
    /// - node-eventsource 2.0.2 parses a line only when it has a colon (`fieldLength > 0`),
    ///   so `data` and `id` lines without one are lost; it takes any `id`, NUL or not; it
    ///   drops a BOM only when a chunk that arrives on an empty buffer opens with all three
    ///   bytes (a split one is kept; one opening a later chunk is dropped too); and it scans
    ///   its buffer from the start for each line (``ReferenceEventStream/nodeEventSourceEvents(of:rescans:dropsEveryLeadingBOM:)``),
    ///   so these last two depend on where TCP cut the chunks it was handed, which it reports.
    /// - httpx-sse 0.4.3 dispatches an event at a blank line when an event type, a last
    ///   event ID (which persists) or a retry is set, data or not; and it never drops a BOM.
    static let knownDeviations: [String: [ReferenceEventStream.Deviations]] = [
        "node-eventsource": [
            [.ignoresLinesWithoutColon, .takesIDWithNUL],
            [.ignoresLinesWithoutColon, .takesIDWithNUL, .keepsByteOrderMark],
        ],
        "httpx-sse": [[.dispatchesWithoutData, .keepsByteOrderMark]],
    ]

    /// The known deviations that explain how `peer` read the stream cut into `chunks` (and
    /// handed to it in chunks of `sizes`, when known), one reason each, or `nil` when none do.
    static func knownDifference(peer: String, chunks: [[UInt8]], read: [Event], sizes: [Int]? = nil) -> [String]? {
        let stream = chunks.flatMap { $0 }
        for deviations in knownDeviations[peer] ?? []
        where ReferenceEventStream.events(of: stream, deviations: deviations) == read {
            // Name only the deviations this stream brings out.
            let standard = ReferenceEventStream.events(of: stream)
            let telling = [.ignoresLinesWithoutColon, .takesIDWithNUL, .keepsByteOrderMark, .dispatchesWithoutData]
                .filter {
                    deviations.contains($0) && ReferenceEventStream.events(of: stream, deviations: $0) != standard
                }
            return telling.isEmpty ? ["jointly: \(deviations.description)"] : telling.map(\.description)
        }
        guard peer == "node-eventsource" else { return nil }
        // node-eventsource's reading depends on where its chunks were cut: model it on the
        // chunks it was handed (as TCP delivered them), else on those sent or the whole stream.
        var received: [[UInt8]] = []
        if let sizes, sizes.reduce(0, +) == stream.count {
            var start = 0
            for size in sizes {
                received.append(Array(stream[start..<start + size]))
                start += size
            }
        }
        for cut in [received, chunks, [stream]] where !cut.isEmpty {
            guard ReferenceEventStream.nodeEventSourceEvents(of: cut) == read else { continue }
            var reasons = [ReferenceEventStream.Deviations.ignoresLinesWithoutColon, .takesIDWithNUL].filter {
                ReferenceEventStream.events(of: stream, deviations: $0) != ReferenceEventStream.events(of: stream)
            }.map(\.description)
            if ReferenceEventStream.nodeEventSourceEvents(of: cut, rescans: false) != read {
                reasons.append(
                    "loses a blank line after a CR earlier in its buffer (it scans the buffer from its start)")
            }
            if ReferenceEventStream.nodeEventSourceEvents(of: cut, dropsEveryLeadingBOM: false) != read {
                reasons.append("drops a BOM opening any chunk it reads with an empty buffer")
            }
            return reasons.isEmpty ? ["reads its buffer as its model says"] : reasons
        }
        return nil
    }

    /// What a peer read: each case's events and, when the peer reports them, the sizes of
    /// the body chunks it was handed.
    struct PeerReading: Decodable {
        var events: [[Event]]
        var chunks: [[Int]]?
    }

    static func peer(
        _ executable: String, _ arguments: [String], base: URL, file: URL, pause: String
    ) async throws
        -> PeerReading
    {
        let output = try await ExternalProcess.run(
            executable, arguments + [base.absoluteString, file.path, "\(caseCount)", pause])
        guard output.status == 0 else {
            throw PeerFailure(
                description: "\(arguments.last ?? executable) exited with \(output.status): "
                    + String(decoding: output.standardError.suffix(2000), as: UTF8.self))
        }
        if output.standardOutput.first == UInt8(ascii: "{") {
            return try JSONDecoder().decode(PeerReading.self, from: output.standardOutput)
        }
        return PeerReading(events: try JSONDecoder().decode([[Event]].self, from: output.standardOutput))
    }

    /// Events with their data cut short, for messages.
    static func brief(_ events: [Event]) -> String {
        events.map { event in
            let data =
                event.data.count > 60
                ? "\(event.data.prefix(60).debugDescription)… (\(event.data.utf8.count) bytes)"
                : event.data.debugDescription
            return "\(event.type) #\(event.id.prefix(20)): \(data)"
        }.description
    }

    /// A stream's chunks cut short, for messages: those of 100 bytes or more by their size.
    static func brief(_ chunks: [[UInt8]]) -> String {
        chunks.map { $0.count < 100 ? $0.description : "<\($0.count) bytes>" }.joined(separator: ", ")
    }

    /// node-eventsource's model read of the stream of `chunks` handed to it in chunks of `sizes`.
    static func nodeModel(_ chunks: [[UInt8]], _ sizes: [Int]) -> [Event] {
        let stream = chunks.flatMap { $0 }
        guard sizes.reduce(0, +) == stream.count else { return [] }
        var start = 0
        return ReferenceEventStream.nodeEventSourceEvents(
            of: sizes.map { size in
                defer { start += size }
                return Array(stream[start..<start + size])
            })
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
