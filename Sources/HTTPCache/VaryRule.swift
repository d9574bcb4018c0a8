import Foundation
import HTTPClient
import HTTPCore

/// Matching a request against a stored response's `Vary` (RFC 9111 §4.1).
enum VaryRule {
    /// The most field names a stored response's `Vary` may nominate. RFC 9111 §4.1 sets no
    /// limit, but every lookup compares each nominated field: a response nominating more is
    /// passed on and never stored, so a hostile `Vary` of thousands of names costs one linear
    /// parse, not work on every later lookup.
    static let nameLimit = 64

    /// The lowercased field names `Vary` lists across its lines, in order, repeats and empty
    /// members dropped. Linear in the field's length; it stops after `nameLimit + 1` names,
    /// so a result longer than ``nameLimit`` means "too many".
    static func names(in fields: HTTPFields) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        for line in fields[values: .vary] {
            for member in line.split(separator: ",") {
                let name = member.trimmingCharacters(in: .whitespaces).lowercased()
                guard !name.isEmpty, seen.insert(name).inserted else { continue }
                names.append(name)
                if names.count > nameLimit { return names }
            }
        }
        return names
    }

    /// The normalized values of the fields `names` nominates in `request`; an absent field is
    /// left out, so it matches only a request that lacks it too.
    static func values(of names: [String], in request: HTTPFields) -> [String: String] {
        var values: [String: String] = [:]
        for name in names where name != "*" {
            guard let fieldName = try? HTTPFieldName(name) else { continue }
            let lines = request[values: fieldName]
            guard !lines.isEmpty else { continue }
            values[name] = normalize(lines, name: name)
        }
        return values
    }

    /// Whether a request with `fields` may be answered by `entry`: `Vary` has no `*` and each
    /// nominated field matches as normalized.
    static func matches(_ entry: CacheEntry, _ fields: HTTPFields) -> Bool {
        let names = entry.varyNames
        if names.isEmpty { return true }
        if names.contains("*") || names.count > nameLimit { return false }
        return values(of: names, in: fields) == entry.varyValues
    }

    /// The lines of one field as one value a cache may compare (RFC 9111 §4.1): lines
    /// combined, the whitespace around list members removed; for `Accept-Language`,
    /// `Accept-Encoding` and `Accept`, whose members are case-insensitive and unordered
    /// sets, members lowercased and sorted.
    static func normalize(_ lines: [String], name: String) -> String {
        var members: [String] = []
        for line in lines {
            for member in line.split(separator: ",", omittingEmptySubsequences: true) {
                let trimmed = member.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                    .joined(separator: ";")
                if !trimmed.isEmpty { members.append(trimmed) }
            }
        }
        if unorderedFields.contains(name) {
            return members.map { $0.lowercased() }.sorted().joined(separator: ",")
        }
        return members.joined(separator: ",")
    }

    /// Fields whose members are case-insensitive and whose order carries no meaning (each
    /// member's weight says its preference); weights are kept, so `en;q=0.5` differs from `en`.
    static let unorderedFields: Set<String> = ["accept-language", "accept-encoding", "accept"]
}
