import Foundation
import HTTPCore

/// The cookie-date algorithm of RFC 6265bis §5.1.1: the lenient date syntax of `Expires`,
/// which servers write in every format (`Wed, 09 Jun 2021 10:18:14 GMT`,
/// `Wednesday, 09-Jun-21 10:18:14 GMT`, `Wed Jun  9 10:18:14 2021`).
enum CookieDate {
    /// The date `text` means, or `nil` when it is not a cookie-date (a missing or out-of-range
    /// part, a day the month does not have, a year before 1601).
    static func parse(_ text: Substring) -> Date? {
        if let parsed = text.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0) }) { return parsed }
        return Array(text.utf8).withUnsafeBufferPointer { parse(bytes: $0) }
    }

    /// The date `bytes` mean: read by offsets, with no token copied.
    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        var start = 0
        while start < bytes.count {
            // The tokens between delimiters: %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E.
            guard !isDelimiter(bytes[start]) else {
                start += 1
                continue
            }
            var end = start + 1
            while end < bytes.count, !isDelimiter(bytes[end]) { end += 1 }
            let token = UnsafeBufferPointer(rebasing: bytes[start..<end])
            start = end
            // §5.1.1 step 2: each token is tried as a time, a day of month, a month and a year,
            // in that order, and taken by the first of those not yet found that it matches.
            if time == nil, let found = Self.time(token) {
                time = found
            } else if day == nil, let found = number(token, digits: 1...2) {
                day = found
            } else if month == nil, let found = Self.month(token) {
                month = found
            } else if year == nil, let found = number(token, digits: 2...4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        // Step 3 and 4: two-digit years.
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        // Step 5: the ranges.
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59 else {
            return nil
        }
        // Step 6: a day the month does not have fails.
        guard Int64(day) <= CivilDate.daysIn(month: Int64(month), year: Int64(year)) else { return nil }
        let days = CivilDate.days(fromCivil: Int64(year), Int64(month), Int64(day))
        let seconds = days * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + time.second)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
            || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// How many digits `token` starts with, from `start`.
    private static func digits(_ token: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var end = start
        while end < token.count, isDigit(token[end]) { end += 1 }
        return end - start
    }

    /// The value of `count` digits of `token` from `start`.
    private static func value(_ token: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) -> Int {
        token[start..<(start + count)].reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `digits` digits, then anything but a digit: the value of the digits.
    private static func number(_ token: UnsafeBufferPointer<UInt8>, digits range: ClosedRange<Int>) -> Int? {
        let count = digits(token, from: 0)
        guard range.contains(count) else { return nil }
        return value(token, from: 0, count: count)
    }

    /// hms-time: 1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT, then anything but a digit.
    private static func time(_ token: UnsafeBufferPointer<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        var at = 0
        var parts = (0, 0, 0)
        for index in 0..<3 {
            let count = digits(token, from: at)
            guard (1...2).contains(count) else { return nil }
            let part = value(token, from: at, count: count)
            switch index {
            case 0: parts.0 = part
            case 1: parts.1 = part
            default: parts.2 = part
            }
            at += count
            if index < 2 {
                guard at < token.count, token[at] == UInt8(ascii: ":") else { return nil }
                at += 1
            }
        }
        if at < token.count, isDigit(token[at]) { return nil }
        return parts
    }

    /// A month: the token's first three characters, case-insensitively.
    private static func month(_ token: UnsafeBufferPointer<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let lower = { (byte: UInt8) -> UInt8 in (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        let (first, second, third) = (lower(token[0]), lower(token[1]), lower(token[2]))
        guard let index = months.firstIndex(where: { $0 == (first, second, third) }) else { return nil }
        return index + 1
    }

    private static let months: [(UInt8, UInt8, UInt8)] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ].map { name in
        let bytes = Array(name.utf8)
        return (bytes[0], bytes[1], bytes[2])
    }
}
