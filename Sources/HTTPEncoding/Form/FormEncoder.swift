import Foundation
import HTTPCore

/// Encodes `Encodable` values, and untyped parameter dictionaries, as
/// `application/x-www-form-urlencoded` form bodies and URL query strings.
///
/// The encoder is a real `Encoder`: a value encodes itself into a tree, which is then
/// written out in one linear pass into one byte buffer. The wire format is set by
/// ``style`` (arrays, bools, nesting, `nil`, spaces, key order, brackets); keys, dates
/// and data go through the same strategies as the multipart encoder. Every character
/// but the unreserved ones of RFC 3986 §2.3 is percent-encoded in keys and values, so
/// `&`, `=`, `+`, `#`, `/`, `?`, `[` and `]` inside a value can never change the shape
/// of the form.
///
/// ```swift
/// struct Search: Encodable {
///     var query: String
///     var tags: [String]
///     var page: Int
///     var exact: Bool
/// }
///
/// let encoder = FormEncoder()
/// let query = try encoder.encodeQuery(Search(query: "swift & http", tags: ["a", "b"], page: 2, exact: true))
/// // exact=1&page=2&query=swift%20%26%20http&tags%5B%5D=a&tags%5B%5D=b
/// let url = try encoder.appendQuery(parameters: ["page": 2], to: URL(string: "https://example.com/s?lang=en")!)
/// // https://example.com/s?lang=en&page=2
/// let body = try encoder.encodeBody(Search(query: "swift & http", tags: [], page: 1, exact: false))
/// // body.contentType == .formURLEncoded, spaces written as "+"
/// ```
public struct FormEncoder: Sendable {
    /// The wire format: arrays, bools, nesting, `nil`, spaces, key order and brackets.
    public var style: FormStyle
    /// How coding keys and dictionary keys are written; as written by default.
    public var keyEncodingStrategy: KeyEncodingStrategy
    /// How dates are written; ISO 8601 by default.
    public var dateEncodingStrategy: DateEncodingStrategy
    /// How `Data` is written; base64 by default.
    public var dataEncodingStrategy: DataEncodingStrategy

    /// Creates an encoder.
    /// - Parameters:
    ///   - style: The wire format; the most widely read spelling by default.
    ///   - keyEncodingStrategy: How keys are written.
    ///   - dateEncodingStrategy: How dates are written.
    ///   - dataEncodingStrategy: How `Data` is written.
    public init(
        style: FormStyle = FormStyle(), keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys,
        dateEncodingStrategy: DateEncodingStrategy = .iso8601, dataEncodingStrategy: DataEncodingStrategy = .base64
    ) {
        self.style = style
        self.keyEncodingStrategy = keyEncodingStrategy
        self.dateEncodingStrategy = dateEncodingStrategy
        self.dataEncodingStrategy = dataEncodingStrategy
    }

    // MARK: Encodable values

    /// Encodes `value` as a query string, without the leading `?`.
    ///
    /// Spaces are `%20` unless ``FormStyle/spaces`` says otherwise.
    /// - Parameter value: A value that encodes a keyed container (a struct or a dictionary).
    /// - Returns: The query, such as `page=2&tags%5B%5D=a`; empty when nothing is written.
    /// - Throws: ``HTTPEncodingError`` naming the key path of a value the format cannot
    ///   carry, or of a strategy or `encode(to:)` that threw.
    public func encodeQuery(_ value: some Encodable) throws(HTTPEncodingError) -> String {
        let context = FormEncodingContext(self, plusForSpace: plusForSpace(inBody: false))
        return String(decoding: try data(of: makeNode(value, context: context), context: context), as: UTF8.self)
    }

    /// Encodes `value` as a form body with its content type.
    ///
    /// Spaces are `+` unless ``FormStyle/spaces`` says otherwise.
    /// - Parameter value: A value that encodes a keyed container (a struct or a dictionary).
    /// - Returns: The body and `application/x-www-form-urlencoded`.
    /// - Throws: ``HTTPEncodingError`` as ``encodeQuery(_:)`` does.
    public func encodeBody(_ value: some Encodable) throws(HTTPEncodingError) -> EncodedBody {
        let context = FormEncodingContext(self, plusForSpace: plusForSpace(inBody: true))
        return EncodedBody(
            body: HTTPBody(try data(of: makeNode(value, context: context), context: context)),
            contentType: .formURLEncoded)
    }

    /// Returns `url` with `value` appended to its query, keeping the items already there
    /// and any fragment.
    /// - Parameters:
    ///   - value: A value that encodes a keyed container.
    ///   - url: The URL to extend.
    /// - Returns: The URL with the query appended; `url` itself when `value` writes nothing.
    /// - Throws: ``HTTPEncodingError`` as ``encodeQuery(_:)`` does, or
    ///   ``HTTPEncodingError/Code/invalidURL`` when the result is not a URL.
    public func appendQuery(_ value: some Encodable, to url: URL) throws(HTTPEncodingError) -> URL {
        try Self.append(query: encodeQuery(value), to: url)
    }

    // MARK: Untyped parameters

    /// Encodes an untyped parameter dictionary as a query string, without the leading `?`.
    ///
    /// Values may be `String`, `Substring`, `Character`, any standard integer, `Double`,
    /// `Float`, `Bool`, `Decimal`, `Date`, `Data`, `URL`, `UUID`, `NSNumber`, `NSNull`,
    /// an `Optional` of these, `[Any]`, `[String: Any]`, or any `Encodable` value; they
    /// go through the same style and strategies as typed values.
    /// - Parameter parameters: The parameters, such as `["page": 1, "tags": ["a", "b"]]`.
    /// - Returns: The query.
    /// - Throws: ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/unsupportedValue``
    ///   naming the key path and type of a value that cannot be encoded.
    public func encodeQuery(parameters: [String: Any]) throws(HTTPEncodingError) -> String {
        let context = FormEncodingContext(self, plusForSpace: plusForSpace(inBody: false))
        let node = try FormParameterConverter(context: context).node(forDictionary: parameters, depth: 1)
        return String(decoding: try data(of: node, context: context), as: UTF8.self)
    }

    /// Encodes an untyped parameter dictionary as a form body with its content type.
    /// - Parameter parameters: The parameters; see ``encodeQuery(parameters:)`` for the
    ///   values accepted.
    /// - Returns: The body and `application/x-www-form-urlencoded`.
    /// - Throws: ``HTTPEncodingError`` naming the key path of a value that cannot be encoded.
    public func encodeBody(parameters: [String: Any]) throws(HTTPEncodingError) -> EncodedBody {
        let context = FormEncodingContext(self, plusForSpace: plusForSpace(inBody: true))
        let node = try FormParameterConverter(context: context).node(forDictionary: parameters, depth: 1)
        return EncodedBody(body: HTTPBody(try data(of: node, context: context)), contentType: .formURLEncoded)
    }

    /// Returns `url` with untyped parameters appended to its query, keeping the items
    /// already there and any fragment.
    /// - Parameters:
    ///   - parameters: The parameters; see ``encodeQuery(parameters:)`` for the values accepted.
    ///   - url: The URL to extend.
    /// - Returns: The URL with the query appended; `url` itself when nothing is written.
    /// - Throws: ``HTTPEncodingError`` naming the key path of a value that cannot be encoded,
    ///   or ``HTTPEncodingError/Code/invalidURL``.
    public func appendQuery(parameters: [String: Any], to url: URL) throws(HTTPEncodingError) -> URL {
        try Self.append(query: encodeQuery(parameters: parameters), to: url)
    }

    // MARK: String fields

    /// Encodes text fields as `application/x-www-form-urlencoded` text, without `try`: string
    /// fields cannot fail.
    ///
    /// Keys and values are percent-encoded as every form of this encoder is: only the
    /// unreserved characters of RFC 3986 §2.3 stay bare, and a space is `+` unless
    /// ``FormStyle/spaces`` says `%20`. Keys go through ``keyEncodingStrategy``. The pairs are
    /// always sorted by their written keys, whatever ``FormStyle/keyOrder`` says (a dictionary
    /// has no order of its own), so the same fields always give the same text. The result reads
    /// back the same with any application/x-www-form-urlencoded parser (WHATWG URL Standard §5.1).
    ///
    /// Unlike ``encodeBody(parameters:)``, this refuses no key, so it cannot fail: an empty key
    /// is written as it is (`=value`), and a `[` or `]` in a key percent-encoded like any other
    /// character (`a%5B=1`), which a server that reads brackets as nesting (PHP, Rack) may read
    /// as a path. Two keys that the key strategy writes alike are both kept, ordered by value.
    ///
    /// ```swift
    /// let text = FormEncoder().encode(["user": "ada", "q": "a b&c"])
    /// // q=a+b%26c&user=ada
    /// ```
    /// - Parameter fields: The names and values.
    /// - Returns: The encoded pairs joined by `&`; empty when `fields` is.
    public func encode(_ fields: [String: String]) -> String {
        let plus = plusForSpace(inBody: true)
        var arena = FormBytes(capacity: fields.count * 16)
        defer { arena.free() }
        var pairs: [(key: Range<Int>, value: Range<Int>)] = []
        pairs.reserveCapacity(fields.count)
        for (key, value) in fields {
            let keyStart = arena.count
            arena.appendPercentEncoded(keyEncodingStrategy.encode(key), plusForSpace: plus)
            let valueStart = arena.count
            arena.appendPercentEncoded(value, plusForSpace: plus)
            pairs.append((keyStart..<valueStart, valueStart..<arena.count))
        }
        return arena.withUnsafeBufferPointer { bytes in
            pairs.sort { lhs, rhs in
                if bytes[lhs.key].elementsEqual(bytes[rhs.key]) {
                    return bytes[lhs.value].lexicographicallyPrecedes(bytes[rhs.value])
                }
                return bytes[lhs.key].lexicographicallyPrecedes(bytes[rhs.key])
            }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 2 * pairs.count)
            for pair in pairs {
                if !out.isEmpty { out.append(UInt8(ascii: "&")) }
                out.append(contentsOf: bytes[pair.key])
                out.append(UInt8(ascii: "="))
                out.append(contentsOf: bytes[pair.value])
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    // MARK: Internals

    private func plusForSpace(inBody: Bool) -> Bool {
        switch style.spaces.kind {
        case .automatic: return inBody
        case .plus: return true
        case .percent20: return false
        }
    }

    func makeNode(_ value: some Encodable, context: FormEncodingContext) throws(HTTPEncodingError) -> FormNode {
        let encoder = FormValueEncoder(context: context, parent: nil, key: nil)
        do {
            try encoder.encode(value)
        } catch let error as HTTPEncodingError {
            throw error
        } catch {
            throw HTTPEncodingError(
                .valueCodingFailed, value: "\(type(of: value))", reason: "encoding threw", underlying: error)
        }
        return encoder.node ?? .null
    }

    func data(of node: FormNode, context: FormEncodingContext) throws(HTTPEncodingError) -> Data {
        if let refused = context.refusal { throw refused }
        guard context.arenaFitsSlices else {
            throw HTTPEncodingError(
                .unsupportedValue, value: "\(context.arena.count) bytes", reason: "a form larger than 4 GiB")
        }
        return try context.arena.withUnsafeBufferPointer { arena throws(HTTPEncodingError) in
            var writer = FormWriter(style: style, arena: arena)
            do throws(HTTPEncodingError) {
                try writer.writeRoot(node)
            } catch {
                writer.discardOutput()
                throw error
            }
            return writer.takeData()
        }
    }

    /// Appends an encoded query to `url`, after its existing query and before its fragment.
    static func append(query: String, to url: URL) throws(HTTPEncodingError) -> URL {
        guard !query.isEmpty else { return url }
        var text = url.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        if let mark = text.firstIndex(of: "?") {
            if text.index(after: mark) != text.endIndex && !text.hasSuffix("&") { text += "&" }
        } else {
            text += "?"
        }
        text += query + fragment
        guard let result = URL(string: text) else {
            throw HTTPEncodingError(.invalidURL, value: text, reason: "appending the query did not give a valid URL")
        }
        return result
    }
}
