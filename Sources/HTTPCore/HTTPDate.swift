import Foundation

/// Parsing and formatting of HTTP-date timestamps (RFC 9110 §5.6.7).
///
/// Formatting always produces the preferred IMF-fixdate form. Parsing accepts it and
/// the two obsolete forms a recipient must still read: RFC 850 dates, with a two-digit
/// year, and ANSI C `asctime()` dates. The parser is locale-free and allocation-light.
///
/// ```swift
/// let date = HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")!
/// print(HTTPDate.format(date))  // Sun, 06 Nov 1994 08:49:37 GMT
/// print(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == date)  // true
/// print(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == date)  // true
/// ```
public enum HTTPDate {
    private static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// Formats `date` as an IMF-fixdate, such as `Sun, 06 Nov 1994 08:49:37 GMT`.
    ///
    /// IMF-fixdate has a four-digit year, so an instant before 0001-01-01 or after
    /// 9999-12-31 23:59:59 GMT is clamped to that range, and a non-finite one (NaN,
    /// infinity) formats as the nearest end (NaN as the start).
    /// - Parameter date: The instant to format; fractions of a second are dropped.
    /// - Returns: The IMF-fixdate text.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let total: Int64
        if interval.isNaN || interval <= Double(earliestFormattable) {
            total = earliestFormattable
        } else if interval >= Double(latestFormattable) {
            total = latestFormattable
        } else {
            total = Int64(interval.rounded(.down))
        }
        var days = total / 86_400
        var seconds = total % 86_400
        if seconds < 0 {
            seconds += 86_400
            days -= 1
        }
        let (year, month, day) = CivilDate.civil(fromDays: days)
        // 1970-01-01 was a Thursday (index 3 with Monday as 0).
        let weekday = Int(((days % 7) + 7 + 3) % 7)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var yearText = String(year)
        while yearText.count < 4 { yearText = "0" + yearText }
        return "\(dayNames[weekday]), \(two(day)) \(monthNames[Int(month) - 1]) \(yearText) "
            + "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60)) GMT"
    }

    /// 0001-01-01 00:00:00 GMT, in seconds since 1970.
    private static let earliestFormattable: Int64 = -62_135_596_800
    /// 9999-12-31 23:59:59 GMT, in seconds since 1970.
    private static let latestFormattable: Int64 = 253_402_300_799

    /// Parses an HTTP-date in any of the three forms of RFC 9110 §5.6.7.
    ///
    /// A two-digit RFC 850 year that would be more than 50 years after `now` is read as
    /// the most recent past year with those last two digits, as §5.6.7 requires.
    ///
    /// Names of days and months are case-sensitive, as the grammar is. The day name must be
    /// one of the seven, but is not checked against the date (as most recipients do).
    /// - Parameters:
    ///   - text: The field value, surrounding whitespace allowed.
    ///   - now: The reference instant for two-digit years; the current time by default.
    /// - Returns: The instant, or `nil` when `text` is not a valid HTTP-date.
    public static func parse(_ text: String, now: Date = Date()) -> Date? {
        var scanner = DateScanner(text.trimmingCharacters(in: .whitespaces))
        guard let first = scanner.letters() else { return nil }
        if scanner.consume(",") {
            guard scanner.consume(" ") else { return nil }
            if dayNames.contains(first) {
                return imfFixdate(&scanner)
            }
            if longDayNames.contains(first) {
                return rfc850(&scanner, now: now)
            }
            return nil
        }
        guard dayNames.contains(first), scanner.consume(" ") else { return nil }
        return asctime(&scanner)
    }

    // IMF-fixdate: day SP month SP year SP time SP "GMT", after "Sun, ".
    private static func imfFixdate(_ scanner: inout DateScanner) -> Date? {
        guard let day = scanner.digits(2), scanner.consume(" "),
            let month = month(&scanner), scanner.consume(" "),
            let year = scanner.digits(4), scanner.consume(" "),
            let time = time(&scanner), scanner.consume(" GMT"), scanner.atEnd
        else { return nil }
        return make(year: year, month: month, day: day, time: time)
    }

    // rfc850-date: 2DIGIT "-" month "-" 2DIGIT SP time SP "GMT", after "Sunday, ".
    private static func rfc850(_ scanner: inout DateScanner, now: Date) -> Date? {
        guard let day = scanner.digits(2), scanner.consume("-"),
            let month = month(&scanner), scanner.consume("-"),
            let shortYear = scanner.digits(2), scanner.consume(" "),
            let time = time(&scanner), scanner.consume(" GMT"), scanner.atEnd
        else { return nil }
        return make(
            year: fullYear(shortYear, month: month, day: day, time: time, now: now), month: month, day: day,
            time: time)
    }

    /// Resolves a two-digit RFC 850 year (RFC 9110 §5.6.7): a timestamp that would be more
    /// than 50 years after `now` is in the most recent past year with the same last two
    /// digits. The result lies in the 100 years ending 50 years after `now`.
    private static func fullYear(_ shortYear: Int, month: Int, day: Int, time: (Int, Int, Int), now: Date) -> Int {
        let nowSeconds = Int64(Swift.max(-1e15, Swift.min(1e15, now.timeIntervalSince1970)).rounded(.down))
        var nowDays = nowSeconds / 86_400
        var nowTime = nowSeconds % 86_400
        if nowTime < 0 {
            nowTime += 86_400
            nowDays -= 1
        }
        let today = CivilDate.civil(fromDays: nowDays)
        let limit = CivilDate.days(fromCivil: today.year + 50, today.month, today.day) * 86_400 + nowTime
        func seconds(_ year: Int) -> Int64 {
            CivilDate.days(fromCivil: Int64(year), Int64(month), Int64(day)) * 86_400
                + Int64(time.0 * 3600 + time.1 * 60 + time.2)
        }
        var year = Int(today.year) - Int(today.year % 100) + shortYear
        if seconds(year) > limit {
            year -= 100
        } else if seconds(year + 100) <= limit {
            year += 100
        }
        return year
    }

    // asctime-date: month SP ( 2DIGIT / ( SP 1DIGIT )) SP time SP year, after "Sun ".
    private static func asctime(_ scanner: inout DateScanner) -> Date? {
        guard let month = month(&scanner), scanner.consume(" ") else { return nil }
        let day: Int?
        if scanner.consume(" ") { day = scanner.digits(1) } else { day = scanner.digits(2) }
        guard let day, scanner.consume(" "), let time = time(&scanner), scanner.consume(" "),
            let year = scanner.digits(4), scanner.atEnd
        else { return nil }
        return make(year: year, month: month, day: day, time: time)
    }

    private static func month(_ scanner: inout DateScanner) -> Int? {
        guard let name = scanner.letters(), let index = monthNames.firstIndex(of: name) else { return nil }
        return index + 1
    }

    private static func time(_ scanner: inout DateScanner) -> (Int, Int, Int)? {
        guard let hour = scanner.digits(2), scanner.consume(":"), let minute = scanner.digits(2),
            scanner.consume(":"), let second = scanner.digits(2),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        return (hour, minute, min(second, 59))
    }

    private static func make(year: Int, month: Int, day: Int, time: (Int, Int, Int)) -> Date? {
        guard day >= 1, Int64(day) <= CivilDate.daysIn(month: Int64(month), year: Int64(year)) else { return nil }
        let days = CivilDate.days(fromCivil: Int64(year), Int64(month), Int64(day))
        let seconds = days * 86_400 + Int64(time.0 * 3600 + time.1 * 60 + time.2)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}

/// A byte cursor over an ASCII date string.
private struct DateScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { index == bytes.count }

    mutating func consume(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let matches = literal.withUTF8Buffer { buffer in
            buffer.elementsEqual(bytes[index..<index + count])
        }
        if matches { index += count }
        return matches
    }

    mutating func letters() -> String? {
        let start = index
        while index < bytes.count, (bytes[index] | 0x20) >= UInt8(ascii: "a"),
            (bytes[index] | 0x20) <= UInt8(ascii: "z")
        {
            index += 1
        }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }
}
