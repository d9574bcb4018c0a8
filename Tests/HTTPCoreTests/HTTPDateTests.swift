import Foundation
import HTTPCore
import TestTraits
import Testing

@Suite("HTTPDate")
struct HTTPDateTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, the example instant of RFC 9110 §5.6.7.
    static let rfcInstant = Date(timeIntervalSince1970: 784_111_777)

    /// A fixed "now" for two-digit years: Sun, 22 Nov 2026 12:00:00 GMT.
    static let now = Date(timeIntervalSince1970: 1_795_348_800)

    /// Seconds since 1970 of a UTC calendar instant, computed by Foundation as an independent judge.
    static func instant(
        _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0
    )
        -> Date
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        let components = DateComponents(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return calendar.date(from: components)!
    }

    @Test("the fixed now is what it claims to be")
    func fixedNow() {
        #expect(HTTPDate.format(HTTPDateTests.now) == "Sun, 22 Nov 2026 12:00:00 GMT")
    }

    @Test(
        "parses the three forms of the RFC 9110 §5.6.7 example",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ])
    func rfcExamples(text: String) {
        #expect(HTTPDate.parse(text, now: HTTPDateTests.now) == HTTPDateTests.rfcInstant)
    }

    @Test("formats the RFC 9110 §5.6.7 example as IMF-fixdate")
    func formatsRFCExample() {
        #expect(HTTPDate.format(HTTPDateTests.rfcInstant) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test(
        "formats instants as IMF-fixdate with the right weekday",
        arguments: [
            (HTTPDateTests.instant(1970, 1, 1), "Thu, 01 Jan 1970 00:00:00 GMT"),
            (HTTPDateTests.instant(1969, 12, 31, 23, 59, 59), "Wed, 31 Dec 1969 23:59:59 GMT"),
            (HTTPDateTests.instant(2000, 2, 29, 12, 0, 0), "Tue, 29 Feb 2000 12:00:00 GMT"),
            (HTTPDateTests.instant(2024, 2, 29, 1, 2, 3), "Thu, 29 Feb 2024 01:02:03 GMT"),
            (HTTPDateTests.instant(1999, 12, 31, 23, 59, 59), "Fri, 31 Dec 1999 23:59:59 GMT"),
            (HTTPDateTests.instant(2038, 1, 19, 3, 14, 8), "Tue, 19 Jan 2038 03:14:08 GMT"),
            (HTTPDateTests.instant(1900, 3, 1), "Thu, 01 Mar 1900 00:00:00 GMT"),
            (HTTPDateTests.instant(1600, 2, 29), "Tue, 29 Feb 1600 00:00:00 GMT"),
            (HTTPDateTests.instant(9999, 12, 31, 23, 59, 59), "Fri, 31 Dec 9999 23:59:59 GMT"),
        ])
    func formats(date: Date, text: String) {
        #expect(HTTPDate.format(date) == text)
        #expect(HTTPDate.parse(text) == date)
    }

    @Test("formatting drops fractions of a second, also before 1970")
    func dropsFractions() {
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777.999)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -0.5)) == "Wed, 31 Dec 1969 23:59:59 GMT")
    }

    @Test("formatting clamps instants IMF-fixdate cannot hold instead of crashing")
    func clampsOutOfRange() {
        let first = "Mon, 01 Jan 0001 00:00:00 GMT"
        let last = "Fri, 31 Dec 9999 23:59:59 GMT"
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .nan)) == first)
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -.infinity)) == first)
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1e300)) == first)
        #expect(HTTPDate.format(Date(timeIntervalSince1970: .infinity)) == last)
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1e300)) == last)
        #expect(HTTPDate.format(.distantFuture) == "Mon, 01 Jan 4001 00:00:00 GMT")
    }

    @Test("format then parse gives back the whole second, sampled over 150 years", .heavyWork)
    func roundTrips() {
        var seconds: Int64 = -2_208_988_800  // 1900-01-01
        while seconds < 2_524_608_000 {  // 2050-01-01
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let text = HTTPDate.format(date)
            #expect(HTTPDate.parse(text) == date, "\(text)")
            seconds += 3 * 86_400 + 7 * 3600 + 13 * 60 + 17
        }
    }

    @Test("formatting agrees with Foundation's GMT formatter")
    func agreesWithFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        for seconds in stride(from: -86_400 * 365 * 30, to: 86_400 * 365 * 80, by: 86_400 * 97 + 3_607) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            #expect(HTTPDate.format(date) == formatter.string(from: date))
        }
    }

    @Test(
        "accepts the other asctime day spellings and surrounding whitespace",
        arguments: [
            ("Sun Nov 06 08:49:37 1994", HTTPDateTests.rfcInstant),
            ("Wed Nov 16 08:49:37 1994", HTTPDateTests.instant(1994, 11, 16, 8, 49, 37)),
            ("  Sun, 06 Nov 1994 08:49:37 GMT\t", HTTPDateTests.rfcInstant),
        ])
    func otherSpellings(text: String, date: Date) {
        #expect(HTTPDate.parse(text, now: HTTPDateTests.now) == date)
    }

    @Test("the day name is checked for spelling, not against the date")
    func dayNameNotCheckedAgainstDate() {
        #expect(HTTPDate.parse("Mon, 06 Nov 1994 08:49:37 GMT") == HTTPDateTests.rfcInstant)
        #expect(HTTPDate.parse("Mun, 06 Nov 1994 08:49:37 GMT") == nil)
    }

    @Test("a leap second 60 is read as second 59")
    func leapSecond() {
        #expect(
            HTTPDate.parse("Sat, 31 Dec 2016 23:59:60 GMT") == HTTPDateTests.instant(2016, 12, 31, 23, 59, 59))
    }

    @Test(
        "rejects dates that do not exist or are malformed",
        arguments: [
            "",
            "Mon, 30 Feb 2026 00:00:00 GMT",  // no Feb 30
            "Thu, 29 Feb 1900 00:00:00 GMT",  // 1900 is not a leap year
            "Wed, 29 Feb 2023 00:00:00 GMT",  // nor 2023
            "Thu, 31 Apr 2026 00:00:00 GMT",  // April has 30 days
            "Sun, 00 Nov 1994 08:49:37 GMT",  // day zero
            "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",  // hour 24
            "Sun, 06 Nov 1994 08:60:37 GMT",  // minute 60
            "Sun, 06 Nov 1994 08:49:61 GMT",  // second 61
            "Sun, 06 Noe 1994 08:49:37 GMT",  // wrong month name
            "Sun, 06 November 1994 08:49:37 GMT",  // long month name
            "Sun, 06 nov 1994 08:49:37 GMT",  // month names are case-sensitive
            "sun, 06 Nov 1994 08:49:37 GMT",  // day names too
            "Sun, 06 Nov 1994 08:49:37 GMT junk",  // trailing junk
            "Sun, 06 Nov 1994 08:49:37 GMTX",
            "Sun, 06 Nov 1994 08:49:37",  // no GMT
            "Sun, 06 Nov 1994 08:49:37 UTC",  // not GMT
            "Sun, 06 Nov 1994 08:49:37 +0000",
            "Sun, 6 Nov 1994 08:49:37 GMT",  // one-digit day
            "Sun, 06 Nov 94 08:49:37 GMT",  // two-digit year in IMF-fixdate
            "Sun, 06 Nov 1994 8:49:37 GMT",  // one-digit hour
            "Sun,  06 Nov 1994 08:49:37 GMT",  // two spaces
            "Sun 06 Nov 1994 08:49:37 GMT",  // no comma
            "Sunday, 06 Nov 1994 08:49:37 GMT",  // long day name with IMF-fixdate
            "Sun, 06-Nov-94 08:49:37 GMT",  // short day name with RFC 850
            "Sunday, 06-Nov-1994 08:49:37 GMT",  // four-digit year in RFC 850
            "Sunday, 06-Nov-94 08:49:37",  // RFC 850 without GMT
            "Sunday, 31-Feb-94 08:49:37 GMT",  // RFC 850 impossible day
            "Sun Nov 6 08:49:37 1994",  // asctime needs two columns for the day
            "Sun Nov  6 08:49:37 94",  // asctime two-digit year
            "Sun Nov  6 08:49:37 1994 GMT",  // asctime has no zone
            "Sun Nov  6 24:49:37 1994",
            "Xyz, 06 Nov 1994 08:49:37 GMT",  // unknown day name
            "1994-11-06T08:49:37Z",  // ISO 8601 is not an HTTP-date
            "784111777",
        ])
    func rejects(text: String) {
        #expect(HTTPDate.parse(text, now: HTTPDateTests.now) == nil)
    }

    @Test(
        "reads a two-digit year within 50 years after now, else in the past (RFC 9110 §5.6.7)",
        arguments: [
            ("Sunday, 06-Nov-94 08:49:37 GMT", HTTPDateTests.instant(1994, 11, 6, 8, 49, 37)),
            ("Saturday, 01-Jan-00 00:00:00 GMT", HTTPDateTests.instant(2000, 1, 1)),
            ("Sunday, 22-Nov-26 12:00:00 GMT", HTTPDateTests.instant(2026, 11, 22, 12)),
            ("Wednesday, 01-Jan-70 00:00:00 GMT", HTTPDateTests.instant(2070, 1, 1)),
            // 50 years after now to the second is not "more than 50 years": it stays in the future.
            ("Sunday, 22-Nov-76 12:00:00 GMT", HTTPDateTests.instant(2076, 11, 22, 12)),
            // One second later is more than 50 years ahead: the most recent past year with "76".
            ("Monday, 22-Nov-76 12:00:01 GMT", HTTPDateTests.instant(1976, 11, 22, 12, 0, 1)),
            ("Wednesday, 01-Dec-76 00:00:00 GMT", HTTPDateTests.instant(1976, 12, 1)),
            ("Friday, 31-Dec-99 23:59:59 GMT", HTTPDateTests.instant(1999, 12, 31, 23, 59, 59)),
            ("Saturday, 01-Jan-77 00:00:00 GMT", HTTPDateTests.instant(1977, 1, 1)),
        ])
    func twoDigitYears(text: String, date: Date) {
        #expect(HTTPDate.parse(text, now: HTTPDateTests.now) == date)
    }

    @Test("the two-digit year window moves with now")
    func twoDigitYearWindowMoves() {
        let in1999 = HTTPDateTests.instant(1999, 6, 1)
        #expect(HTTPDate.parse("Saturday, 01-Jan-05 00:00:00 GMT", now: in1999) == HTTPDateTests.instant(2005, 1, 1))
        #expect(HTTPDate.parse("Friday, 01-Jan-60 00:00:00 GMT", now: in1999) == HTTPDateTests.instant(1960, 1, 1))
        let in2090 = HTTPDateTests.instant(2090, 1, 1)
        #expect(HTTPDate.parse("Saturday, 01-Jan-95 00:00:00 GMT", now: in2090) == HTTPDateTests.instant(2095, 1, 1))
        #expect(HTTPDate.parse("Saturday, 01-Jan-50 00:00:00 GMT", now: in2090) == HTTPDateTests.instant(2050, 1, 1))
        #expect(HTTPDate.parse("Tuesday, 01-Jan-41 00:00:00 GMT", now: in2090) == HTTPDateTests.instant(2041, 1, 1))
        #expect(HTTPDate.parse("Thursday, 01-Jan-39 00:00:00 GMT", now: in2090) == HTTPDateTests.instant(2139, 1, 1))
    }

    @Test("29 February in a two-digit year is valid only when the resolved year is a leap year")
    func twoDigitLeapDay() {
        #expect(
            HTTPDate.parse("Tuesday, 29-Feb-00 00:00:00 GMT", now: HTTPDateTests.now)
                == HTTPDateTests.instant(2000, 2, 29))
        // In 2075, "00" resolves to 2100, which is not a leap year.
        let in2075 = HTTPDateTests.instant(2075, 6, 1)
        #expect(HTTPDate.parse("Monday, 29-Feb-00 00:00:00 GMT", now: in2075) == nil)
    }
}
