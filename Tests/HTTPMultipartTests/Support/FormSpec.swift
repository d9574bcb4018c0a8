import Foundation
import HTTPCore
import HTTPMultipart
import TestSupport

/// A form described independently of the encoder, so a test can build it (afresh for
/// each output, as stream parts are one-shot) and compare what a parser read back.
struct FormSpec: CustomStringConvertible {
    enum Source: CaseIterable {
        case text, data, file, inputStream, chunks
    }

    struct Part {
        let name: String
        let filename: String?
        let contentType: MediaType?
        let bytes: Data
        let source: Source

        /// The `Content-Type` the part must carry: none for text, the given one, the one
        /// inferred from the filename, or `application/octet-stream`.
        var expectedContentType: String? {
            if source == .text { return nil }
            if let contentType { return contentType.description }
            if let filename { return MediaType.inferred(forFilename: filename).description }
            return source == .file ? "application/octet-stream" : MediaType.octetStream.description
        }
    }

    var parts: [Part]
    let boundary: MultipartBoundary

    var description: String { "FormSpec(\(parts.count) parts, boundary \(boundary))" }

    /// Builds the form; file parts are written into `directory` first.
    func build(in directory: TemporaryDirectory) throws -> MultipartForm {
        var form = MultipartForm(boundary: boundary)
        for (index, part) in parts.enumerated() {
            switch part.source {
            case .text:
                form.append(name: part.name, value: String(decoding: part.bytes, as: UTF8.self))
            case .data:
                form.append(
                    name: part.name, data: part.bytes, filename: part.filename, contentType: part.contentType)
            case .file:
                let url = directory.url.appendingPathComponent("part-\(index).bin")
                if !FileManager.default.fileExists(atPath: url.path) { try part.bytes.write(to: url) }
                try form.append(name: part.name, fileAt: url, filename: part.filename, contentType: part.contentType)
            case .inputStream:
                form.append(
                    name: part.name, stream: InputStream(data: part.bytes), length: Int64(part.bytes.count),
                    filename: part.filename, contentType: part.contentType)
            case .chunks:
                form.append(
                    name: part.name, chunks: Self.chunked(part.bytes), length: Int64(part.bytes.count),
                    filename: part.filename, contentType: part.contentType)
            }
        }
        return form
    }

    /// `bytes` as an asynchronous sequence of uneven chunks.
    static func chunked(_ bytes: Data) -> AsyncStream<Data> {
        AsyncStream { continuation in
            var offset = 0
            var size = 1
            while offset < bytes.count {
                let end = min(bytes.count, offset + size)
                continuation.yield(bytes.subdata(in: offset..<end))
                offset = end
                size = size * 3 + 1
            }
            continuation.finish()
        }
    }

    /// The WHATWG escaping of a name or filename, written independently of the encoder.
    static func whatwgEscaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "%5C").replacingOccurrences(of: "\"", with: "%22")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}

extension FormSpec {
    /// A seeded random form: unicode names, filenames with quotes and newlines, binary
    /// payloads holding `--`, CRLF runs and the start of the boundary, empty parts and
    /// zero-byte files.
    static func random(seed: UInt64) -> FormSpec {
        var random = SplitMix64(seed: seed)
        let boundary = MultipartBoundary.random(using: &random)
        let count = Int.random(in: 1...12, using: &random)
        var parts: [Part] = []
        for _ in 0..<count {
            let source = Source.allCases.randomElement(using: &random)!
            let name = randomText(maxLength: 24, using: &random)
            var filename: String?
            if source != .text, Bool.random(using: &random) || source == .file {
                filename =
                    randomText(maxLength: 20, using: &random) + [".png", ".json", ".bin", "", ".tar.gz"]
                    .randomElement(using: &random)!
            }
            let contentType: MediaType? =
                source == .text || Bool.random(using: &random)
                ? nil : [MediaType.json, .plainText, .octetStream, .xml].randomElement(using: &random)!
            let bytes =
                source == .text
                ? Data(randomText(maxLength: 64, using: &random).utf8)
                : randomPayload(boundary: boundary, using: &random)
            parts.append(Part(name: name, filename: filename, contentType: contentType, bytes: bytes, source: source))
        }
        return FormSpec(parts: parts, boundary: boundary)
    }

    /// Unicode text without `%` and `\`, whose escapes parsers read ambiguously (see the
    /// guide); the deterministic tests cover those two.
    static func randomText(maxLength: Int, using random: inout SplitMix64) -> String {
        let pool: [String] = [
            "a", "b", "Z", "0", "9", " ", "\"", "\r", "\n", "\r\n", ";", "=", "-", "--", "_", ".", "'", "\t",
            "é", "ü", "ß", "漢", "字", "🦩", "Ж", "ش", "e\u{301}", "𝄞", "[", "]", ":", "/",
        ]
        let length = Int.random(in: 0...maxLength, using: &random)
        return (0..<length).map { _ in pool.randomElement(using: &random)! }.joined()
    }

    static func randomPayload(boundary: MultipartBoundary, using random: inout SplitMix64) -> Data {
        if Int.random(in: 0..<6, using: &random) == 0 { return Data() }
        var bytes = Data()
        let pieces = Int.random(in: 1...20, using: &random)
        let prefix = Array("\r\n--\(boundary.value)".utf8)
        for _ in 0..<pieces {
            switch Int.random(in: 0..<5, using: &random) {
            case 0: bytes.append(contentsOf: Array("--".utf8))
            case 1:
                bytes.append(
                    contentsOf: Array(repeating: "\r\n", count: Int.random(in: 1...4, using: &random)).joined().utf8)
            case 2: bytes.append(contentsOf: prefix[0..<Int.random(in: 1..<prefix.count, using: &random)])
            default:
                let length = Int.random(in: 0...3000, using: &random)
                bytes.append(contentsOf: (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })
            }
        }
        return bytes
    }
}
