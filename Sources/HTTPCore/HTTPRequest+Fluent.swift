import Foundation

extension HTTPRequest {
    /// A typed store of per-request settings for the layers that send a request.
    ///
    /// HTTPCore knows none of them: a module that owns a concern (the client's timeout or
    /// retries) declares a key type and reads its value when it sends the request.
    public struct Options: Sendable {
        private var storage: [ObjectIdentifier: any Sendable] = [:]

        /// An empty store.
        public init() {}

        /// The value stored under `key`, or `nil`; setting `nil` removes it.
        /// - Parameter key: The key type.
        public subscript<Value: Sendable>(_ key: any OptionKey<Value>.Type) -> Value? {
            get { storage[ObjectIdentifier(key)] as? Value }
            set { storage[ObjectIdentifier(key)] = newValue }
        }

        /// Whether the store holds no value.
        public var isEmpty: Bool { storage.isEmpty }

        /// Adds the values of `other` to this store, `other`'s winning for a key both hold.
        /// - Parameter other: The values to lay over these.
        public mutating func lay(_ other: Options) {
            storage.merge(other.storage) { _, new in new }
        }
    }

    /// A key of ``Options``: a type whose `Value` is what the store holds for it.
    public protocol OptionKey<Value> {
        /// The type of the stored value.
        associatedtype Value: Sendable
    }

    // MARK: Method shortcuts

    /// A `GET` request for `url`, absolute or relative to a client's base URL.
    ///
    /// ```swift
    /// let request = HTTPRequest.get("users/42").header(.acceptLanguage, "it-it")
    /// ```
    /// - Parameter url: The target; text that is not a URL is kept as ``pendingError``.
    /// - Returns: The request.
    public static func get(_ url: String) -> HTTPRequest { HTTPRequest(method: .get, string: url) }

    /// A `POST` request for `url`.
    /// - Parameter url: The target; text that is not a URL is kept as ``pendingError``.
    /// - Returns: The request.
    public static func post(_ url: String) -> HTTPRequest { HTTPRequest(method: .post, string: url) }

    /// A `PUT` request for `url`.
    /// - Parameter url: The target; text that is not a URL is kept as ``pendingError``.
    /// - Returns: The request.
    public static func put(_ url: String) -> HTTPRequest { HTTPRequest(method: .put, string: url) }

    /// A `PATCH` request for `url`.
    /// - Parameter url: The target; text that is not a URL is kept as ``pendingError``.
    /// - Returns: The request.
    public static func patch(_ url: String) -> HTTPRequest { HTTPRequest(method: .patch, string: url) }

    /// A `DELETE` request for `url`.
    /// - Parameter url: The target; text that is not a URL is kept as ``pendingError``.
    /// - Returns: The request.
    public static func delete(_ url: String) -> HTTPRequest { HTTPRequest(method: .delete, string: url) }

    /// A `HEAD` request for `url`.
    /// - Parameter url: The target; text that is not a URL is kept as ``pendingError``.
    /// - Returns: The request.
    public static func head(_ url: String) -> HTTPRequest { HTTPRequest(method: .head, string: url) }

    /// A request for a URL given as text, absolute (`https://…`) or relative (`users/42`).
    ///
    /// Text that does not parse as a URL (a space, a stray `%`) does not crash and is not
    /// guessed at: the request keeps the error as ``pendingError``, with code
    /// ``HTTPCoreError/Code/invalidURL``, and a client throws it instead of sending.
    /// - Parameters:
    ///   - method: The method.
    ///   - string: The URL text.
    public init(method: HTTPMethod = .get, string: String) {
        if let url = Self.strictURL(string) {
            self.init(method: method, url: url)
        } else {
            self.init(method: method, url: URL(string: "about:blank")!)
            pendingError = HTTPCoreError(.invalidURL, value: string, reason: "the text does not parse as a URL")
        }
    }

    /// The URL `string` names, or `nil`: never a URL with characters percent-encoded by a guess.
    package static func strictURL(_ string: String) -> URL? {
        if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
            return URL(string: string, encodingInvalidCharacters: false)
        }
        return URL(string: string)
    }

    // MARK: Modifiers

    /// This request with a header field set, replacing fields of that name.
    ///
    /// A value with CR, LF or NUL is not set: the request keeps the error as
    /// ``pendingError`` and a client throws it, so a literal field needs no `try`.
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    /// - Returns: The request with the field.
    public func header(_ name: HTTPFieldName, _ value: String) -> HTTPRequest {
        modified { request throws(HTTPCoreError) in try request.headerFields.set(name, value) }
    }

    /// This request with a header field set by its name as text, such as `X-Api-Version`.
    /// - Parameters:
    ///   - name: The field name; an invalid one is kept as ``pendingError``.
    ///   - value: The field value.
    /// - Returns: The request with the field.
    public func header(_ name: String, _ value: String) -> HTTPRequest {
        modified { request throws(HTTPCoreError) in try request.headerFields.set(HTTPFieldName(name), value) }
    }

    /// This request with header fields set, in order, each replacing fields of its name.
    ///
    /// ```swift
    /// let request = HTTPRequest.get("search").headers([.accept: "application/json", .acceptLanguage: "it"])
    /// ```
    /// - Parameter fields: Names and values.
    /// - Returns: The request with the fields.
    public func headers(_ fields: KeyValuePairs<HTTPFieldName, String>) -> HTTPRequest {
        modified { request throws(HTTPCoreError) in
            for (name, value) in fields { try request.headerFields.set(name, value) }
        }
    }

    /// This request with header fields named by text set, such as a `[String: String]` from
    /// `URLRequest.allHTTPHeaderFields` or an Alamofire `HTTPHeaders` dictionary.
    ///
    /// The fields are set in the order of their names as written (sorted), so the result does
    /// not depend on the dictionary's order; each replaces the fields of its name, and of two
    /// names that differ only in case the later one in that order wins. An invalid name or value
    /// sets none of them: the request keeps the first error, in that order, as ``pendingError``
    /// and a client throws it, as ``header(_:_:)-(String,_)`` does.
    ///
    /// ```swift
    /// let request = HTTPRequest.get("me").headers(["Authorization": "Bearer abc", "X-Api-Version": "2"])
    /// ```
    /// - Parameter fields: Names and values.
    /// - Returns: The request with the fields.
    public func headers(_ fields: [String: String]) -> HTTPRequest {
        modified { request throws(HTTPCoreError) in
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                try request.headerFields.set(HTTPFieldName(name), value)
            }
        }
    }

    /// This request with `fields` set: for each name in `fields`, its fields replace the
    /// request's fields of that name; repeated fields of `fields` are all kept, in order.
    ///
    /// The fields take the position of the first field of their name in the request, or go at
    /// the end. Other fields of the request are kept. The fields were checked when they were
    /// made, so this cannot fail.
    /// - Parameter fields: Validated fields, such as a response's or another request's.
    /// - Returns: The request with the fields.
    public func headers(_ fields: HTTPFields) -> HTTPRequest {
        modified { request in request.headerFields.replace(with: fields) }
    }

    /// This request with a body, and its media type as `Content-Type` when given.
    /// - Parameters:
    ///   - body: The content.
    ///   - contentType: Its media type, if known.
    /// - Returns: The request with the body.
    public func body(_ body: HTTPBody, contentType: MediaType? = nil) -> HTTPRequest {
        var copy = self
        copy.body = body
        if let contentType {
            copy.headerFields.set(try! HTTPField(name: .contentType, value: contentType.description))
        }
        return copy
    }

    /// This request changed by `change`, or, when `change` throws, as it was with the error
    /// kept as ``pendingError`` (the first one a chain of modifiers met).
    ///
    /// The building block of fluent modifiers in other modules:
    /// ```swift
    /// extension HTTPRequest {
    ///     func traced(_ id: String) -> HTTPRequest {
    ///         modified { request in try request.headerFields.set(HTTPFieldName("X-Trace"), id) }
    ///     }
    /// }
    /// ```
    /// - Parameter change: Changes a copy of the request; may throw.
    /// - Returns: The changed request, or this one with the error.
    public func modified<Failure: Error>(_ change: (inout HTTPRequest) throws(Failure) -> Void) -> HTTPRequest {
        guard pendingError == nil else { return self }
        var copy = self
        do {
            try change(&copy)
            return copy
        } catch {
            var failed = self
            failed.pendingError = error
            return failed
        }
    }

    /// This request, or its ``pendingError`` thrown.
    /// - Returns: The request.
    /// - Throws: The error a fluent modifier kept.
    public func validated() throws -> HTTPRequest {
        if let pendingError { throw pendingError }
        return self
    }
}
