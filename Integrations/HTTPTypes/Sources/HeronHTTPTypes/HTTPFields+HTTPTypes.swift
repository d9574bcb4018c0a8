import HTTPCore
import HTTPTypes

extension HTTPTypes.HTTPField {
    /// Creates a swift-http-types field from an HTTPCore field, keeping the name's spelling
    /// and the value.
    ///
    /// The field's `indexingStrategy` (an HPACK/QPACK hint HTTPCore has no place for) is
    /// `.automatic`.
    ///
    /// ```swift
    /// let field = try HTTPTypes.HTTPField(HTTPCore.HTTPField(name: "X-Trace", value: "a1"))
    /// print(field.name.rawName, field.value)  // X-Trace a1
    /// ```
    /// - Parameter field: The HTTPCore field.
    /// - Throws: ``HTTPTypesConversionError`` with code ``HTTPTypesConversionError/Code/invalidFieldName``
    ///   or ``HTTPTypesConversionError/Code/invalidFieldValue`` when swift-http-types refuses the
    ///   name or would change the value.
    public init(_ field: HTTPCore.HTTPField) throws(HTTPTypesConversionError) {
        guard let name = HTTPTypes.HTTPField.Name(field.name.rawName) else {
            throw HTTPTypesConversionError(
                .invalidFieldName, value: field.name.rawName,
                reason: "swift-http-types refuses the field name (RFC 9110 §5.1)")
        }
        guard HTTPTypes.HTTPField.isValidValue(field.value) else {
            throw HTTPTypesConversionError(
                .invalidFieldValue, value: HTTPTypesConversionError.shown(field.value, ofField: name.canonicalName),
                reason: "swift-http-types refuses the value of field \(name.rawName) (RFC 9110 §5.5)")
        }
        self.init(name: name, value: field.value)
    }
}

extension HTTPCore.HTTPField {
    /// Creates an HTTPCore field from a swift-http-types field, keeping the name's spelling
    /// and the value.
    ///
    /// ```swift
    /// let field = try HTTPCore.HTTPField(HTTPTypes.HTTPField(name: .contentType, value: "text/plain"))
    /// print(field)  // Content-Type: text/plain
    /// ```
    /// - Parameter field: The swift-http-types field; its `indexingStrategy` is not kept.
    /// - Throws: ``HTTPTypesConversionError`` with code ``HTTPTypesConversionError/Code/invalidFieldName``
    ///   when HTTPCore refuses the name (a pseudo-header field's, such as `:path`), or
    ///   ``HTTPTypesConversionError/Code/invalidFieldValue`` when the value is not UTF-8, holds a
    ///   control character HTTPCore refuses, or has surrounding whitespace HTTPCore would trim.
    ///   ``HTTPTypesConversionError/underlying`` is HTTPCore's ``HTTPCore/HTTPCoreError``, if any.
    public init(_ field: HTTPTypes.HTTPField) throws(HTTPTypesConversionError) {
        let rawName = field.name.rawName
        let name: HTTPFieldName
        do {
            name = try HTTPFieldName(rawName)
        } catch {
            throw HTTPTypesConversionError(
                .invalidFieldName, value: rawName, reason: "HTTPCore refuses the field name: \(error.reason)",
                underlying: error)
        }
        let value = field.value
        let shown = HTTPTypesConversionError.shown(value, ofField: name.canonicalName)
        let isUTF8 = field.withUnsafeBytesOfValue { $0.elementsEqual(value.utf8) }
        guard isUTF8 else {
            throw HTTPTypesConversionError(
                .invalidFieldValue, value: shown, reason: "the value of field \(rawName) is not UTF-8")
        }
        do {
            try self.init(name: name, value: value)
        } catch {
            throw HTTPTypesConversionError(
                .invalidFieldValue, value: shown, reason: "HTTPCore refuses the value: \(error.reason)",
                underlying: error)
        }
        guard self.value == value else {
            throw HTTPTypesConversionError(
                .invalidFieldValue, value: shown,
                reason: "the value of field \(rawName) has surrounding whitespace, which HTTPCore trims (RFC 9110 §5.5)"
            )
        }
    }
}

extension HTTPTypes.HTTPFields {
    /// Creates swift-http-types fields from HTTPCore fields: every field, in order, repeated
    /// fields (such as `Set-Cookie`) kept apart, names spelled as they were.
    ///
    /// ```swift
    /// let core = try HTTPCore.HTTPFields(["Set-Cookie": "a=1", "Set-Cookie": "b=2"])
    /// let fields = try HTTPTypes.HTTPFields(core)
    /// print(fields[values: .setCookie])  // ["a=1", "b=2"]
    /// ```
    /// - Parameter fields: The HTTPCore fields.
    /// - Throws: ``HTTPTypesConversionError`` for the first field swift-http-types refuses; see
    ///   ``HTTPTypes/HTTPField/init(_:)``.
    public init(_ fields: HTTPCore.HTTPFields) throws(HTTPTypesConversionError) {
        self.init()
        reserveCapacity(fields.count)
        for field in fields {
            append(try HTTPTypes.HTTPField(field))
        }
    }
}

extension HTTPCore.HTTPFields {
    /// Creates HTTPCore fields from swift-http-types fields: every field, in order, repeated
    /// fields kept apart, names spelled as they were.
    ///
    /// ```swift
    /// let fields: HTTPTypes.HTTPFields = [.setCookie: "a=1", .setCookie: "b=2"]
    /// let core = try HTTPCore.HTTPFields(fields)
    /// print(core[values: .setCookie])  // ["a=1", "b=2"]
    /// ```
    /// - Parameter fields: The swift-http-types fields.
    /// - Throws: ``HTTPTypesConversionError`` for the first field HTTPCore refuses; see
    ///   ``HTTPCore/HTTPField/init(_:)``.
    public init(_ fields: HTTPTypes.HTTPFields) throws(HTTPTypesConversionError) {
        var converted: [HTTPCore.HTTPField] = []
        converted.reserveCapacity(fields.count)
        for field in fields {
            converted.append(try HTTPCore.HTTPField(field))
        }
        self.init(converted)
    }
}
