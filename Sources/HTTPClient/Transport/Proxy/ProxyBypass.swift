import Foundation
import HTTPCore

/// The hosts that are reached directly rather than through a proxy: a `NO_PROXY` list, read as
/// curl reads it.
///
/// The list's entries are separated by commas or blanks, and compared without regard to case:
/// - `*` alone: every host.
/// - A name: that host and every name under it (`example.com` and `.example.com` both match
///   `example.com` and `api.example.com`, not `notexample.com`); trailing dots are ignored.
/// - An IPv4 or IPv6 address (`10.1.2.3`, `::1`), or a CIDR range (`10.0.0.0/8`, `fd00::/8`):
///   hosts written as addresses in that range. A name is never compared with an address (no
///   name is resolved).
/// - An entry with a port (`example.com:8080`, `[::1]:8080`) matches that port only. curl 7.88
///   never matches such an entry; Go and Python's requests read it so, and it is what the
///   entry's author means.
///
/// ```swift
/// let bypass = ProxyBypass("localhost, .internal.example, 10.0.0.0/8")
/// print(bypass.matches(URL(string: "http://db.internal.example/")!))  // true
/// print(bypass.matches(URL(string: "https://example.com/")!))  // false
/// ```
public struct ProxyBypass: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// One entry of the list.
    enum Entry: Sendable, Hashable {
        /// A host name and the names under it, lower-cased, without leading or trailing dots.
        case name(String, port: Int?)
        /// An address range: the address's bytes (4 or 16) and how many leading bits count.
        case range([UInt8], bits: Int, port: Int?)
    }

    /// The entries, in order; empty for none.
    let entries: [Entry]
    /// Whether the list was `*`: every host is reached directly.
    public let bypassesAll: Bool
    /// The list as given.
    public let list: String

    /// No host is reached directly.
    public static let none = ProxyBypass("")

    /// Reads a `NO_PROXY` list.
    /// - Parameter list: Entries separated by commas or blanks; an entry neither a name nor an
    ///   address is kept and matches nothing, as curl does.
    public init(_ list: String) {
        self.list = list
        bypassesAll = list == "*"
        var entries: [Entry] = []
        for token in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            if let entry = Self.entry(String(token)) { entries.append(entry) }
        }
        self.entries = entries
    }

    /// Reads a `NO_PROXY` list given as a literal.
    /// - Parameter value: The list.
    public init(stringLiteral value: String) { self.init(value) }

    /// Whether `url`'s host is reached directly.
    /// - Parameter url: The request's URL.
    /// - Returns: `true` when an entry matches its host (and port, for an entry with one).
    public func matches(_ url: URL) -> Bool {
        guard let host = url.host(percentEncoded: false), !host.isEmpty else { return false }
        return matches(host: host, port: url.port ?? Self.defaultPort(of: url))
    }

    /// Whether a host, on a port, is reached directly.
    /// - Parameters:
    ///   - host: A host name or IP address (IPv6 with or without brackets).
    ///   - port: The port the request goes to, if known.
    /// - Returns: `true` when an entry matches.
    public func matches(host: String, port: Int?) -> Bool {
        if bypassesAll { return true }
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let address = Self.addressBytes(host)
        if address == nil, host.hasSuffix(".") { host.removeLast() }
        for entry in entries {
            switch entry {
            case .name(let name, let entryPort):
                guard address == nil, entryPort == nil || entryPort == port else { continue }
                if host == name || (host.hasSuffix(name) && host.dropLast(name.count).hasSuffix(".")) { return true }
            case .range(let bytes, let bits, let entryPort):
                guard let address, address.count == bytes.count, entryPort == nil || entryPort == port else { continue }
                if Self.prefix(of: address, equals: bytes, bits: bits) { return true }
            }
        }
        return false
    }

    /// The list as given.
    public var description: String { list }

    /// The port a URL's scheme implies: 80 for `http`, 443 for `https`.
    static func defaultPort(of url: URL) -> Int? {
        switch url.scheme?.lowercased() {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    /// Reads one token of the list.
    private static func entry(_ token: String) -> Entry? {
        var text = Substring(token.lowercased())
        var port: Int?
        if text.hasPrefix("[") {
            // [v6] or [v6]:port
            guard let close = text.firstIndex(of: "]") else { return nil }
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()) else { return nil }
                port = number
            }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":"),
            let number = Int(text[text.index(after: colon)...])
        {
            // name:port or v4:port (an IPv6 address has more than one colon)
            port = number
            text = text[..<colon]
        }
        var bits: Int?
        if let slash = text.firstIndex(of: "/") {
            bits = Int(text[text.index(after: slash)...]) ?? 0
            text = text[..<slash]
        }
        if let bytes = addressBytes(String(text)) {
            // As curl: no bits (or `/0`) is the address alone; more bits than it has, nothing.
            let width = bytes.count * 8
            if let bits, bits > width { return nil }
            let count = bits.map { $0 <= 0 ? width : $0 } ?? width
            return .range(bytes, bits: count, port: port)
        }
        guard bits == nil else { return nil }
        while text.hasSuffix(".") { text.removeLast() }
        while text.hasPrefix(".") { text.removeFirst() }
        guard !text.isEmpty else { return nil }
        return .name(String(text), port: port)
    }

    /// The bytes of an IPv4 or IPv6 address written as one, else `nil`.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// Whether the first `bits` bits of two addresses are equal.
    private static func prefix(of address: [UInt8], equals range: [UInt8], bits: Int) -> Bool {
        var left = bits
        for index in address.indices where left > 0 {
            let take = min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - take))
            if address[index] & mask != range[index] & mask { return false }
            left -= take
        }
        return true
    }
}
