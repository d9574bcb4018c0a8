#if ResponseTrailers
import AsyncHTTPClient
import Foundation
import HTTPCore
import NIOHTTP1

extension HTTPClientResponse.Body {
    /// The trailer section AsyncHTTPClient received after this body, once it has ended:
    /// its valid fields in the order they came (a field HTTPCore refuses is left out, as
    /// a recipient may discard trailer fields it cannot use, RFC 9110 §6.5.1); `nil`
    /// before the end or when the body had none.
    var trailerSection: HTTPFields? {
        guard let trailers, !trailers.isEmpty else { return nil }
        return HTTPFields(trailers.compactMap { name, value in try? HTTPField(name: name, value: value) })
    }
}
#endif
