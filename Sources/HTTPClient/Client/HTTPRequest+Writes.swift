import Foundation
import HTTPCore

extension HTTPRequest {
    /// The URLs whose stored or shared answers an unsafe request makes stale once it has been
    /// answered (or has failed, `response` then `nil`): its target, and the same-origin
    /// `Location` and `Content-Location` of its answer (RFC 9111 §4.4). The one rule behind
    /// HTTPCache's invalidation and `CoalescingTransport`'s read-your-writes.
    /// - Parameter response: The answer's head, if one came.
    /// - Returns: The target first, then the fields' URLs, resolved against the target.
    package func urlsChanged(answeredBy response: HTTPResponse?) -> [URL] {
        var urls = [url]
        for name in [HTTPFieldName.location, Self.contentLocation] {
            guard let value = response?.headerFields[values: name].first,
                let changed = URL(string: value, relativeTo: url)?.absoluteURL,
                RedirectFollower.sameOrigin(changed, url)
            else { continue }
            urls.append(changed)
        }
        return urls
    }

    // swift-format-ignore: NeverUseForceTry
    /// `Content-Location` (RFC 9110 §8.7), a valid token.
    private static let contentLocation = try! HTTPFieldName("Content-Location")
}

extension HTTPRequest {
    /// Removes the hop-by-hop fields (RFC 9110 §7.6.1): `Connection` and the fields it names,
    /// `Keep-Alive`, `Proxy-Connection` and `Upgrade`. They describe one connection, which the
    /// transport owns; HTTP/2 and HTTP/3 forbid them (RFC 9113 §8.2.2), and the client drops
    /// them before any transport sees the request, rather than rely on the libraries below.
    /// `Proxy-Authorization` goes too: it is for the proxy that asked (RFC 9110 §11.7.1), and a
    /// proxy's credentials are given in its ``Proxy``, which the transport sends to that proxy
    /// alone, while a request's fields go to the origin (inside a tunnel, or straight).
    /// Costs a scan of the fields when there are none.
    package mutating func dropHopByHopFields() {
        let fields = headerFields
        guard fields.contains(where: { Self.hopByHop.contains($0.name) }) else { return }
        let listed = fields.connectionListed
        var kept = HTTPFields()
        for field in fields
        where !Self.hopByHop.contains(field.name) && !listed.contains(field.name.canonicalName) {
            kept.append(field)
        }
        headerFields = kept
    }

    // swift-format-ignore: NeverUseForceTry
    /// The hop-by-hop fields every transport is spared; valid tokens.
    private static let hopByHop: Set<HTTPFieldName> = [
        .connection, try! HTTPFieldName("Keep-Alive"), try! HTTPFieldName("Proxy-Connection"),
        try! HTTPFieldName("Upgrade"), .proxyAuthorization,
    ]
}

extension HTTPFields {
    /// The lowercased field names the `Connection` lines list (RFC 9110 §7.6.1): fields of this
    /// connection alone, which the client drops before sending and a cache never stores.
    package var connectionListed: Set<String> {
        var names = Set<String>()
        for line in self[values: .connection] {
            for member in line.split(separator: ",") {
                names.insert(member.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        return names
    }
}
