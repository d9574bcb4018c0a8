import Foundation

/// The cookie-date algorithm of RFC 6265bis §5.1.1: the lenient date syntax of `Expires`,
/// which servers write in every format (`Wed, 09 Jun 2021 10:18:14 GMT`,
/// `Wednesday, 09-Jun-21 10:18:14 GMT`, `Wed Jun  9 10:18:14 2021`).
enum CookieDate {
    /// The date `text` means, or `nil` when it is not a cookie-date (a missing or out-of-range
    /// part, a day the month does not have, a year before 1601).
    static func parse(_ text: Substring) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens(text) {
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
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (time.hour, time.minute, time.second)
        guard let date = calendar.date(from: components) else { return nil }
        let check = calendar.dateComponents([.year, .month, .day], from: date)
        guard check.year == year, check.month == month, check.day == day else { return nil }
        return date
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The tokens between delimiters: %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E.
    private static func tokens(_ text: Substring) -> [Substring.UTF8View.SubSequence] {
        text.utf8.split { byte in
            byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
                || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// `digits` digits, then anything but a digit: the value of the digits.
    private static func number(_ token: Substring.UTF8View.SubSequence, digits: ClosedRange<Int>) -> Int? {
        let leading = token.prefix(while: isDigit)
        guard digits.contains(leading.count) else { return nil }
        return leading.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// hms-time: 1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT, then anything but a digit.
    private static func time(_ token: Substring.UTF8View.SubSequence) -> (hour: Int, minute: Int, second: Int)? {
        var rest = token[...]
        var parts: [Int] = []
        for index in 0..<3 {
            let digits = rest.prefix(while: isDigit)
            guard (1...2).contains(digits.count) else { return nil }
            parts.append(digits.reduce(0) { $0 * 10 + Int($1 - 0x30) })
            rest = rest.dropFirst(digits.count)
            if index < 2 {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                rest = rest.dropFirst()
            }
        }
        if let next = rest.first, isDigit(next) { return nil }
        return (parts[0], parts[1], parts[2])
    }

    /// A month: the token's first three characters, case-insensitively.
    private static func month(_ token: Substring.UTF8View.SubSequence) -> Int? {
        guard token.count >= 3 else { return nil }
        let name = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        guard let index = months.firstIndex(of: name) else { return nil }
        return index + 1
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
}
