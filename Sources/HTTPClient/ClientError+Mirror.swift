import Foundation
import HTTPCore

/// What `dump`, `String(reflecting:)` and a debugger show of a client error: what its
/// ``ClientError/description`` shows, field by field, and no secret. The URL without its
/// password and secret query values, the response's credential fields (`Set-Cookie`, …) and
/// the body's secret-named members hidden, the cause as text with its URLs redacted; a raw
/// field's mirror would show all of them (a `Data` body byte by byte).
extension ClientError: CustomDebugStringConvertible, CustomReflectable {
    /// The same as ``description``: no secret is printed.
    public var debugDescription: String { description }

    /// The error's fields with their secrets hidden, for `dump` and debuggers.
    public var customMirror: Mirror {
        let children: [(label: String?, value: Any)] = [
            ("code", code),
            ("message", message),
            ("method", method as Any),
            ("url", url.map { URLRedaction.display($0) } as Any),
            ("status", response?.status as Any),
            ("responseHeaderFields", response.map { Redacted.lines(of: $0.headerFields) } as Any),
            ("bodyPrefix", bodyPrefix.map { URLRedaction.displayBody($0, limit: Self.bodyPrefixLimit) } as Any),
            ("underlying", underlying.map { URLRedaction.displayError($0) } as Any),
            ("attempts", attempts),
            (
                "resumableDownload",
                resumableDownload.map { "\($0.byteCount) bytes of \(URLRedaction.display($0.url)) kept" } as Any
            ),
        ]
        return Mirror(self, children: children, displayStyle: .struct)
    }
}
