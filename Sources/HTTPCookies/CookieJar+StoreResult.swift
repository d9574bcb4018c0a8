import Foundation
import HTTPClient

extension CookieJar {
    /// What ``CookieJar/store(setCookie:for:)`` did with a response's `Set-Cookie` fields: the
    /// cookies it stored and each field it refused, with the reason.
    ///
    /// A login whose cookie never comes back is explained here: print the refusals (cookie
    /// values are redacted) or look at their `reason` (a `CookieRefusal`).
    ///
    /// ```swift
    /// let jar = CookieJar()
    /// let result = jar.store(
    ///     setCookie: ["sid=abc123; Secure", "theme=dark"], for: URL(string: "http://example.com")!)
    /// print(result.stored.map(\.name))  // ["theme"]
    /// print(result.refused.map(\.reason) == [.secureFromInsecureRequest])  // true
    /// print(result.refused[0].field)  // sid=<redacted>; Secure
    /// ```
    public struct StoreResult: Sendable, Hashable, CustomStringConvertible {
        /// The cookies stored, in the order of their fields: added, replacing one with the same
        /// name, domain, host-only flag and path, or deleting it (an expiry in the past, such as
        /// `Max-Age=0`).
        public var stored: [Cookie]
        /// The fields refused, in the order received.
        public var refused: [Refusal]

        /// Creates a result.
        /// - Parameters:
        ///   - stored: The cookies stored.
        ///   - refused: The fields refused.
        public init(stored: [Cookie] = [], refused: [Refusal] = []) {
            self.stored = stored
            self.refused = refused
        }

        /// `2 stored, 1 refused: …` with each refusal, values redacted.
        public var description: String {
            (["\(stored.count) stored, \(refused.count) refused"] + refused.map(\.description))
                .joined(separator: "\n")
        }
    }

    /// A `Set-Cookie` field the jar refused, and why (HTTPClient's `CookieRefusal`, which a
    /// client also reports to its observers).
    public typealias Refusal = CookieRefusal
}

extension CookieRefusal {
    /// A refusal of the field `value` (redacted here).
    init(index: Int, value: String, host: String?, reason: Reason) {
        let (name, field) = Self.redacted(value)
        self.init(index: index, name: name, field: field, host: host, reason: reason)
    }

    /// The cookie's name and the field with its value replaced by `<redacted>`.
    static func redacted(_ value: String) -> (name: String, field: String) {
        let pairEnd = value.firstIndex(of: ";") ?? value.endIndex
        let pair = value[..<pairEnd]
        let name = pair.firstIndex(of: "=").map { SetCookie.trimmed(pair[..<$0]) } ?? ""
        var field = name.isEmpty ? "<redacted>" : "\(name)=<redacted>"
        field += value[pairEnd...]
        var shown = ""
        for scalar in field.unicodeScalars {
            guard shown.unicodeScalars.count < 256 else {
                shown += "…"
                break
            }
            if scalar.value < 0x20 || scalar.value == 0x7F {
                shown += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return (String(name.prefix(256)), shown)
    }
}
