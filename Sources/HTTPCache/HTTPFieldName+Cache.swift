import HTTPClient
import HTTPCore

extension HTTPFieldName {
    /// `Expires` (RFC 9111 §5.3).
    static let expires = try! HTTPFieldName("Expires")
    /// `Cache-Status` (RFC 9211).
    static let cacheStatus = try! HTTPFieldName("Cache-Status")
    /// The preconditions whose answer is never stored: it depends on the precondition, which a
    /// later plain `GET` lacks (`If-None-Match` and `If-Modified-Since` answer `304` or the
    /// full response).
    static let unservedPreconditions: [HTTPFieldName] = [
        .ifMatch, try! HTTPFieldName("If-Unmodified-Since"), .ifRange,
    ]
    /// `If-Match` and the other preconditions a caller may send (RFC 9110 §13.1).
    static let preconditions: [HTTPFieldName] = [
        .ifMatch, .ifNoneMatch, .ifModifiedSince, try! HTTPFieldName("If-Unmodified-Since"), .ifRange,
    ]
}
