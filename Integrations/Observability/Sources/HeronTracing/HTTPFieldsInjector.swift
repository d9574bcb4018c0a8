import HTTPClient
import Tracing

/// Writes a tracer's propagation values, such as W3C `traceparent`, into HTTPCore header fields.
///
/// A value replaces any field of the same name; a name or value that is not a valid field
/// (RFC 9110 §5) is left out, never sent broken.
///
/// ```swift
/// var request = HTTPRequest(url: URL(string: "https://api.example.com/items")!)
/// InstrumentationSystem.tracer.inject(
///     ServiceContext.current ?? .topLevel, into: &request.headerFields, using: HTTPFieldsInjector())
/// ```
public struct HTTPFieldsInjector: Injector {
    /// Creates an injector.
    public init() {}

    /// Sets the field `key` to `value`, replacing any field of that name.
    /// - Parameters:
    ///   - value: The field value.
    ///   - key: The field name.
    ///   - fields: The header fields to change.
    public func inject(_ value: String, forKey key: String, into fields: inout HTTPFields) {
        guard let name = try? HTTPFieldName(key) else { return }
        try? fields.set(name, value)
    }
}
