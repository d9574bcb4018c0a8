import Foundation
import HTTPClient
import HTTPCore

/// Where a stored response belongs: the partition of the user it was fetched for, and the
/// request URI it answers (RFC 9111 §2: the primary cache key).
///
/// The URI is the full URL without its fragment, query included, so `?a=1` and `?a=2` are
/// different entries. A key made from a URL holds no secret: the values of secret-named query
/// parameters (`access_token`, `code`, …, as `URLRedaction` names them) and a password are
/// replaced by a 128-bit digest of themselves (`access_token=***~3f1c…`), so that disk entry
/// files, cache events and logs never carry them, while two tokens still key two entries.
public struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    /// The partition the caller chose (``CachePartition``); entries of two partitions are
    /// never shared.
    public let partition: String
    /// The absolute request URI, without fragment.
    public let uri: String

    /// Creates a key.
    /// - Parameters:
    ///   - partition: The partition.
    ///   - uri: The absolute request URI.
    public init(partition: String, uri: String) {
        self.partition = partition
        self.uri = uri
    }

    /// The key of `url` in `partition`: the URL normalised as RFC 9110 §4.2.3 compares
    /// `http` and `https` URIs (without its fragment, its scheme and host lowercased, the
    /// default port dropped, an empty path as `/`), so `http://Example.com:80/a` and
    /// `http://example.com/a` share their entries and their invalidation; secret query values
    /// and a password digested.
    /// - Parameters:
    ///   - url: The request URL.
    ///   - partition: The partition.
    public init(url: URL, partition: String) {
        self.partition = partition
        // The rule CoalescingTransport compares targets by, so the two agree on what a write changed.
        guard var components = url.equivalenceComponents else {
            self.uri = url.absoluteString
            return
        }
        if let password = components.percentEncodedPassword {
            components.percentEncodedPassword = URLRedaction.digest(of: password)
        }
        if let query = components.percentEncodedQuery {
            components.percentEncodedQuery = URLRedaction.digestingSecrets(in: query)
        }
        // Unparsable after all: no text of the URL is kept that could hold a secret.
        self.uri = components.string ?? "(unparsable) " + StableHash.hex(of: url.absoluteString)
    }

    /// `partition uri`.
    public var description: String { partition.isEmpty ? uri : "\(partition) \(uri)" }
}

/// A stored response: its head, when it was requested and received, and the request field
/// values its `Vary` nominates. Its body lives in the ``CacheStorage``.
///
/// ```swift
/// let storage = MemoryCacheStorage()
/// let key = CacheKey(url: URL(string: "HTTPS://Example.com/a?q=1#top")!, partition: "")
/// print(key.uri, storage.entries(for: key).isEmpty)  // https://example.com/a?q=1 true
/// ```
public struct CacheEntry: Sendable, Hashable, Identifiable {
    /// A unique name of this stored response (and of its file in a ``DiskCacheStorage``).
    public let id: String
    /// The partition and URI it answers.
    public let key: CacheKey
    /// The status, header fields (those a cache keeps, RFC 9111 §3.1) and URL.
    public var head: HTTPResponse {
        didSet { varyNames = VaryRule.names(in: head.headerFields) }
    }
    /// When the request that produced it was sent, by the cache's clock (RFC 9111 §4.2.3
    /// `request_time`).
    public var requestTime: Date
    /// When it was received, by the cache's clock (RFC 9111 §4.2.3 `response_time`).
    public var responseTime: Date
    /// The normalized values of the request fields its `Vary` nominates, by lowercased name;
    /// a field the request did not carry is absent (RFC 9111 §4.1).
    public var varyValues: [String: String]
    /// The body's length in bytes, once stored.
    public var bodyLength: Int64

    /// Creates an entry.
    /// - Parameters:
    ///   - id: A unique name; a new UUID by default.
    ///   - key: The partition and URI.
    ///   - head: The stored response head.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response arrived.
    ///   - varyValues: The selecting request field values.
    ///   - bodyLength: The body's length.
    public init(
        id: String = UUID().uuidString, key: CacheKey, head: HTTPResponse, requestTime: Date, responseTime: Date,
        varyValues: [String: String] = [:], bodyLength: Int64 = 0
    ) {
        self.id = id
        self.key = key
        self.head = head
        self.varyNames = VaryRule.names(in: head.headerFields)
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyValues = varyValues
        self.bodyLength = bodyLength
    }

    /// The lowercased field names the stored `Vary` lists; `["*"]` for `Vary: *`. Parsed once,
    /// when the head is set, not on every lookup.
    public private(set) var varyNames: [String]

    /// The size this entry counts for against a storage's capacity: its body and an estimate
    /// of its head.
    public var cost: Int64 {
        var size = Int64(256 + key.uri.utf8.count + key.partition.utf8.count)
        for field in head.headerFields { size += Int64(field.name.rawName.utf8.count + field.value.utf8.count + 4) }
        for (name, value) in varyValues { size += Int64(name.utf8.count + value.utf8.count) }
        return size + bodyLength
    }
}
