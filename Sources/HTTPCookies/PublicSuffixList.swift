import Foundation

/// The public suffix list (https://publicsuffix.org): the domains under which anyone may
/// register a name (`com`, `co.uk`, `github.io`), which no cookie may be set for
/// (RFC 6265bis §5.7, step 9).
///
/// ``shipped`` is the list compiled into the library (both its ICANN and private sections, as
/// browsers use them). The list changes every week: give a newer copy, read from wherever your
/// app keeps it, with ``init(rules:)``.
///
/// ```swift
/// let list = PublicSuffixList.shipped
/// print(list.isPublicSuffix("co.uk"), list.isPublicSuffix("example.co.uk"))  // true false
/// print(list.registrableDomain(of: "www.example.co.uk") ?? "none")  // example.co.uk
/// ```
public struct PublicSuffixList: Sendable {
    private let rules: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>

    /// The list compiled into the library.
    public static let shipped = PublicSuffixList(rules: shippedRules)

    /// A list from the text of `public_suffix_list.dat`: one rule a line (`com`, `*.ck`,
    /// `!www.ck`), `//` comments and blank lines skipped; anything after a rule's first space
    /// is ignored, as the format says. Rules are matched case-insensitively; give non-ASCII
    /// labels in their punycode form too (`xn--…`), as request hosts carry them.
    /// - Parameter text: The list's text.
    public init(rules text: String) {
        var rules = Set<String>()
        var wildcards = Set<String>()
        var exceptions = Set<String>()
        for line in text.split(whereSeparator: \.isNewline) {
            guard let rule = line.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//") else { continue }
            let lowered = rule.lowercased()
            if lowered.hasPrefix("!") {
                exceptions.insert(String(lowered.dropFirst()))
            } else if lowered.hasPrefix("*.") {
                wildcards.insert(String(lowered.dropFirst(2)))
            } else {
                rules.insert(lowered)
            }
        }
        self.rules = rules
        self.wildcards = wildcards
        self.exceptions = exceptions
    }

    /// The public suffix of `host` under the list's algorithm: the longest matching rule, an
    /// exception rule winning (its suffix is the rule less its first label), and `*` (the last
    /// label) when no rule matches.
    /// - Parameter host: A host name, such as `www.example.co.uk`.
    /// - Returns: The suffix, such as `co.uk`; `nil` for an empty host.
    public func publicSuffix(of host: String) -> String? {
        let host = Self.normalized(host)
        guard !host.isEmpty else { return nil }
        // Every suffix of the host, longest first (each a slice of it, no labels joined): the
        // first that a rule matches wins.
        let bytes = host.utf8
        var start = bytes.startIndex
        while true {
            let next = bytes[start...].firstIndex(of: UInt8(ascii: ".")).map { bytes.index(after: $0) }
            let candidate = String(host[start...])
            if exceptions.contains(candidate) { return next.map { String(host[$0...]) } ?? "" }
            if rules.contains(candidate) { return candidate }
            guard let next else { return candidate }  // the last label: the default rule, `*`
            if wildcards.contains(String(host[next...])) { return candidate }
            start = next
        }
    }

    /// Whether `domain` is a public suffix itself (`com`, `co.uk`): no cookie may name it as
    /// its domain, unless it is the request's host.
    /// - Parameter domain: A domain, such as `co.uk`.
    /// - Returns: Whether it is a public suffix.
    public func isPublicSuffix(_ domain: String) -> Bool {
        let domain = Self.normalized(domain)
        guard !domain.isEmpty else { return false }
        // ``publicSuffix(of:)`` of the domain is the domain itself exactly when no exception
        // names it and a rule does, a wildcard covers it, or it is one label (the default
        // rule): a shorter suffix would be found only after it. Two or three lookups.
        if exceptions.contains(domain) { return false }
        if rules.contains(domain) { return true }
        guard let dot = domain.utf8.firstIndex(of: UInt8(ascii: ".")) else { return true }
        return wildcards.contains(String(domain[domain.utf8.index(after: dot)...]))
    }

    /// The registrable domain of `host`: its public suffix and one label more
    /// (`www.example.co.uk` → `example.co.uk`); `nil` when `host` is a public suffix.
    /// - Parameter host: A host name.
    /// - Returns: The registrable domain, or `nil`.
    public func registrableDomain(of host: String) -> String? {
        let host = Self.normalized(host)
        guard let suffix = publicSuffix(of: host), host.count > suffix.count else { return nil }
        let rest = host.dropLast(suffix.count + 1)
        let label = rest.split(separator: ".").last ?? rest[...]
        return "\(label).\(suffix)"
    }

    private static func normalized(_ host: String) -> String {
        // Lower-cased only when it has to be: most hosts already are.
        var host = host.utf8.contains(where: { $0 >= 0x80 || (0x41...0x5A).contains($0) }) ? host.lowercased() : host
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}
