import Foundation
import FuzzSupport
import HTTPCore
import HTTPMultipart

/// The multipart builder with hostile names and filenames: up to four parts whose names,
/// filenames and contents come from the input. Each part is either refused with
/// `invalidName` (a control character a header cannot hold, kept as the form's
/// `pendingError`) or appended; the encoded body
/// parses back, by a strict parser of its own here, to exactly the parts appended: the same
/// count, each with one `Content-Disposition` whose quoted `name` and `filename` are the
/// escaped values (no name can add a parameter, a header or a part, whether a parser reads
/// `\` as an escape or not), and the same content.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(UnsafeBufferPointer(start: data, count: size))
    let boundary = "fuzz-boundary-7Yq"
    var form = MultipartForm(boundary: try! MultipartBoundary(boundary))
    var expected: [(name: String, filename: String?, content: Data)] = []
    for piece in input.split(separator: 0x01, maxSplits: 3, omittingEmptySubsequences: false) {
        let fields = piece.split(separator: 0x02, maxSplits: 2, omittingEmptySubsequences: false)
        let name = String(decoding: fields[0], as: UTF8.self)
        let filename = fields.count > 2 ? String(decoding: fields[1], as: UTF8.self) : nil
        let content = Data(fields.count > 1 ? fields[fields.count - 1] : Data())
        // A refused part is kept as the form's pendingError: tried alone first, so that the form
        // encoded below holds only the parts appended.
        var trial = MultipartForm()
        trial.append(name: name, data: content, filename: filename, contentType: .octetStream)
        if let error = trial.pendingError {
            guard error.code == .invalidName, hasControlCharacter(name) || filename.map(hasControlCharacter) == true
            else { fatalError("\(name.debugDescription) / \(filename.debugDescription) refused: \(error)") }
            continue
        }
        form.append(name: name, data: content, filename: filename, contentType: .octetStream)
        guard form.pendingError == nil, trial.parts.count == 1 else { fatalError("an appended part was refused") }
        expected.append((escape(name), filename.map(escape), content))
    }
    let encoded: Data
    let built = form
    do {
        encoded = try wait { try await built.encodedInMemory().data ?? Data() }
    } catch let error as MultipartError where error.code == .boundaryInContent {
        // A content holding the delimiter is refused, as it must be.
        guard expected.contains(where: { $0.content.range(of: Data("--\(boundary)".utf8)) != nil }) else {
            fatalError("boundaryInContent without the delimiter in any content: \(error)")
        }
        return 0
    } catch {
        fatalError("encoding failed: \(error)")
    }
    let parts = parse(encoded, boundary: boundary)
    guard parts.count == expected.count else {
        fatalError("\(expected.count) parts appended, \(parts.count) parsed from \(encoded as NSData)")
    }
    for (part, want) in zip(parts, expected) {
        let disposition =
            want.filename.map { "form-data; name=\"\(want.name)\"; filename=\"\($0)\"" }
            ?? "form-data; name=\"\(want.name)\""
        guard part.headers == ["Content-Disposition: \(disposition)", "Content-Type: application/octet-stream"],
            part.content == want.content
        else { fatalError("part \(part.headers) differs from \(disposition) or its content") }
        for backslashEscapes in [false, true] {
            let parameters = dispositionParameters(disposition, backslashEscapes: backslashEscapes)
            guard parameters.map(\.0) == (want.filename == nil ? ["name"] : ["name", "filename"]),
                parameters[0].1 == want.name, parameters.count == 1 || parameters[1].1 == want.filename
            else { fatalError("\(disposition) splits as \(parameters) (backslash escapes: \(backslashEscapes))") }
        }
    }
    return 0
}

/// The escaping documented for names and filenames: `"` %22, CR %0D, LF %0A, `\` %5C.
func escape(_ value: String) -> String {
    var out = ""
    for scalar in value.unicodeScalars {
        switch scalar {
        case "\"": out += "%22"
        case "\r": out += "%0D"
        case "\n": out += "%0A"
        case "\\": out += "%5C"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}

/// Whether `value` holds a control character other than tab, CR and LF (or DEL).
func hasControlCharacter(_ value: String) -> Bool {
    value.utf8.contains { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0x0A) || $0 == 0x7F }
}

/// Runs `body` to its end from this synchronous function.
func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    nonisolated(unsafe) var result: Result<T, any Error>!
    // FuzzSupport's runBlocking returns once the task has let go of the value it made.
    runBlocking {
        do { result = .success(try await body()) } catch { result = .failure(error) }
    }
    return try result.get()
}

/// The parts of a multipart body (RFC 2046 §5.1.1): header lines and content, strictly:
/// any deviation from the layout the encoder must write is fatal.
func parse(_ body: Data, boundary: String) -> [(headers: [String], content: Data)] {
    let delimiter = Data("--\(boundary)".utf8)
    let crlf = Data("\r\n".utf8)
    var parts: [(headers: [String], content: Data)] = []
    guard body.starts(with: delimiter) else { fatalError("the body does not start with the delimiter") }
    var cursor = body.startIndex + delimiter.count
    while true {
        let rest = body[cursor...]
        if rest.starts(with: Data("--\r\n".utf8)) {
            guard rest.count == 4 else { fatalError("bytes after the close delimiter") }
            return parts
        }
        guard rest.starts(with: crlf) else { fatalError("no CRLF after a delimiter") }
        cursor += 2
        guard let headerEnd = body[cursor...].range(of: Data("\r\n\r\n".utf8)) else { fatalError("no header end") }
        let headers = String(decoding: body[cursor..<headerEnd.lowerBound], as: UTF8.self)
            .components(separatedBy: "\r\n")
        let next = Data("\r\n".utf8) + delimiter
        guard let contentEnd = body[headerEnd.upperBound...].range(of: next) else {
            fatalError("no delimiter after a part")
        }
        parts.append((headers, Data(body[headerEnd.upperBound..<contentEnd.lowerBound])))
        cursor = contentEnd.upperBound
    }
}

/// The parameters of a `form-data` disposition, read as WHATWG parsers do (a quoted string
/// ends at the next `"`) or, with `backslashEscapes`, as Werkzeug and python-multipart do
/// (`\` escapes the next character).
func dispositionParameters(_ value: String, backslashEscapes: Bool) -> [(String, String)] {
    var scalars = Substring(value).unicodeScalars[...]
    guard scalars.starts(with: "form-data".unicodeScalars) else { return [] }
    scalars = scalars.dropFirst(9)
    var parameters: [(String, String)] = []
    while let semicolon = scalars.first, semicolon == ";" {
        scalars = scalars.dropFirst()
        while scalars.first == " " { scalars = scalars.dropFirst() }
        var name = ""
        while let scalar = scalars.first, scalar != "=" {
            name.unicodeScalars.append(scalar)
            scalars = scalars.dropFirst()
        }
        guard scalars.first == "=", scalars.dropFirst().first == "\"" else { return parameters }
        scalars = scalars.dropFirst(2)
        var text = ""
        while let scalar = scalars.first, scalar != "\"" {
            scalars = scalars.dropFirst()
            if backslashEscapes, scalar == "\\", let escaped = scalars.first {
                text.unicodeScalars.append(escaped)
                scalars = scalars.dropFirst()
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        guard scalars.first == "\"" else { return parameters }
        scalars = scalars.dropFirst()
        parameters.append((name, text))
    }
    return parameters
}
