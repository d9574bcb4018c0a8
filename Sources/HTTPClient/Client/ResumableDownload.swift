import Foundation
import HTTPCore

/// A download that stopped before its end and can go on from where it stopped, as Alamofire's
/// `resumeData`: the partial file, and the validator that says whether the server still has
/// the same content.
///
/// A failed ``Client/download(_:to:options:)`` gives one in ``ClientError/resumableDownload``
/// when its request asked to keep a partial download
/// (``RequestOptions/keepsPartialDownload``), the server named a strong validator (an `ETag`,
/// or a `Last-Modified` at least a second older than its `Date`, RFC 9110 §8.8.2.2) and some of
/// the body was written. It is `Codable`: save it, and after a restart hand it to
/// ``Client/download(resuming:request:options:)``, which asks for the rest with `Range` and
/// `If-Range` (RFC 9110 §14.2, §13.1.5). If the content changed meanwhile, the server sends
/// it whole, and the download starts over.
///
/// The partial file stays beside the destination until the download is resumed to its end or
/// ``discard()`` removes it.
///
/// ```swift
/// var options = RequestOptions()
/// options.keepsPartialDownload = true
/// do {
///     _ = try await client.download(.get("big.iso"), to: destination, options: options)
/// } catch let error as ClientError {
///     guard let resumable = error.resumableDownload else { throw error }
///     let saved = try JSONEncoder().encode(resumable)  // keep it across a restart
///     let again = try JSONDecoder().decode(ResumableDownload.self, from: saved)
///     let response = try await client.download(resuming: again)
///     print(response.status)  // 206 Partial Content
/// }
/// ```
public struct ResumableDownload: Sendable, Hashable, Codable {
    /// The URL the body came from (after redirects).
    public let url: URL
    /// Where the finished file goes.
    public let destination: URL
    /// The partial file, beside ``destination``.
    public let partialFile: URL
    /// How many bytes of the body the partial file holds.
    public let byteCount: Int64
    /// The whole body's length, when the server gave it.
    public let expectedByteCount: Int64?
    /// The strong validator sent back in `If-Range`: an entity tag (`"v1"`) or an HTTP date.
    public let validator: String

    /// Describes a partial download: one this library did not write (a file fetched in part
    /// by other means), or one saved in a form of your own.
    /// - Parameters:
    ///   - url: The URL the body comes from.
    ///   - destination: Where the finished file goes.
    ///   - partialFile: The bytes so far, on the same file system as `destination`.
    ///   - byteCount: How many bytes of `partialFile` are the body's first.
    ///   - expectedByteCount: The whole body's length, if known.
    ///   - validator: The strong validator (entity tag or HTTP date) of the content written.
    public init(
        url: URL, destination: URL, partialFile: URL, byteCount: Int64, expectedByteCount: Int64?, validator: String
    ) {
        self.url = url
        self.destination = destination
        self.partialFile = partialFile
        self.byteCount = byteCount
        self.expectedByteCount = expectedByteCount
        self.validator = validator
    }

    private enum CodingKeys: String, CodingKey {
        case url, destination, partialFile, byteCount, expectedByteCount, validator
    }

    /// Reads a saved value, checking it: file URLs for the files, a byte count that is not
    /// negative nor past the expected length, a validator that is not empty.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` naming the field that is missing, mistyped or wrong.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(URL.self, forKey: .url)
        destination = try container.decode(URL.self, forKey: .destination)
        partialFile = try container.decode(URL.self, forKey: .partialFile)
        byteCount = try container.decode(Int64.self, forKey: .byteCount)
        expectedByteCount = try container.decodeIfPresent(Int64.self, forKey: .expectedByteCount)
        validator = try container.decode(String.self, forKey: .validator)
        func wrong(_ key: CodingKeys, _ why: String) -> DecodingError {
            .dataCorruptedError(forKey: key, in: container, debugDescription: why)
        }
        guard destination.isFileURL else { throw wrong(.destination, "the destination is not a file URL") }
        guard partialFile.isFileURL else { throw wrong(.partialFile, "the partial file is not a file URL") }
        guard byteCount >= 0, byteCount <= expectedByteCount ?? .max else {
            throw wrong(.byteCount, "\(byteCount) bytes cannot be part of a body of \(expectedByteCount ?? 0) bytes")
        }
        guard !validator.isEmpty, !validator.contains(where: \.isNewline) else {
            throw wrong(.validator, "the validator is empty or holds a line break")
        }
    }

    /// Removes the partial file: the download will not be resumed.
    /// - Throws: `CocoaError` from `FileManager` when the file exists and cannot be removed.
    public func discard() throws {
        guard FileManager.default.fileExists(atPath: partialFile.path) else { return }
        try FileManager.default.removeItem(at: partialFile)
    }
}

/// The body of one download across the attempts of its call: one partial file that a cut
/// attempt leaves written so far, and that the next attempt continues with `Range` and
/// `If-Range` when the server named a strong validator; any other answer starts it over.
///
/// Attempts run one after another; the lock only makes the state safe to hand between the
/// tasks they run in.
final class DownloadBody: Sendable {
    /// Where the finished file goes.
    let destination: URL
    private let state: Locked<State>

    struct State {
        /// The file the body goes into, across attempts; `nil` before the first.
        var file: PartialFile<ClientError>?
        /// The file of the last attempt's answer when it was not the body (a `404`'s text):
        /// written apart, so the body written so far stays for a retry.
        var other: PartialFile<ClientError>?
        /// Whether the last attempt's answer went to ``other``.
        var lastWasOther = false
        /// Bytes of the body in ``file``.
        var written: Int64 = 0
        /// The whole body's length, when known.
        var expected: Int64?
        /// The strong validator of the body in ``file``, if the server gave one.
        var validator: String?
        /// The URL the body in ``file`` came from.
        var source: URL?
        /// The first byte the current attempt asked for, when it asked for the rest.
        var asked: Int64?
        /// Set when the caller's request has a `Range` of its own: the body is theirs to read.
        var callerRange = false
    }

    /// A body starting empty.
    init(destination: URL) {
        self.destination = destination
        state = Locked(State())
    }

    /// A body going on from `resumable`'s partial file.
    init(resuming resumable: ResumableDownload, request: HTTPRequest) throws(ClientError) {
        // The finished file is moved with rename(2), which works within one file system only.
        guard
            resumable.partialFile.deletingLastPathComponent().standardizedFileURL.path
                == resumable.destination.deletingLastPathComponent().standardizedFileURL.path
        else {
            throw ClientError(
                .invalidRequest,
                "the partial file \(resumable.partialFile.path) is not in the folder of the destination "
                    + "\(resumable.destination.path), where it is moved to when complete",
                request: request)
        }
        destination = resumable.destination
        let file = try PartialFile<ClientError>(
            resuming: resumable.partialFile.path, destination: resumable.destination
        ) { problem in
            ClientError(
                .fileWriteFailed, "\(problem.path): \(problem.reason)", request: request,
                underlying: problem.underlyingError)
        }
        // The file as it is on disk: a later write may have gone past what the value recorded.
        let written = try min(file.length(), resumable.byteCount)
        try file.truncate(to: written)
        state = Locked(
            State(
                file: file, written: written, expected: resumable.expectedByteCount, validator: resumable.validator,
                source: resumable.url))
    }

    /// Asks for the rest of the body when some is written and its validator is strong: `Range`
    /// from the next byte, `If-Range` with the validator, and no content coding (the offsets
    /// are the body's own bytes, RFC 9110 §14.1.1). A request with its own `Range` is left alone.
    func ask(_ request: inout HTTPRequest) {
        state.withLock { state in
            state.asked = nil
            if state.callerRange || request.headerFields.contains(.range) {
                state.callerRange = true
                return
            }
            guard state.written > 0, let validator = state.validator, state.expected.map({ state.written < $0 }) ?? true
            else { return }
            // All three, or none: a Range without its If-Range could append other content.
            var asking = request.headerFields
            do {
                try asking.set(.range, "bytes=\(state.written)-")
                try asking.set(.ifRange, validator)
                try asking.set(.acceptEncoding, "identity")
            } catch {
                state.validator = nil
                return
            }
            request.headerFields = asking
            state.asked = state.written
        }
    }

    /// Where the body of `head` goes, and from which byte, given what the attempt asked for.
    enum Plan {
        /// Into the body's file, after its first `from` bytes (0: the whole body, from its start).
        case body(PartialFile<ClientError>, from: Int64)
        /// Into a file of its own: not the body (an error's text, a caller's range).
        case other(PartialFile<ClientError>)
    }

    /// Decides where `response`'s body goes (RFC 9110 §14.4, §15.3.7).
    /// - Throws: ``ClientError/Code/invalidResponse`` when a `206` does not continue the body
    ///   written so far, or the server answers the request for the rest with `416`; the body
    ///   then starts over at the next attempt. A file failure.
    func plan(for response: HTTPResponse, request: HTTPRequest) throws -> Plan {
        try state.withLock { state throws -> Plan in
            func newFile(_ path: URL) throws(ClientError) -> PartialFile<ClientError> {
                try PartialFile(destination: path, request: request, response: response)
            }
            let status = response.status.code
            /// Empties the body's file, and the error that says the download starts over, whole,
            /// at the next attempt: the answer to the request for the rest cannot continue it.
            func startOver(_ answer: String, asked: Int64) throws -> ClientError {
                try state.file?.truncate(to: 0)
                state.written = 0
                state.validator = nil
                var error = ClientError(
                    .invalidResponse,
                    "the server answered a request for bytes \(asked)- of \(request.url) with \(answer) "
                        + "(Content-Range '\(response.headerFields[.contentRange] ?? "")'): the download starts over",
                    request: request, response: response)
                error.restartsDownload = true
                return error
            }
            if status == 416, let asked = state.asked {
                // The server has no byte past those written (RFC 9110 §15.5.17): the file held
                // is not a prefix of its content.
                throw try startOver("416, range not satisfiable", asked: asked)
            }
            guard (200..<300).contains(status), !state.callerRange else {
                state.other?.discard()
                let other = try newFile(destination)
                state.other = other
                state.lastWasOther = true
                return .other(other)
            }
            state.lastWasOther = false
            let file: PartialFile<ClientError>
            if let existing = state.file {
                file = existing
            } else {
                file = try newFile(destination)
                state.file = file
            }
            if status == 206, let asked = state.asked {
                let range = Self.contentRange(response)
                let sameValidator = Self.validator(of: response).map { $0 == state.validator } ?? true
                guard let range, range.first == asked, range.complete.map({ $0 == state.expected ?? $0 }) ?? true,
                    sameValidator
                else {
                    throw try startOver("a 206 that does not continue the \(asked) bytes written", asked: asked)
                }
                try file.truncate(to: asked)
                state.written = asked
                if state.expected == nil { state.expected = range.complete }
                return .body(file, from: asked)
            }
            // A whole body (a 200, or a 206 not asked for: the server chose): from its start.
            try file.truncate(to: 0)
            state.written = 0
            state.source = response.url ?? request.url
            // Coded content has no stable byte offsets to ask for: no resuming it.
            let coded = response.headerFields[.contentEncoding].map { !$0.isEmpty && $0 != "identity" } ?? false
            state.validator = coded ? nil : Self.validator(of: response)
            state.expected = coded ? nil : response.headerFields[.contentLength].flatMap { Int64($0) }
            return .body(file, from: 0)
        }
    }

    /// Counts bytes written to the body's file.
    func wrote(_ count: Int) { state.withLock { $0.written += Int64(count) } }

    /// After an attempt's body: fails with ``ClientError/Code/truncatedBody`` when the body's
    /// file holds fewer bytes than the whole body (a `206` that stopped short of the end, as a
    /// server capping its ranges sends), so a retry asks for the rest rather than the call
    /// ending with part of the file.
    func checkComplete(request: HTTPRequest, response: HTTPResponse) throws {
        let (written, expected) = state.withLock { ($0.written, $0.expected) }
        guard let expected, written < expected else { return }
        throw ClientError(
            .truncatedBody, "the body of \(request.url) holds \(written) of its \(expected) bytes after this answer",
            request: request, response: response)
    }

    /// Moves the last answer's file to the destination. When that answer was not the body (a
    /// `404`'s text), the body's partial file stays for a later resume if `keep` asks for it and
    /// it can be resumed; otherwise it is removed.
    /// - Returns: The destination.
    /// - Throws: ``ClientError/Code/fileWriteFailed``.
    func commit(keepingPartial keep: Bool) throws -> URL {
        try state.withLock { state throws -> URL in
            guard let file = state.lastWasOther ? state.other : state.file else {
                throw ClientError(.fileWriteFailed, "the download wrote no file for \(destination.path)")
            }
            let destination = try file.commit()
            if state.lastWasOther, let body = state.file {
                if keep, state.written > 0, state.validator != nil { body.keep() } else { body.discard() }
            }
            return destination
        }
    }

    /// After a failed call: the partial body kept for a later resume, if it can be resumed and
    /// `keep` asks for it; otherwise every file is removed.
    func finish(failed keep: Bool) -> ResumableDownload? {
        state.withLock { state in
            state.other?.discard()
            guard let file = state.file else { return nil }
            guard keep, !state.callerRange, state.written > 0, let validator = state.validator,
                let source = state.source
            else {
                file.discard()
                return nil
            }
            file.keep()
            return ResumableDownload(
                url: source, destination: destination, partialFile: URL(fileURLWithPath: file.path),
                byteCount: state.written, expectedByteCount: state.expected, validator: validator)
        }
    }

    /// A validator `If-Range` may carry (RFC 9110 §13.1.5): a strong entity tag, else a
    /// `Last-Modified` at least a second before the response's `Date` (§8.8.2.2); `nil` for a
    /// weak tag or no validator.
    static func validator(of response: HTTPResponse) -> String? {
        if let tag = response.headerFields[.eTag]?.trimmingCharacters(in: .whitespaces), !tag.isEmpty {
            return tag.hasPrefix("W/") ? nil : tag
        }
        guard let modifiedText = response.headerFields[.lastModified],
            let modified = HTTPDate.parse(modifiedText), let dateText = response.headerFields[.date],
            let date = HTTPDate.parse(dateText), date.timeIntervalSince(modified) >= 1
        else { return nil }
        return modifiedText
    }

    /// A `Content-Range: bytes first-last/complete` (RFC 9110 §14.4), or `nil`.
    static func contentRange(_ response: HTTPResponse) -> (first: Int64, last: Int64, complete: Int64?)? {
        guard let value = response.headerFields[.contentRange]?.trimmingCharacters(in: .whitespaces),
            value.lowercased().hasPrefix("bytes ")
        else { return nil }
        let parts = value.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else {
            return nil
        }
        if parts[1] == "*" { return (first, last, nil) }
        guard let complete = Int64(parts[1]), complete > last else { return nil }
        return (first, last, complete)
    }
}
