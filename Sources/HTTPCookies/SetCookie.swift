import Foundation

/// A `Set-Cookie` field value as RFC 6265bis §5.6 parses it: the name, the value, and the
/// attributes the storage model reads (for each, the last one given).
struct SetCookie: Equatable {
    var name: Substring
    var value: Substring
    /// `Max-Age`, as an expiry time (§5.6.2).
    var maxAge: Date?
    /// `Expires`, as an expiry time (§5.6.1).
    var expires: Date?
    /// `Domain`, without a leading dot, lower-cased (§5.6.3).
    var domain: String?
    /// `Path`, when it starts with `/` (§5.6.4; otherwise the default path applies).
    var path: Substring?
    var secure = false
    var httpOnly = false
    var sameSite: Cookie.SameSite = .default

    /// Why a whole field is ignored (§5.6).
    enum Failure: Error {
        /// A control character other than HTAB (step 1).
        case controlCharacter
        /// A name and value over 4096 bytes (step 5).
        case tooLarge

        /// The reason a ``CookieJar/Refusal`` gives.
        var reason: CookieJar.Refusal.Reason {
            switch self {
            case .controlCharacter: return .controlCharacter
            case .tooLarge: return .tooLarge
            }
        }
    }

    /// The longest a cookie may live: 400 days (§5.5, "cookie-age-limit").
    static let ageLimit: TimeInterval = 400 * 24 * 60 * 60
    /// The most bytes of a name and value together (§5.6, step 5).
    static let pairLimit = 4096
    /// The most bytes of an attribute value; a longer attribute is ignored (§5.6, step 3 of the
    /// attribute loop).
    static let attributeLimit = 1024

    /// Parses `text`.
    /// - Parameters:
    ///   - text: The field value.
    ///   - now: The time `Max-Age` and the age limit count from.
    /// - Throws: Why the whole field is to be ignored: a control character, a name and value
    ///   over 4096 bytes.
    init(_ text: String, now: Date) throws(Failure) {
        // Step 1: a control character other than HTAB ignores the whole field.
        guard !text.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 || $0 == 0x7F }) else {
            throw .controlCharacter
        }
        // Step 2: the name-value pair is what comes before the first ";".
        let pairEnd = text.firstIndex(of: ";") ?? text.endIndex
        let pair = text[..<pairEnd]
        // Step 3: a pair without "=" is a nameless cookie's value.
        if let equals = pair.firstIndex(of: "=") {
            name = Self.trimmed(pair[..<equals])
            value = Self.trimmed(pair[pair.index(after: equals)...])
        } else {
            name = ""
            value = Self.trimmed(pair)
        }
        // Step 5.
        guard name.utf8.count + value.utf8.count <= Self.pairLimit else { throw .tooLarge }
        var rest = text[pairEnd...]
        while !rest.isEmpty {
            rest = rest.dropFirst()  // the ";"
            let end = rest.firstIndex(of: ";") ?? rest.endIndex
            let attribute = rest[..<end]
            rest = rest[end...]
            let attributeName: Substring
            let attributeValue: Substring
            if let equals = attribute.firstIndex(of: "=") {
                attributeName = Self.trimmed(attribute[..<equals])
                attributeValue = Self.trimmed(attribute[attribute.index(after: equals)...])
            } else {
                attributeName = Self.trimmed(attribute)
                attributeValue = ""
            }
            guard attributeValue.utf8.count <= Self.attributeLimit else { continue }
            apply(attributeName.lowercased(), attributeValue, now: now)
        }
    }

    private mutating func apply(_ attribute: String, _ value: Substring, now: Date) {
        let latest = now.addingTimeInterval(Self.ageLimit)
        switch attribute {
        case "expires":
            // §5.6.1: a date that does not parse leaves the attribute out.
            guard let date = CookieDate.parse(value) else { return }
            expires = min(date, latest)
        case "max-age":
            // §5.6.2: "-" or a digit, then digits only.
            guard let first = value.utf8.first, first == UInt8(ascii: "-") || (0x30...0x39).contains(first),
                value.utf8.dropFirst().allSatisfy({ (0x30...0x39).contains($0) }), value != "-"
            else { return }
            let negative = first == UInt8(ascii: "-")
            let digits = negative ? value.dropFirst() : value[...]
            // A number too long for an Int is past the age limit anyway.
            let seconds = Int(digits).map { negative ? -$0 : $0 } ?? (negative ? -1 : Int.max)
            maxAge =
                seconds <= 0 ? Date.distantPast : min(now.addingTimeInterval(TimeInterval(seconds)), latest)
        case "domain":
            // §5.6.3: an empty Domain is ignored (the "SHOULD" of the draft).
            guard !value.isEmpty else { return }
            domain = (value.first == "." ? value.dropFirst() : value).lowercased()
        case "path":
            // §5.6.4: a path that does not start with "/" means the default path.
            path = value.first == "/" ? value : nil
        case "secure":
            secure = true
        case "httponly":
            httpOnly = true
        case "samesite":
            // §5.6.7: anything but these three is the default enforcement.
            switch value.lowercased() {
            case "none": sameSite = .none
            case "strict": sameSite = .strict
            case "lax": sameSite = .lax
            default: sameSite = .default
            }
        default:
            break
        }
    }

    /// `text` without leading and trailing WSP (space and HTAB).
    static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
