import Foundation
import HTTPCore

/// Where a client keeps cookies: it asks for the `Cookie` field of each request it sends, and
/// hands over the `Set-Cookie` fields of each response it receives, redirect hops included,
/// each judged on its own URL.
///
/// HTTPCookies' `CookieJar` is one (RFC 6265bis, with the public suffix list): give it to a
/// client as `cookies:` (``Client/cookies``). The client keeps cookies above the transport, so
/// they behave the same on every transport (URLSession's own cookie handling is off).
public protocol CookieStore: Sendable {
    /// The `Cookie` field value for a request to `url` (`a=1; b=2`), or `nil` for none.
    /// - Parameter url: The URL of the request about to be sent.
    /// - Returns: The field value.
    func cookieField(for url: URL) -> String?

    /// Takes the cookies `response` sets.
    /// - Parameters:
    ///   - response: A response head, with its `Set-Cookie` fields.
    ///   - url: The URL of the request it answers.
    func storeCookies(from response: HTTPResponse, for url: URL)

    /// Takes the cookies `response` sets, as ``storeCookies(from:for:)`` does, and returns the
    /// `Set-Cookie` fields it refused, each with its reason: what the client reports to its
    /// observers as ``ClientEvent/Kind/cookiesRefused(_:refusals:attempt:)``.
    ///
    /// The default stores with ``storeCookies(from:for:)`` and reports nothing; HTTPCookies'
    /// `CookieJar` reports every refusal.
    /// - Parameters:
    ///   - response: A response head, with its `Set-Cookie` fields.
    ///   - url: The URL of the request it answers.
    /// - Returns: The fields refused, in the order received; empty when all were stored.
    func storeCookiesReportingRefusals(from response: HTTPResponse, for url: URL) -> [CookieRefusal]
}

extension CookieStore {
    /// Stores with ``storeCookies(from:for:)`` and reports no refusal.
    /// - Parameters:
    ///   - response: A response head.
    ///   - url: The URL of the request it answers.
    /// - Returns: No refusal.
    public func storeCookiesReportingRefusals(from response: HTTPResponse, for url: URL) -> [CookieRefusal] {
        storeCookies(from: response, for: url)
        return []
    }
}

extension HTTPRequest {
    /// The request as sent with `store`'s cookies for its URL: after a `Cookie` field the
    /// caller set, if any.
    func addingCookies(from store: (any CookieStore)?) -> HTTPRequest {
        guard let store, let jar = store.cookieField(for: url) else { return self }
        let own = headerFields[.cookie] ?? ""
        // A store's value it cannot send (a control character) is left out, never sent broken.
        guard let field = try? HTTPField(name: .cookie, value: own.isEmpty ? jar : own + "; " + jar) else {
            return self
        }
        var request = self
        request.headerFields.remove(.cookie)
        request.headerFields.append(field)
        return request
    }
}
