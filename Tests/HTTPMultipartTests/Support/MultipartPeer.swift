import Foundation
import HTTPMultipart
import TestSupport
import Testing

/// One part as a real multipart parser outside Swift saw it.
struct PeerPart: Decodable, Equatable, CustomStringConvertible {
    let name: String?
    let filename: String?
    let contentType: String?
    let headers: [[String]]
    let data: Data

    enum CodingKeys: String, CodingKey {
        case name, filename, headers, data
        case contentType = "content_type"
    }

    var description: String {
        "PeerPart(name: \(name.debugDescription), filename: \(filename.debugDescription), "
            + "contentType: \(contentType.debugDescription), \(data.count) bytes)"
    }
}

/// What the three Python parsers of `Tests/Peers/parse_multipart.py` made of a body.
struct PeerResult: Decodable {
    /// Parsed by PyPI `multipart`, which decodes the WHATWG escapes in names.
    let multipart: [PeerPart]
    /// Parsed by PyPI `python-multipart`, which keeps them.
    let pythonMultipart: [PeerPart]
    /// Parsed by Werkzeug (Flask): fields first, then files.
    let werkzeug: [PeerPart]

    enum CodingKeys: String, CodingKey {
        case multipart
        case pythonMultipart = "python_multipart"
        case werkzeug
    }
}

/// Runs the real parsers on encoded bytes, with the Python that `scripts/test` provides.
enum MultipartPeer {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Peers/parse_multipart.py")

    /// Parses `body` split by `boundary`.
    static func parse(_ body: Data, boundary: MultipartBoundary) async throws -> PeerResult {
        guard let python = ProcessInfo.processInfo.environment["HERON_PYTHON"], !python.isEmpty else {
            throw Failure(
                description: "HERON_PYTHON is not set: run the suite with scripts/test (or scripts/with-servers), "
                    + "which installs the multipart parsers into .venv")
        }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("heron-peer-\(UUID().uuidString).bin")
        try body.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let result = try await ExternalProcess.run(python, [script.path, input.path, boundary.value])
        guard result.status == 0 else {
            throw Failure(
                description: "the peer parser rejected the body (exit \(result.status)): "
                    + String(decoding: result.standardError, as: UTF8.self))
        }
        return try JSONDecoder().decode(PeerResult.self, from: result.standardOutput)
    }
}
