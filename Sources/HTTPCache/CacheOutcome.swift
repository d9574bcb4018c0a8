import Foundation
import HTTPClient
import HTTPCore

/// What a ``CachingTransport`` did for one response, carried in its `Cache-Status` field
/// (RFC 9211) and read back by `ClientResponse.cacheOutcome`.
///
/// ```swift
/// let response = try await client.send(.get("cache/60"))
/// if response.cacheOutcome == .hit { print("served from the cache") }
/// ```
public struct CacheOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The name, such as `hit`.
    public let name: String

    /// An outcome named `name`.
    /// - Parameter name: The name.
    public init(_ name: String) { self.name = name }

    /// A stored response served without contacting the origin: fresh, or stale where the
    /// request accepts it (`max-stale`, ``CachePolicy/cacheElseNetwork``,
    /// ``CachePolicy/cacheOnly``). The `ttl` of the `Cache-Status` member, negative when
    /// stale, tells them apart.
    public static let hit = CacheOutcome("hit")
    /// A stale stored response served while one background request revalidates it
    /// (`stale-while-revalidate`, RFC 5861 §3).
    public static let staleWhileRevalidate = CacheOutcome("stale-while-revalidate")
    /// A stale stored response served because the origin failed (`stale-if-error`, RFC 5861
    /// §4): an error status or no connection.
    public static let staleIfError = CacheOutcome("stale-if-error")
    /// A stale stored response served because the origin could not be reached, within
    /// ``CacheConfiguration/offlineWindow``.
    public static let offline = CacheOutcome("offline")
    /// A stored response the origin confirmed with `304 Not Modified` (RFC 9111 §4.3.4).
    public static let revalidated = CacheOutcome("revalidated")
    /// A new response from the origin: nothing usable was stored, a validation brought a
    /// new response, or the request was a ``CachePolicy/reload``.
    public static let miss = CacheOutcome("miss")
    /// A response the cache passed through without looking: a method it does not cache, a
    /// conditional request or a request with a body, a range request it could not answer.
    /// (A ``CachePolicy/reload`` is a ``miss``: its response is stored.)
    public static let bypass = CacheOutcome("bypass")
    /// A generated `504 Gateway Timeout`: the request allowed only the cache
    /// (`only-if-cached`, ``CachePolicy/cacheOnly``) and nothing fit, or a response that must
    /// be revalidated could not be (RFC 9111 §4.2.4).
    public static let unavailable = CacheOutcome("unavailable")

    /// The name.
    public var description: String { name }
}

/// One `Cache-Status` member (RFC 9211 §2): what the cache did, as a structured field.
struct CacheStatusValue: Sendable {
    var outcome: CacheOutcome
    /// Seconds of freshness left (negative when stale), for responses served from the cache.
    var ttl: Int64?
    /// The status the origin answered a forwarded request with.
    var forwardStatus: Int?
    /// Whether the response was stored.
    var stored = false
    /// Why the request went forward (RFC 9211 §2.2).
    var forward: String?

    /// The member for cache `name`, such as `Heron; hit; ttl=59`.
    func render(name: String) -> String {
        var text = name
        switch outcome {
        case .hit, .staleWhileRevalidate, .staleIfError, .offline:
            text += "; hit"
        default:
            text += "; fwd=\(forward ?? "miss")"
            if let forwardStatus { text += "; fwd-status=\(forwardStatus)" }
        }
        if let ttl { text += "; ttl=\(ttl)" }
        if stored { text += "; stored" }
        switch outcome {
        case .hit, .miss, .revalidated: break
        default: text += "; detail=\(outcome.name)"
        }
        return text
    }

    /// The outcome of the last member of cache `name` in `fields`, if any: a cache appends
    /// its member after those of the caches before it (RFC 9211 §2), so an origin's member
    /// of the same name, earlier in the list, never wins.
    static func outcome(in fields: HTTPFields, name: String) -> CacheOutcome? {
        guard let member = members(in: fields).last(where: { $0.name == name }) else { return nil }
        var hit = false
        var detail: String?
        var forwardStatus: String?
        for (key, value) in member.parameters {
            switch key {
            case "hit": hit = value == nil || value == "?1"
            case "detail": detail = value
            case "fwd-status": forwardStatus = value
            default: break
            }
        }
        if let detail, !detail.isEmpty { return CacheOutcome(detail) }
        if hit { return .hit }
        return forwardStatus == "304" ? .revalidated : .miss
    }

    /// One member of a `Cache-Status` list: the cache's name and its parameters, unquoted.
    struct Member {
        var name: String
        var parameters: [(key: String, value: String?)]
        /// The member as it was written.
        var text: String
    }

    /// The members of every `Cache-Status` line, in order. Commas and semicolons inside
    /// quoted strings do not split (RFC 8941 §3.3.3); empty members and parameters are skipped.
    static func members(in fields: HTTPFields) -> [Member] {
        var result: [Member] = []
        for line in fields[values: .cacheStatus] {
            for text in split(line, on: ",") {
                let parts = split(text, on: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let first = parts.first, !first.isEmpty else { continue }
                var parameters: [(key: String, value: String?)] = []
                for part in parts.dropFirst() where !part.isEmpty {
                    let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    let key = pair[0].trimmingCharacters(in: .whitespaces)
                    guard !key.isEmpty else { continue }
                    parameters.append((key, pair.count > 1 ? unquoted(String(pair[1])) : nil))
                }
                result.append(
                    Member(
                        name: unquoted(first), parameters: parameters,
                        text: text.trimmingCharacters(in: .whitespaces)))
            }
        }
        return result
    }

    /// `text` split on `separator` outside double quotes.
    private static func split(_ text: String, on separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if quoted {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                }
            } else if character == "\"" {
                quoted = true
            } else if character == separator {
                parts.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current)
        return parts
    }

    /// `text` trimmed, without its surrounding double quotes.
    private static func unquoted(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 2, trimmed.hasPrefix("\""), trimmed.hasSuffix("\"") else { return trimmed }
        return String(trimmed.dropFirst().dropLast())
    }
}

extension ClientResponse {
    /// What the cache did for this response, read from the `Cache-Status` field a
    /// ``CachingTransport`` named `cache` added; `nil` when there is none (no cache, or a
    /// cache configured without the field).
    /// - Parameter cache: The cache's ``CacheConfiguration/cacheStatusName``; `Heron` by default.
    /// - Returns: The outcome.
    public func cacheOutcome(of cache: String = "Heron") -> CacheOutcome? {
        CacheStatusValue.outcome(in: head.headerFields, name: cache)
    }

    /// What the default-named cache did for this response (see ``cacheOutcome(of:)``).
    public var cacheOutcome: CacheOutcome? { cacheOutcome(of: "Heron") }
}
