import Foundation

/// A `Set-Cookie` field value as RFC 6265bis §5.6 parses it: the name, the value, and the
/// attributes the storage model reads (for each, the last one given).
struct SetCookie: Equatable {
    var name: String
    var value: String
    /// `Max-Age`, as an expiry time (§5.6.2).
    var maxAge: Date?
    /// `Expires`, as an expiry time (§5.6.1).
    var expires: Date?
    /// `Domain`, without a leading dot, lower-cased (§5.6.3).
    var domain: String?
    /// `Path`, when it starts with `/` (§5.6.4; otherwise the default path applies).
    var path: String?
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
        // Byte by byte, by offsets into the field's UTF-8: the delimiters are ASCII (a ";"
        // followed by a combining mark is still a delimiter, though not a Character), and a
        // field is read with no string made but those the cookie keeps.
        var text = text
        var scan = Scan()
        var (name, value, path, domain, expires) = ("", "", String?.none, String?.none, Date?.none)
        let failure: Failure? = text.withUTF8 { bytes in
            if let failure = scan.read(bytes, now: now) { return failure }
            func string(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            (name, value, path, domain) = (
                string(scan.name), string(scan.value), scan.path.map(string), scan.domain.map(string)
            )
            // §5.6.1: the last Expires that parses; a date that does not leaves the attribute out.
            for range in scan.expires.reversed() {
                guard let date = CookieDate.parse(bytes: UnsafeBufferPointer(rebasing: bytes[range])) else { continue }
                expires = date
                break
            }
            return nil
        }
        if let failure { throw failure }
        (self.name, self.value, self.path) = (name, value, path)
        maxAge = scan.maxAge
        self.expires = expires.map { min($0, now.addingTimeInterval(Self.ageLimit)) }
        secure = scan.secure
        httpOnly = scan.httpOnly
        sameSite = scan.sameSite
        // Lower-cased only when it has to be: most domains already are.
        self.domain = domain.map { domain in
            domain.utf8.contains(where: { $0 >= 0x80 || (0x41...0x5A).contains($0) }) ? domain.lowercased() : domain
        }
    }

    /// What a pass over a field's bytes finds: offsets of its parts, and the attributes that
    /// need no string.
    private struct Scan {
        var name = 0..<0
        var value = 0..<0
        var expires: [Range<Int>] = []
        var maxAge: Date?
        var domain: Range<Int>?
        var path: Range<Int>?
        var secure = false
        var httpOnly = false
        var sameSite: Cookie.SameSite = .default

        /// Reads `bytes` (§5.6); the failure that ignores the whole field, if any.
        mutating func read(_ bytes: UnsafeBufferPointer<UInt8>, now: Date) -> Failure? {
            // Step 1: a control character other than HTAB ignores the whole field.
            for byte in bytes where byte < 0x20 && byte != 0x09 || byte == 0x7F { return .controlCharacter }
            // Step 2: the name-value pair is what comes before the first ";".
            let pairEnd = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            // Step 3: a pair without "=" is a nameless cookie's value.
            if let equals = bytes[..<pairEnd].firstIndex(of: UInt8(ascii: "=")) {
                name = Self.trimmed(bytes, 0..<equals)
                value = Self.trimmed(bytes, (equals + 1)..<pairEnd)
            } else {
                value = Self.trimmed(bytes, 0..<pairEnd)
            }
            // Step 5.
            guard name.count + value.count <= SetCookie.pairLimit else { return .tooLarge }
            var delimiter = pairEnd
            while delimiter < bytes.count {
                let start = delimiter + 1
                let end = bytes[start...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
                delimiter = end
                let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "="))
                let attribute = Self.trimmed(bytes, start..<(equals ?? end))
                let value = equals.map { Self.trimmed(bytes, ($0 + 1)..<end) } ?? end..<end
                guard value.count <= SetCookie.attributeLimit else { continue }
                apply(bytes, attribute, value, now: now)
            }
            return nil
        }

        /// Applies one attribute (for each, the last one given counts).
        private mutating func apply(
            _ bytes: UnsafeBufferPointer<UInt8>, _ attribute: Range<Int>, _ value: Range<Int>, now: Date
        ) {
            let name = UnsafeBufferPointer(rebasing: bytes[attribute])
            let text = UnsafeBufferPointer(rebasing: bytes[value])
            switch name.count {
            case 4 where Self.equalsIgnoringCase(name, "path"):
                // §5.6.4: a path that does not start with "/" means the default path.
                path = text.first == UInt8(ascii: "/") ? value : nil
            case 6 where Self.equalsIgnoringCase(name, "domain"):
                // §5.6.3: an empty Domain is ignored (the "SHOULD" of the draft).
                guard !text.isEmpty else { return }
                domain = text.first == UInt8(ascii: ".") ? (value.lowerBound + 1)..<value.upperBound : value
            case 6 where Self.equalsIgnoringCase(name, "secure"):
                secure = true
            case 7 where Self.equalsIgnoringCase(name, "expires"):
                expires.append(value)
            case 7 where Self.equalsIgnoringCase(name, "max-age"):
                applyMaxAge(text, now: now)
            case 8 where Self.equalsIgnoringCase(name, "httponly"):
                httpOnly = true
            case 8 where Self.equalsIgnoringCase(name, "samesite"):
                // §5.6.7: anything but these three is the default enforcement.
                if Self.equalsIgnoringCase(text, "none") {
                    sameSite = .none
                } else if Self.equalsIgnoringCase(text, "strict") {
                    sameSite = .strict
                } else if Self.equalsIgnoringCase(text, "lax") {
                    sameSite = .lax
                } else {
                    sameSite = .default
                }
            default:
                break
            }
        }

        /// §5.6.2: "-" or a digit, then digits only; at most the age limit.
        private mutating func applyMaxAge(_ text: UnsafeBufferPointer<UInt8>, now: Date) {
            guard let first = text.first, first == UInt8(ascii: "-") || (0x30...0x39).contains(first),
                text.dropFirst().allSatisfy({ (0x30...0x39).contains($0) }), text.count > (first == 0x2D ? 1 : 0)
            else { return }
            let negative = first == UInt8(ascii: "-")
            var seconds = 0
            for byte in text.dropFirst(negative ? 1 : 0) {
                // A number too long for an Int is past the age limit anyway.
                let (times, overflow) = seconds.multipliedReportingOverflow(by: 10)
                let (sum, overflowAgain) = times.addingReportingOverflow(Int(byte - 0x30))
                guard !overflow, !overflowAgain else {
                    seconds = Int.max
                    break
                }
                seconds = sum
            }
            maxAge =
                negative || seconds == 0
                ? Date.distantPast
                : now.addingTimeInterval(min(TimeInterval(seconds), SetCookie.ageLimit))
        }

        /// `range` without leading and trailing WSP (space and HTAB).
        static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
            var (start, end) = (range.lowerBound, range.upperBound)
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            return start..<end
        }

        /// Whether `text` is `lowercase` (ASCII, in lower case) but for the case of its letters.
        static func equalsIgnoringCase(_ text: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
            guard text.count == lowercase.utf8CodeUnitCount else { return false }
            return lowercase.withUTF8Buffer { expected in
                zip(text, expected).allSatisfy { byte, wanted in
                    ((0x41...0x5A).contains(byte) ? byte | 0x20 : byte) == wanted
                }
            }
        }
    }

    /// `text` without leading and trailing WSP (space and HTAB).
    static func trimmed(_ text: Substring) -> Substring {
        let bytes = text.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { bytes.formIndex(after: &start) }
        while start < end {
            let last = bytes.index(before: end)
            guard bytes[last] == 0x20 || bytes[last] == 0x09 else { break }
            end = last
        }
        return text[start..<end]
    }
}
