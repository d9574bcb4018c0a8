import Foundation
import HTTPClient
import HTTPCore

extension CachingTransport {
    /// A `206 Partial Content` cut from a stored complete `200` for a request with one byte
    /// range (RFC 9110 §14.1.2, §15.3.7), or `nil` to send the request on: several ranges,
    /// a range the stored body cannot satisfy, or a body larger than the buffering limit.
    /// Partial responses from the origin are never stored.
    func servePartial(
        _ entry: CacheEntry, freshness: CacheFreshness, _ exchange: CacheExchange
    ) async throws
        -> TransportResponse?
    {
        guard exchange.request.method == .get, entry.head.status.code == 200,
            let header = exchange.request.headerFields[values: .range].first,
            entry.bodyLength <= Int64(exchange.options.responseBufferLimit),
            let range = ByteRange(header)?.resolved(length: entry.bodyLength),
            let full = serve(entry, freshness: freshness, exchange, outcome: .hit),
            let data = try? await full.body?.collect(upTo: exchange.options.responseBufferLimit),
            Int64(data.count) == entry.bodyLength
        else { return nil }
        let slice = data.subdata(in: Int(range.lowerBound)..<Int(range.upperBound))
        var head = full.head
        head.status = .partialContent
        head.headerFields.set(try! HTTPField(name: .contentLength, value: String(slice.count)))
        head.headerFields.set(
            try! HTTPField(
                name: .contentRange, value: "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(entry.bodyLength)"))
        return TransportResponse(head: head, body: HTTPBody(slice))
    }
}

/// One `bytes` range of a `Range` field (RFC 9110 §14.1.2): `first-last`, `first-` or
/// `-suffix`.
struct ByteRange: Equatable {
    var first: Int64?
    var last: Int64?

    /// Parses a field with exactly one byte range; `nil` for anything else.
    init?(_ field: String) {
        let text = field.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let before = spec[..<dash]
        let after = spec[spec.index(after: dash)...]
        first = before.isEmpty ? nil : CacheDirectives.DeltaSeconds.parse(before)
        last = after.isEmpty ? nil : CacheDirectives.DeltaSeconds.parse(after)
        if !before.isEmpty && first == nil { return nil }
        if !after.isEmpty && last == nil { return nil }
        if first == nil && last == nil { return nil }
        if let first, let last, last < first { return nil }
    }

    /// The half-open byte offsets this range selects from a body of `length` bytes, or `nil`
    /// when it selects none.
    func resolved(length: Int64) -> Range<Int64>? {
        guard length > 0 else { return nil }
        if let first {
            guard first < length else { return nil }
            return first..<min(length, (last ?? length - 1) + 1)
        }
        guard let last, last > 0 else { return nil }
        return max(0, length - last)..<length
    }
}
