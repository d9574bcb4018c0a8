import Foundation

/// How URLs are shown in descriptions, errors and logs without their secrets: a password
/// becomes `***`, and so does the value of every query parameter whose name is secret.
///
/// ```swift
/// let url = URL(string: "https://alice:s3cret@api.example.com/v1?access_token=abc&page=2")!
/// print(URLRedaction.display(url))  // https://alice:***@api.example.com/v1?access_token=***&page=2
/// ```
public enum URLRedaction {
    /// Query parameter names whose values are hidden by default, compared case-insensitively.
    public static let secretQueryNames: Set<String> = [
        "token", "access_token", "refresh_token", "id_token", "api_key", "apikey", "key", "password", "secret",
        "client_secret", "signature", "sig", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        "x-goog-signature", "x-goog-credential",
        // OAuth 2.0 and its extensions (RFC 6749 §4.1.2, RFC 7636 §4.1, RFC 7523 §2.2) and
        // common session tokens.
        "code", "code_verifier", "client_assertion", "auth_token", "session_token",
    ]

    /// The names marked secret with ``markSecret(queryNames:)``, lowercased.
    private static let marked = Locked<Set<String>>([])

    /// Marks more query parameter names secret for every description, error, log line,
    /// observer event and curl command in the process, besides ``secretQueryNames``.
    ///
    /// Call it once at start-up with the names your API uses for secrets:
    ///
    /// ```swift
    /// URLRedaction.markSecret(queryNames: ["session", "X-Tenant-Key"])
    /// ```
    /// - Parameter names: The names, compared case-insensitively.
    public static func markSecret(queryNames names: some Sequence<String>) {
        let lowered = names.map { $0.lowercased() }
        marked.withLock { $0.formUnion(lowered) }
    }

    /// Every name hidden by default: ``secretQueryNames`` and those marked with
    /// ``markSecret(queryNames:)``, lowercased.
    public static var hiddenQueryNames: Set<String> {
        let extra = marked.withLock { $0 }
        return extra.isEmpty ? secretQueryNames : secretQueryNames.union(extra)
    }

    /// The URL as text with its password and secret query values replaced by `***`.
    /// - Parameters:
    ///   - url: The URL.
    ///   - secretNames: Query parameter names to hide, besides ``hiddenQueryNames``; any case.
    /// - Returns: The text to show.
    public static func display(_ url: URL, hiding secretNames: Set<String> = []) -> String {
        display(url, hiding: secretNames, fingerprinting: false)
    }

    /// The URL as ``display(_:hiding:)`` shows it, each hidden query value written as a
    /// ``fingerprint(of:)`` of itself: what a HAR file records, so that replay tells apart
    /// two requests that differ only in a secret (`?token=page-1`, `?token=page-2`).
    /// - Parameter url: The URL.
    /// - Returns: The text to record.
    package static func displayFingerprinted(_ url: URL) -> String {
        display(url, hiding: [], fingerprinting: true)
    }

    /// The query (or fragment) `pairs` with each secret value replaced by `***~` and the 32
    /// hex digits of a 128-bit stable hash of it: what HTTPCache keys a stored response by,
    /// so that no secret reaches a cache file or an event, while two tokens still make two
    /// keys.
    /// - Parameter pairs: Percent-encoded `name=value` pairs.
    /// - Returns: The pairs with secret values digested.
    package static func digestingSecrets(in pairs: String) -> String {
        redacted(pairs, hiddenQueryNames, hiding: .digest)
    }

    /// A secret that is not a query value (a URL's password), digested as
    /// ``digestingSecrets(in:)`` digests values.
    package static func digest(of value: some StringProtocol) -> String {
        Hiding.digest.hide(value)
    }

    /// The text that stands for a hidden `value` in a recording: `***~` and four hex digits of
    /// a stable hash of it. Sixteen bits tell apart the values of one recording (1 in 65,536
    /// alike) and reveal no more of a secret than that. A value already hidden (`***`, or a
    /// fingerprint) is kept as it is.
    /// - Parameter value: The value, as it appears in the text.
    /// - Returns: Its fingerprint.
    package static func fingerprint(of value: some StringProtocol) -> String {
        Hiding.fingerprint.hide(value)
    }

    /// What replaces a hidden value.
    private static let marker = "***"

    /// How a hidden value is written: `***`, a 16-bit fingerprint, or a 128-bit digest.
    private enum Hiding {
        case marker, fingerprint, digest

        init(fingerprinting: Bool) { self = fingerprinting ? .fingerprint : .marker }

        func hide(_ value: some StringProtocol) -> String {
            switch self {
            case .marker: return URLRedaction.marker
            case .fingerprint, .digest:
                if value == URLRedaction.marker || value.hasPrefix(URLRedaction.marker + "~") { return String(value) }
                let text = String(value)
                return URLRedaction.marker + "~"
                    + (self == .fingerprint ? StableHash.shortHex(of: text) : StableHash.hex(of: text))
            }
        }
    }

    private static func display(_ url: URL, hiding secretNames: Set<String>, fingerprinting: Bool) -> String {
        let text = url.absoluteString
        guard url.password != nil || text.contains("?") || text.contains("#") else { return text }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url.password == nil ? text : "(a URL with a password)"
        }
        if components.percentEncodedPassword != nil { components.percentEncodedPassword = "***" }
        let defaults = hiddenQueryNames
        let hidden = secretNames.isEmpty ? defaults : defaults.union(secretNames.map { $0.lowercased() })
        if let query = components.percentEncodedQuery {
            components.percentEncodedQuery = redacted(query, hidden, hiding: Hiding(fingerprinting: fingerprinting))
        }
        // An OAuth implicit flow puts its token in the fragment, in the same form.
        if let fragment = components.percentEncodedFragment {
            components.percentEncodedFragment = redacted(
                fragment, hidden, hiding: Hiding(fingerprinting: fingerprinting))
        }
        return components.string ?? "(a URL with secrets)"
    }

    /// `name=value` pairs separated by `&` or `;`, secret values replaced.
    /// `name=value` pairs (a query, a fragment, an `application/x-www-form-urlencoded` body)
    /// with the values of secret names replaced by `***`.
    ///
    /// ```swift
    /// print(URLRedaction.displayPairs("grant_type=password&password=hunter2"))
    /// // grant_type=password&password=***
    /// ```
    /// - Parameters:
    ///   - pairs: Pairs separated by `&` or `;`, percent-encoded or not.
    ///   - secretNames: Names to hide, besides ``hiddenQueryNames``; any case.
    /// - Returns: The pairs with secret values hidden.
    public static func displayPairs(_ pairs: String, hiding secretNames: Set<String> = []) -> String {
        let defaults = hiddenQueryNames
        return redacted(
            pairs, secretNames.isEmpty ? defaults : defaults.union(secretNames.map { $0.lowercased() }),
            hiding: .marker)
    }

    /// A whole body as text (a form, or JSON), for a recording: the values of secret-named
    /// pairs, or of secret-named JSON members at any depth (strings and numbers), replaced,
    /// as ``fingerprint(of:)`` writes them when `fingerprinting`, else by `***`.
    /// - Parameters:
    ///   - text: The body's text.
    ///   - json: Whether it is JSON (members), else `name=value` pairs.
    ///   - fingerprinting: Whether a hidden value becomes its fingerprint.
    /// - Returns: The text without its secrets.
    package static func redactingBody(_ text: String, json: Bool, fingerprinting: Bool) -> String {
        json
            ? redactedMembers(text, hiddenQueryNames, hiding: Hiding(fingerprinting: fingerprinting))
            : redacted(text, hiddenQueryNames, hiding: Hiding(fingerprinting: fingerprinting))
    }

    /// The start of a body as text for a description or a log line, at most `limit` bytes,
    /// with the values of secret-named JSON members (`"access_token": "…"`) and of secret
    /// `name=value` pairs replaced by `***`, and `…` when the body is longer.
    ///
    /// ```swift
    /// print(URLRedaction.displayBody(Data(#"{"access_token":"eyJ0","expires_in":3600}"#.utf8)))
    /// // {"access_token":"***","expires_in":3600}
    /// ```
    /// - Parameters:
    ///   - body: The body's bytes.
    ///   - limit: The most bytes shown; 200 by default.
    /// - Returns: The text to show.
    public static func displayBody(_ body: Data, limit: Int = 200) -> String {
        let text = String(decoding: body.prefix(max(0, limit)), as: UTF8.self)
        let hidden = hiddenQueryNames
        var shown = redactedMembers(text, hidden, hiding: .marker)
        if let first = shown.first(where: { !$0.isWhitespace }), !"{[<".contains(first) {
            shown = redacted(shown, hidden, hiding: .marker)
        }
        return shown + (body.count > limit ? "…" : "")
    }

    /// An error as text, every URL in it shown as ``display(_:hiding:)`` shows it: what
    /// Foundation prints of an error includes the failing URL in its `userInfo`, with its
    /// password and query.
    ///
    /// ```swift
    /// let url = URL(string: "https://alice:s3cret@api.example.com/v1?access_token=abc")!
    /// let error = URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: url])
    /// print(URLRedaction.displayError(error).contains("s3cret"))  // false
    /// ```
    /// - Parameter error: The error.
    /// - Returns: Its description without secrets.
    public static func displayError(_ error: any Error) -> String {
        redactingURLs(in: String(describing: error))
    }

    /// `text` with each `scheme://…` run in it shown as ``display(_:hiding:)`` shows its URL,
    /// or as `(a URL)` when the run does not parse as one.
    package static func redactingURLs(in text: String) -> String {
        guard text.contains("://") else { return text }
        let stops: Set<Character> = [" ", "\n", "\t", "\"", "'", "<", ">", "{", "}", "\\", "|", "^", "`"]
        var result = ""
        var rest = Substring(text)
        while let separator = rest.range(of: "://") {
            // The scheme: letters, digits, `+`, `-` and `.` back from `://`, starting with a letter.
            var schemeStart = separator.lowerBound
            while schemeStart > rest.startIndex {
                let previous = rest.index(before: schemeStart)
                let character = rest[previous]
                guard character.isASCII, character.isLetter || character.isNumber || "+-.".contains(character) else {
                    break
                }
                schemeStart = previous
            }
            while schemeStart < separator.lowerBound, !(rest[schemeStart].isASCII && rest[schemeStart].isLetter) {
                schemeStart = rest.index(after: schemeStart)
            }
            var end = separator.upperBound
            while end < rest.endIndex, !stops.contains(rest[end]) { end = rest.index(after: end) }
            result += rest[..<schemeStart]
            if schemeStart == separator.lowerBound {
                result += rest[schemeStart..<separator.upperBound]
            } else {
                let candidate = String(rest[schemeStart..<end])
                result += URL(string: candidate).map { display($0) } ?? "(a URL)"
            }
            rest = rest[(schemeStart == separator.lowerBound ? separator.upperBound : end)...]
        }
        return result + rest
    }

    /// `text` with the string and number values of secret-named JSON members replaced by
    /// `***` (a number by the string `"***"`), or by their fingerprints; a value cut short by
    /// the end of the text is hidden too.
    private static func redactedMembers(_ text: String, _ hidden: Set<String>, hiding: Hiding) -> String {
        guard text.contains("\"") else { return text }
        let characters = Array(text)
        var result = ""
        var index = 0
        /// The end of the JSON string starting after the quote at `start` (the closing quote's
        /// index, or the text's end).
        func stringEnd(from start: Int) -> Int {
            var position = start
            while position < characters.count {
                if characters[position] == "\\" {
                    position += 2
                    continue
                }
                if characters[position] == "\"" { return position }
                position += 1
            }
            return characters.count
        }
        while index < characters.count {
            guard characters[index] == "\"" else {
                result.append(characters[index])
                index += 1
                continue
            }
            let nameEnd = stringEnd(from: index + 1)
            result += String(characters[index..<min(nameEnd + 1, characters.count)])
            guard nameEnd < characters.count else { break }
            let name = String(characters[(index + 1)..<nameEnd]).lowercased()
            index = nameEnd + 1
            // A member: the name, optional blanks, a colon, optional blanks, a string value.
            var colon = index
            while colon < characters.count, characters[colon].isWhitespace { colon += 1 }
            guard colon < characters.count, characters[colon] == ":", hidden.contains(name) else { continue }
            var value = colon + 1
            while value < characters.count, characters[value].isWhitespace { value += 1 }
            guard value < characters.count else { continue }
            if characters[value] == "-" || characters[value].isASCII && characters[value].isNumber {
                var numberEnd = value
                while numberEnd < characters.count, "0123456789+-.eE".contains(characters[numberEnd]) {
                    numberEnd += 1
                }
                let number = String(characters[value..<numberEnd])
                result += String(characters[index..<value]) + "\"" + hiding.hide(number)
                result += "\""
                index = numberEnd
                continue
            }
            guard characters[value] == "\"" else { continue }
            let valueEnd = stringEnd(from: value + 1)
            let string = String(characters[(value + 1)..<valueEnd])
            result += String(characters[index...value]) + hiding.hide(string)
            if valueEnd < characters.count { result.append("\"") }
            index = valueEnd + 1
        }
        return result
    }

    private static func redacted(_ pairs: String, _ hidden: Set<String>, hiding: Hiding) -> String {
        var result = ""
        func append(_ pair: Substring) {
            if let equals = pair.firstIndex(of: "=") {
                let name = pair[..<equals].removingPercentEncoding?.lowercased() ?? pair[..<equals].lowercased()
                guard hidden.contains(name) else {
                    result += pair
                    return
                }
                let value = pair[pair.index(after: equals)...]
                result += "\(pair[..<equals])=" + hiding.hide(value)
            } else {
                result += pair
            }
        }
        var start = pairs.startIndex
        for index in pairs.indices where pairs[index] == "&" || pairs[index] == ";" {
            append(pairs[start..<index])
            result.append(pairs[index])
            start = pairs.index(after: index)
        }
        append(pairs[start...])
        return result
    }
}
