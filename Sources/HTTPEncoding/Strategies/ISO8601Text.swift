import Foundation
import HTTPCore

/// Locale-free ISO 8601 / RFC 3339 §5.6 formatting and parsing in UTC.
///
/// Written out rather than taken from `ISO8601DateFormatter` so that it is fast,
/// thread-safe without locks, and gives the same bytes on every platform.
enum ISO8601Text {
    /// Whether ``format(_:fractionalSeconds:)`` can write `date` as ISO 8601 text: its
    /// seconds are finite and within about three million years of 1970.
    static func canFormat(_ date: Date) -> Bool {
        let interval = date.timeIntervalSince1970
        return interval.isFinite && abs(interval) < 1e14
    }

    /// Formats `date` as `YYYY-MM-DDTHH:MM:SSZ`, or with `.mmm` milliseconds; a date that
    /// ``canFormat(_:)`` refuses comes out as its number of seconds (for messages only).
    static func format(_ date: Date, fractionalSeconds: Bool) -> String {
        guard canFormat(date) else { return date.timeIntervalSince1970.description }
        let interval = date.timeIntervalSince1970
        var milliseconds = Int64((interval * 1000).rounded(fractionalSeconds ? .toNearestOrAwayFromZero : .down))
        if !fractionalSeconds { milliseconds -= ((milliseconds % 1000) + 1000) % 1000 }
        var seconds = milliseconds / 1000
        var fraction = milliseconds % 1000
        if fraction < 0 {
            fraction += 1000
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = CivilDate.civil(fromDays: days)
        var out: [UInt8] = []
        out.reserveCapacity(24)
        if year < 0 { out.append(UInt8(ascii: "-")) }
        append(abs(year), width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        append(month, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        append(day, width: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        append(secondOfDay / 3600, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(secondOfDay / 60 % 60, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        append(secondOfDay % 60, width: 2, to: &out)
        if fractionalSeconds {
            out.append(UInt8(ascii: "."))
            append(fraction, width: 3, to: &out)
        }
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `nil` when `text` is not that.
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + width] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            index += width
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("Tt "), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...CivilDate.daysIn(month: month, year: year)).contains(day), hour < 24,
            minute < 60,
            second < 61
        else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset: Int64 = 0
        if expect("Zz") {
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(2), expect(":"), let offsetMinutes = number(2), offsetHours < 24,
                offsetMinutes < 60
            else { return nil }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = CivilDate.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func append(_ value: Int64, width: Int, to out: inout [UInt8]) {
        var digits: [UInt8] = []
        var rest = value
        repeat {
            digits.append(UInt8(rest % 10) + 0x30)
            rest /= 10
        } while rest > 0
        for _ in digits.count..<max(width, digits.count) { out.append(0x30) }
        out.append(contentsOf: digits.reversed())
    }
}
