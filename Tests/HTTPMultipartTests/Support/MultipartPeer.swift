import Foundation
import HTTPMultipart
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

/// What the two Python parsers of `Tests/Peers/parse_multipart.py` made of a body.
struct PeerResult: Decodable {
    /// Parsed by PyPI `multipart`, which decodes the WHATWG escapes in names.
    let multipart: [PeerPart]
    /// Parsed by PyPI `python-multipart`, which keeps them.
    let pythonMultipart: [PeerPart]

    enum CodingKeys: String, CodingKey {
        case multipart
        case pythonMultipart = "python_multipart"
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
    static func parse(_ body: Data, boundary: MultipartBoundary) throws -> PeerResult {
        guard let python = ProcessInfo.processInfo.environment["HERON_PYTHON"], !python.isEmpty else {
            throw Failure(
                description: "HERON_PYTHON is not set: run the suite with scripts/test (or scripts/with-servers), "
                    + "which installs the multipart parsers into .venv")
        }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("heron-peer-\(UUID().uuidString).bin")
        try body.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, input.path, boundary.value]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "the peer parser rejected the body (exit \(process.terminationStatus)): "
                    + String(decoding: stderr, as: UTF8.self))
        }
        return try JSONDecoder().decode(PeerResult.self, from: stdout)
    }
}
