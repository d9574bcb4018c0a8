import Foundation
import HTTPClient
import HTTPCore

/// The directives of `Cache-Control` field lines (RFC 9111 §5.2), parsed once.
///
/// Grammar (RFC 9111 §5.2, RFC 9110 §5.6): a comma-separated list of
/// `token [ "=" ( token / quoted-string ) ]`, names compared case-insensitively. A comma or
/// a directive name inside a quoted string belongs to that string (`ext="max-age=5"` holds
/// no `max-age`). A member that does not follow the grammar (`max-age =5`, `max-age= 5`) is
/// skipped whole. When a directive appears more than once, the first occurrence counts
/// (RFC 9111 §4.2.1 allows the first or treating the response as stale).
struct CacheDirectives: Sendable, Equatable {
    /// Directive names (lowercased) to their argument, unquoted; `nil` for none.
    private(set) var arguments: [String: String?] = [:]

    init() {}

    /// Parses every `Cache-Control` line of `fields`.
    init(_ fields: HTTPFields) {
        for value in fields[values: .cacheControl] { parse(value) }
    }

    /// Parses one field value.
    init(parsing value: String) { parse(value) }

    /// Whether `name` is present, with or without an argument.
    func has(_ name: String) -> Bool { arguments[name] != nil }

    /// The argument of `name`, `nil` when absent or without one.
    func argument(_ name: String) -> String? { arguments[name] ?? nil }

    /// The delta-seconds argument of `name` (RFC 9111 §1.2.2).
    ///
    /// Senders use the token form, but recipients ought to accept the quoted form too (RFC
    /// 9111 §5.2): `max-age="3600"` is an hour, as `max-age=3600`.
    /// - Returns: `nil` when the directive is absent; `.invalid` when present without
    ///   1*DIGIT, quoted or not (a sign, a fraction or an empty value); the number otherwise,
    ///   values past 2^31 read as 2^31 as §1.2.2 requires.
    func seconds(_ name: String) -> DeltaSeconds? {
        guard let argument = arguments[name] else { return nil }
        guard let text = argument, let value = DeltaSeconds.parse(text) else {
            return .invalid
        }
        return .value(value)
    }

    /// The field names listed in the argument of `no-cache` or `private`
    /// (`no-cache="Set-Cookie, X-A"`), lowercased; empty when it has none.
    func fieldNames(of name: String) -> [String] {
        guard let argument = argument(name) else { return [] }
        return argument.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
    }

    /// A delta-seconds argument as read.
    enum DeltaSeconds: Equatable, Sendable {
        /// A number of seconds, at most 2^31.
        case value(Int64)
        /// Present but not 1*DIGIT.
        case invalid

        /// The greatest value a cache must handle (RFC 9111 §1.2.2).
        static let cap: Int64 = 2_147_483_648

        /// `text` as 1*DIGIT, capped at 2^31; `nil` when it is anything else.
        static func parse(_ text: some StringProtocol) -> Int64? {
            guard !text.isEmpty else { return nil }
            var value: Int64 = 0
            for byte in text.utf8 {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = min(cap, value * 10 + Int64(byte - UInt8(ascii: "0")))
            }
            return value
        }

        /// The seconds, `0` for an invalid value (which makes a response stale at once).
        var secondsOrZero: Int64 {
            if case .value(let value) = self { return value }
            return 0
        }
    }

    // MARK: Parsing

    private mutating func parse(_ value: String) {
        let bytes = Array(value.utf8)
        var index = 0
        func skipBlanks() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        }
        // Once a quote is found never closed, quotes are plain bytes for the rest of the field
        // (each later quote would otherwise be looked past to the end again: quadratic).
        var quotesAreText = false
        /// The index of the quote closing a quoted string whose text starts at `start`,
        /// skipping backslash escapes; `nil` (and quotes are text from then on) when none does.
        func closingQuote(from start: Int) -> Int? {
            guard !quotesAreText else { return nil }
            var position = start
            while position < bytes.count {
                if bytes[position] == UInt8(ascii: "\\") {
                    position += 2
                    continue
                }
                if bytes[position] == UInt8(ascii: "\"") { return position }
                position += 1
            }
            quotesAreText = true
            return nil
        }
        func skipMember() {
            // To the next comma outside a quoted string; a quote never closed is a plain byte,
            // so that the members after it (a `no-store`, say) still apply, as a cautious
            // cache reads them.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\""), let close = closingQuote(from: index + 1) {
                    index = close + 1
                    continue
                }
                if byte == UInt8(ascii: ",") { return }
                index += 1
            }
        }
        while index < bytes.count {
            skipBlanks()
            if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard index < bytes.count else { break }
            let nameStart = index
            while index < bytes.count, HTTPToken.isTokenByte(bytes[index]) { index += 1 }
            guard index > nameStart else {
                skipMember()
                continue
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            var argument: String?
            /// A member whose name is a token but whose rest is not valid (`no-store=0 x`, an
            /// argument left empty, a quote never closed) still counts by its name, without an
            /// argument: a cautious cache honours a `no-store` or `private` a server wrote
            /// badly, reads a malformed `no-cache="…` as unqualified (validate every use), and a
            /// malformed `max-age` as invalid (so the response is stale, RFC 9111 §4.2.1), not
            /// absent.
            func malformed() {
                skipMember()
                if arguments[name] == nil { arguments[name] = .some(nil) }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "\""), let close = closingQuote(from: index + 1) {
                    var text: [UInt8] = []
                    var position = index + 1
                    while position < close {
                        if bytes[position] == UInt8(ascii: "\\"), position + 1 < close { position += 1 }
                        text.append(bytes[position])
                        position += 1
                    }
                    index = close + 1
                    argument = String(decoding: text, as: UTF8.self)
                } else if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                    // A quote never closed makes this member invalid, not the rest of the field.
                    malformed()
                    continue
                } else {
                    let start = index
                    while index < bytes.count, HTTPToken.isTokenByte(bytes[index]) { index += 1 }
                    guard index > start else {
                        malformed()
                        continue
                    }
                    argument = String(decoding: bytes[start..<index], as: UTF8.self)
                }
            }
            skipBlanks()
            guard index == bytes.count || bytes[index] == UInt8(ascii: ",") else {
                malformed()
                continue
            }
            if arguments[name] == nil {
                arguments[name] = .some(argument)
            }
        }
    }
}
