import Foundation
import HTTPCore

/// Decodes `application/x-www-form-urlencoded` forms and query strings into `Decodable`
/// values: the inverse of ``FormEncoder`` for the same ``FormStyle`` and strategies.
///
/// Arrays are read in every style (`key[]=a`, `key=a&key=b`, `key[0]=a`), bools as
/// `1`/`0` or `true`/`false`, `+` as a space. A missing key reads as `nil` for an optional
/// and as an empty array or dictionary (a form cannot write an empty one). Errors name
/// the key path:
///
/// ```swift
/// struct Filter: Decodable {
///     var query: String
///     var tags: [String]
///     var page: Int
///     var exact: Bool
/// }
///
/// let filter = try FormDecoder().decode(Filter.self, from: "query=swift+%26+http&tags%5B%5D=a&page=2&exact=1")
/// // Filter(query: "swift & http", tags: ["a"], page: 2, exact: true)
///
/// do {
///     _ = try FormDecoder().decode(Filter.self, from: "query=x&page=two&exact=0")
/// } catch {
///     print(error)  // typeMismatch at page: "two": expected Int
/// }
/// ```
public struct FormDecoder: Sendable {
    /// The wire format to read; only ``FormStyle/nesting`` and ``FormStyle/nils`` change
    /// how input is read, since every array and bool spelling is accepted.
    public var style: FormStyle
    /// The strategy the sender wrote keys with: a key a type asks for is converted with
    /// it and looked up (then looked up as given).
    public var keyEncodingStrategy: KeyEncodingStrategy
    /// How dates are read; ISO 8601 by default.
    public var dateDecodingStrategy: DateDecodingStrategy
    /// How `Data` is read; base64 by default.
    public var dataDecodingStrategy: DataDecodingStrategy

    /// Creates a decoder.
    /// - Parameters:
    ///   - style: The wire format to read.
    ///   - keyEncodingStrategy: The strategy the sender wrote keys with.
    ///   - dateDecodingStrategy: How dates are read.
    ///   - dataDecodingStrategy: How `Data` is read.
    public init(
        style: FormStyle = FormStyle(), keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys,
        dateDecodingStrategy: DateDecodingStrategy = .iso8601, dataDecodingStrategy: DataDecodingStrategy = .base64
    ) {
        self.style = style
        self.keyEncodingStrategy = keyEncodingStrategy
        self.dateDecodingStrategy = dateDecodingStrategy
        self.dataDecodingStrategy = dataDecodingStrategy
    }

    /// Decodes a form body.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The body bytes.
    /// - Returns: The decoded value.
    /// - Throws: ``HTTPEncodingError`` naming the key path: ``HTTPEncodingError/Code/keyNotFound``,
    ///   ``HTTPEncodingError/Code/typeMismatch``, ``HTTPEncodingError/Code/valueNotFound``, or
    ///   ``HTTPEncodingError/Code/malformedInput`` for a key used as both a value and a container.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws(HTTPEncodingError) -> Value {
        var parser = FormParser(style: style)
        do {
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> Void in
                try parser.parse(raw.bindMemory(to: UInt8.self))
            }
        } catch let error as HTTPEncodingError {
            throw error
        } catch {
            throw HTTPEncodingError(.malformedInput, reason: "reading the form failed", underlying: error)
        }
        return try decode(type, root: parser.root)
    }

    /// Decodes a query string or form text; a leading `?` is skipped.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - text: Text such as `page=2&tags%5B%5D=a`.
    /// - Returns: The decoded value.
    /// - Throws: ``HTTPEncodingError`` naming the key path, as ``decode(_:from:)-(_,Data)`` does.
    public func decode<Value: Decodable>(_ type: Value.Type, from text: String) throws(HTTPEncodingError) -> Value {
        let query = text.hasPrefix("?") ? String(text.dropFirst()) : text
        return try decode(type, from: Data(query.utf8))
    }

    /// Decodes the query of `url`; a URL without a query decodes as an empty form.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - url: The URL whose query to read.
    /// - Returns: The decoded value.
    /// - Throws: ``HTTPEncodingError`` naming the key path, as ``decode(_:from:)-(_,Data)`` does.
    public func decode<Value: Decodable>(_ type: Value.Type, fromQueryOf url: URL) throws(HTTPEncodingError) -> Value {
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        return try decode(type, from: Data(query.utf8))
    }

    private func decode<Value: Decodable>(
        _ type: Value.Type, root: FormParsedObject
    ) throws(HTTPEncodingError)
        -> Value
    {
        let decoder = FormValueDecoder(
            context: FormDecodingContext(self), node: .object(root), parent: nil, key: nil)
        do {
            return try decoder.decode(type)
        } catch let error as HTTPEncodingError {
            throw error
        } catch let error as DecodingError {
            throw Self.wrap(error)
        } catch {
            throw HTTPEncodingError(
                .valueCodingFailed, value: "\(Value.self)", reason: "init(from:) threw", underlying: error)
        }
    }

    private static func wrap(_ error: DecodingError) -> HTTPEncodingError {
        switch error {
        case .keyNotFound(let key, let context):
            return HTTPEncodingError(
                .keyNotFound, keyPath: context.codingPath.formKeyPath + [key.stringValue],
                reason: context.debugDescription, underlying: error)
        case .typeMismatch(_, let context):
            return HTTPEncodingError(
                .typeMismatch, keyPath: context.codingPath.formKeyPath, reason: context.debugDescription,
                underlying: error)
        case .valueNotFound(_, let context):
            return HTTPEncodingError(
                .valueNotFound, keyPath: context.codingPath.formKeyPath, reason: context.debugDescription,
                underlying: error)
        case .dataCorrupted(let context):
            return HTTPEncodingError(
                .malformedInput, keyPath: context.codingPath.formKeyPath, reason: context.debugDescription,
                underlying: error)
        @unknown default:
            return HTTPEncodingError(.malformedInput, reason: "\(error)", underlying: error)
        }
    }
}

extension FormDecoder: ResponseDecoder {
    /// Decodes a form response body, checking that a declared `Content-Type` is
    /// `application/x-www-form-urlencoded`.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The response body.
    ///   - response: The response head.
    /// - Returns: The decoded value.
    /// - Throws: ``HTTPEncodingError`` with code ``HTTPEncodingError/Code/unexpectedContentType``
    ///   for another declared type, or as ``decode(_:from:)-(_,Data)`` does.
    public func decode<Value: Decodable>(
        _ type: Value.Type, from data: Data, response: HTTPResponse
    )
        throws(HTTPEncodingError) -> Value
    {
        if let contentType = response.contentType, contentType.essence != MediaType.formURLEncoded.essence {
            throw HTTPEncodingError(
                .unexpectedContentType, value: contentType.description,
                reason: "expected application/x-www-form-urlencoded for \(Value.self) (status \(response.status))")
        }
        return try decode(type, from: data)
    }
}
