import Foundation
import HTTPCore

/// What a client shows of itself when printed, dumped or inspected in a debugger: its settings,
/// never a secret it holds.
///
/// - The base URL as ``HTTPCore/URLRedaction/display(_:hiding:)`` shows it (no password, no
///   secret query value).
/// - The default header fields, the values of credential fields (`Authorization`, `Cookie`, an
///   API key, …) replaced by `<redacted>`.
/// - The transport and the cookie store by their type's name only: a transport holds the
///   requests in flight, with their credentials, and a store holds session cookies.
/// - The interceptors and observers as themselves, so each shows its own description and
///   mirror: this package's credential interceptors (``BasicAuth``, ``BearerAuth``,
///   ``DigestAuth``) show no secret. An interceptor of your own that holds one should hide it
///   the same way (`CustomStringConvertible`, `CustomReflectable`).
///
/// `print(client)` of a client with `BearerAuth(token: "secret")` shows
/// `Client(baseURL: …, transport: URLSessionTransport, interceptors: [BearerAuth(token: <redacted>)], …)`.
extension Client: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The client's settings on one line, with no secret: base URL, transport, interceptors,
    /// retry policies and limits.
    public var description: String {
        var parts = ["baseURL: \(displayedBaseURL ?? "nil")"]
        if !headerFields.isEmpty { parts.append("headerFields: [\(displayedHeaderFields.joined(separator: ", "))]") }
        parts.append("transport: \(type(of: transport))")
        if !interceptors.isEmpty {
            parts.append("interceptors: [\(interceptors.map(Self.displayed).joined(separator: ", "))]")
        }
        if !observers.isEmpty { parts.append("observers: [\(observers.map(Self.displayed).joined(separator: ", "))]") }
        parts.append("retry: \(retry)")
        parts.append("redirectLimit: \(redirectLimit)")
        parts.append("timeout: \(timeout.map { "\($0)" } ?? "nil")")
        if let deadline { parts.append("deadline: \(deadline)") }
        if let cookies { parts.append("cookies: \(type(of: cookies))") }
        return "Client(" + parts.joined(separator: ", ") + ")"
    }

    /// The same as ``description``: a client's secrets are never printed.
    public var debugDescription: String { description }

    /// The client's settings for `dump` and debuggers, with no secret: the redacted base URL
    /// and header fields, the transport's and cookie store's type names, and the interceptors
    /// and observers themselves (each showing its own mirror).
    public var customMirror: Mirror {
        let children: [(label: String?, value: Any)] = [
            ("baseURL", displayedBaseURL as Any),
            ("headerFields", displayedHeaderFields),
            ("transport", "\(type(of: transport))"),
            ("interceptors", interceptors),
            ("observers", observers),
            ("retry", retry),
            ("redirectLimit", redirectLimit),
            ("timeout", timeout as Any),
            ("deadline", deadline as Any),
            ("cookies", cookies.map { "\(type(of: $0))" } as Any),
        ]
        return Mirror(self, children: children, displayStyle: .class)
    }

    /// The base URL without its password or secret query values.
    private var displayedBaseURL: String? { baseURL.map { URLRedaction.display($0) } }

    /// The default fields as `Name: value`, a credential's value `<redacted>`.
    private var displayedHeaderFields: [String] { Redacted.lines(of: headerFields) }

    /// An interceptor or observer by its own description when it has one (this package's
    /// credential interceptors show no secret), else by its type's name: a value's fields are
    /// never printed for it.
    private static func displayed(_ value: Any) -> String {
        if let described = value as? any CustomStringConvertible { return described.description }
        return "\(type(of: value))"
    }
}
