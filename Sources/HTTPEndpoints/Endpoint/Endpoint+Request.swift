import Foundation
import HTTPCore
import HTTPEncoding
import HTTPMultipart

extension Endpoint {
    /// Builds the request this endpoint sends for `value`, without sending it: the template
    /// expanded, the value encoded, the header fields set.
    ///
    /// The client's variable providers are not consulted (they are asynchronous); pass such
    /// values in `variables`. The URL is relative when the template is.
    ///
    /// ```swift
    /// let request = try Blog.create.makeRequest(NewPost(title: "Hi"))
    /// print(request)  // POST /posts
    /// ```
    /// - Parameters:
    ///   - value: The request value.
    ///   - variables: Template variables, winning over the value's properties.
    ///   - defaults: The encoders and decoder to use; the built-in ones by default.
    /// - Returns: The request.
    /// - Throws: ``EndpointError``: an invalid declaration, a missing or invalid variable,
    ///   a value that cannot be encoded, or an expansion that is not a URL.
    public func makeRequest(
        _ value: Request, variables: [String: any Encodable & Sendable] = [:],
        defaults: EndpointDefaults = EndpointDefaults()
    ) throws(EndpointError) -> HTTPRequest {
        try makeRequest(value, explicit: encoded(variables), provided: [:], defaults: defaults)
    }

    /// The call-time variables as template values.
    func encoded(_ variables: [String: any Encodable & Sendable]) throws(EndpointError) -> [String: URITemplate.Value] {
        var values: [String: URITemplate.Value] = [:]
        values.reserveCapacity(variables.count)
        for (name, variable) in variables {
            do throws(VariableShapeError) {
                values[name] = try TemplateVariableEncoder.value(of: variable)
            } catch {
                throw EndpointError(
                    .invalidVariable, endpoint: self.name, "the variable \"\(name)\": \(error.reason)", variable: name)
            }
        }
        return values
    }

    /// Builds the request from the value and the variables given at call time and by providers.
    func makeRequest(
        _ value: Request, explicit: [String: URITemplate.Value], provided: [String: URITemplate.Value],
        defaults: EndpointDefaults
    ) throws(EndpointError) -> HTTPRequest {
        let template = try validTemplate()

        // The value's properties fill what neither the call nor a provider gave.
        var values = provided
        if !explicit.isEmpty { values.merge(explicit) { _, call in call } }
        if let properties = body.properties {
            let wanted = variableNames.filter { values[$0] == nil }
            if !wanted.isEmpty {
                do throws(VariableShapeError) {
                    values.merge(try properties(value, wanted)) { given, _ in given }
                } catch {
                    throw EndpointError(.invalidVariable, endpoint: name, "the request value's \(error.reason)")
                }
            }
        }
        try checkRequired(values)

        var target: String
        do throws(URITemplateError) {
            target = try template.expand { name in values[name] }
        } catch {
            throw EndpointError(
                .invalidVariable, endpoint: name, "the template cannot take a value: \(error.reason)",
                underlying: error)
        }

        try checkShape(of: target)

        let output: RequestEncoding<Request>.Output
        do {
            output = try body.encode(value, method, variableNames, defaults)
        } catch {
            throw Self.encodingFailure(error, endpoint: name)
        }
        var requestBody: HTTPBody?
        var contentType: MediaType?
        switch output {
        case .nothing: break
        case .body(let encoded):
            requestBody = encoded.body
            contentType = encoded.contentType
        case .raw(let raw, let type):
            requestBody = raw
            contentType = type
        case .query(let query):
            if !query.isEmpty { target = Self.appending(query: query, to: target) }
        }

        guard let url = URL(string: target) else {
            throw EndpointError(.invalidURL, endpoint: name, "the expanded template \"\(target)\" is not a URL")
        }
        var request = HTTPRequest(method: method, url: url, headerFields: headerFields, body: requestBody)
        // A declared Content-Type (image/png for raw bytes, merge-patch+json for JSON) stays;
        // a multipart body's own always wins, as its boundary must match the body.
        if let contentType, !headerFields.contains(.contentType) || contentType.type == "multipart" {
            request.headerFields.set(Self.field(.contentType, contentType))
        }
        if let accept = response.accept, !headerFields.contains(.accept) {
            request.headerFields.append(Self.field(.accept, accept))
        }
        return request
    }

    /// Fails for a path variable that is missing, empty, or a dot segment.
    private func checkRequired(_ values: [String: URITemplate.Value]) throws(EndpointError) {
        for use in requiredUses {
            guard let value = values[use.name], value.isDefined, value != .string("") else {
                throw EndpointError(
                    .missingVariable, endpoint: name,
                    "the path variable \"\(use.name)\" has no value (give it in variables:, a provider or the request "
                        + "value; an empty string would change the path)",
                    variable: use.name)
            }
            let segments: [String]
            switch value {
            case .string(let text): segments = [use.prefix.map { String(text.unicodeScalars.prefix($0)) } ?? text]
            case .list(let items): segments = items
            case .associative(let pairs): segments = pairs.flatMap { [$0.key, $0.value] }
            }
            if segments.contains("") {
                throw EndpointError(
                    .missingVariable, endpoint: name,
                    "the path variable \"\(use.name)\" holds an empty element, which would leave an empty path "
                        + "segment (\"//\" can even name another host)",
                    variable: use.name)
            }
            guard use.operator == .simple || use.operator == .pathSegment || use.operator == .label else { continue }
            if let dots = segments.first(where: { $0 == "." || $0 == ".." }) {
                throw EndpointError(
                    .invalidVariable, endpoint: name,
                    "the path variable \"\(use.name)\" is \"\(dots)\", a dot segment that would move the request "
                        + "to another path (RFC 3986 §5.2.4)",
                    variable: use.name)
            }
        }
    }

    /// Fails when the expansion left the shape the template declares: a relative template
    /// that now names a scheme or a host (`//evil.example`), an absolute one whose host or
    /// port is no longer the one its text writes (`https://cdn.example.com{+path}` with
    /// `.evil.example/x` or `@evil.example/`), or a dot segment (`/../`, also percent-encoded
    /// as `/%2e%2E/`, which servers decode) that the template's own text does not have.
    private func checkShape(of target: String) throws(EndpointError) {
        if let origin = literalOrigin, !origin.isClosed,
            let next = target.utf8.dropFirst(origin.prefix.utf8.count).first,
            next != UInt8(ascii: "/") && next != UInt8(ascii: "?") && next != UInt8(ascii: "#")
        {
            throw EndpointError(
                .invalidVariable, endpoint: name,
                "the expansion \"\(URLRedaction.redactingURLs(in: target))\" changes the host or port that the "
                    + "template's text \"\(origin.prefix)\" fixes")
        }
        // One pass over the bytes of the path (up to `?` or `#`): this runs on every call.
        // Lengths count decoded characters: `%2e` is one `.`.
        var segmentLength = 0
        var segmentDots = 0
        var sawSlash = false
        var index = 0
        var dotSegment = false
        var schemeOrHost = false
        /// Inside a percent escape: 1 after `%`, 2 after `%2`, 3 after `%` and another digit.
        var escape = 0
        for byte in target.utf8 {
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "/") {
                if segmentLength > 0 && segmentLength == segmentDots && segmentLength <= 2 { dotSegment = true }
                if index == 1 && sawSlash { schemeOrHost = true }
                sawSlash = true
                segmentLength = 0
                segmentDots = 0
                escape = 0
            } else if escape == 1 {
                escape = byte == UInt8(ascii: "2") ? 2 : 3
            } else if escape > 1 {
                segmentLength += 1
                if escape == 2 && (byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")) { segmentDots += 1 }
                escape = 0
            } else if byte == UInt8(ascii: "%") {
                escape = 1
            } else {
                if byte == UInt8(ascii: ":") && !sawSlash { schemeOrHost = true }
                segmentLength += 1
                if byte == UInt8(ascii: ".") { segmentDots += 1 }
            }
            index += 1
        }
        if segmentLength > 0 && segmentLength == segmentDots && segmentLength <= 2 { dotSegment = true }
        if schemeOrHost && !isAbsolute {
            throw EndpointError(
                .invalidVariable, endpoint: name,
                "the expansion \"\(target)\" names a scheme or a host, which the relative template does not")
        }
        if dotSegment && !templateHasDotSegment {
            throw EndpointError(
                .invalidVariable, endpoint: name,
                "the expansion \"\(target)\" has a dot segment that would move the request to another path "
                    + "(RFC 3986 §5.2.4)")
        }
    }

    private static func appending(query: String, to target: String) -> String {
        var base = Substring(target)
        var fragment: Substring = ""
        if let hash = base.firstIndex(of: "#") {
            fragment = base[hash...]
            base = base[..<hash]
        }
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return base + separator + query + fragment
    }

    /// A field whose value is known to be valid (a media type's description).
    private static func field(_ name: HTTPFieldName, _ type: MediaType) -> HTTPField {
        // A MediaType's description is always a valid field value.
        try! HTTPField(name: name, value: type.description)
    }

    private static func encodingFailure(_ error: any Error, endpoint: String) -> EndpointError {
        switch error {
        case let error as EndpointError: return error
        case let error as HTTPEncodingError:
            return EndpointError(
                .encodingFailed, endpoint: endpoint, "the request value cannot be encoded: \(error.reason)",
                codingPath: error.keyPath, underlying: error)
        case let error as MultipartError:
            return EndpointError(
                .encodingFailed, endpoint: endpoint, "the request value cannot be encoded as multipart: \(error)",
                underlying: error)
        default:
            return EndpointError(
                .encodingFailed, endpoint: endpoint, "the request value cannot be encoded: \(error)",
                underlying: error)
        }
    }
}
