import Foundation
import HTTPClient
import HTTPCore

/// What `dump`, `String(reflecting:)` and a debugger show of an endpoint error: what its
/// ``EndpointError/description`` shows, field by field, and no secret. The URL without its
/// password and secret query values, the response's credential fields and the body's
/// secret-named members hidden (a `Data` body's own mirror shows it byte by byte), the cause
/// as text with its URLs redacted.
extension EndpointError: CustomDebugStringConvertible, CustomReflectable {
    /// The same as ``description``: no secret is printed.
    public var debugDescription: String { description }

    /// The error's fields with their secrets hidden, for `dump` and debuggers.
    public var customMirror: Mirror {
        let children: [(label: String?, value: Any)] = [
            ("code", code),
            ("endpoint", endpoint),
            ("message", message),
            ("variable", variable as Any),
            ("method", method as Any),
            ("url", url.map { URLRedaction.display($0) } as Any),
            ("status", response?.status as Any),
            ("responseHeaderFields", response.map { Redacted.lines(of: $0.headerFields) } as Any),
            ("body", body.map { URLRedaction.displayBody($0) } as Any),
            ("codingPath", codingPath),
            ("errorBody", errorBody as Any),
            ("underlying", underlying.map { URLRedaction.displayError($0) } as Any),
        ]
        return Mirror(self, children: children, displayStyle: .struct)
    }
}
