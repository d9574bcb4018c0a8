import Foundation
import HTTPCore
import Testing

@Suite("RetryAfter")
struct RetryAfterTests {
    /// Fri, 31 Dec 1999 23:59:59 GMT, the date of the RFC 9110 §10.2.3 example.
    static let exampleDate = Date(timeIntervalSince1970: 946_684_799)

    @Test("parses the RFC 9110 §10.2.3 delay-seconds example")
    func rfcSecondsExample() {
        #expect(RetryAfter(parsing: "120") == .seconds(120))
        #expect(RetryAfter(parsing: "120")?.delay(from: Date()) == 120)
    }

    @Test("parses the RFC 9110 §10.2.3 HTTP-date example")
    func rfcDateExample() {
        #expect(RetryAfter(parsing: "Fri, 31 Dec 1999 23:59:59 GMT") == .date(RetryAfterTests.exampleDate))
    }

    @Test(
        "parses every HTTP-date form",
        arguments: [
            "Fri, 31 Dec 1999 23:59:59 GMT",
            "Friday, 31-Dec-99 23:59:59 GMT",
            "Fri Dec 31 23:59:59 1999",
        ])
    func dateForms(text: String) {
        let now = Date(timeIntervalSince1970: 1_795_348_800)  // 2026-11-22
        #expect(RetryAfter(parsing: text, now: now) == .date(RetryAfterTests.exampleDate))
    }

    @Test("reads a two-digit year relative to the given now")
    func twoDigitYearUsesNow() {
        let in2060 = Date(timeIntervalSince1970: 2_840_140_800)  // 2060-01-01
        let in2099 = Date(timeIntervalSince1970: 4_102_444_799)  // 2099-12-31 23:59:59
        #expect(RetryAfter(parsing: "Thursday, 31-Dec-99 23:59:59 GMT", now: in2060) == .date(in2099))
        let in2026 = Date(timeIntervalSince1970: 1_795_348_800)
        #expect(
            RetryAfter(parsing: "Friday, 31-Dec-99 23:59:59 GMT", now: in2026) == .date(RetryAfterTests.exampleDate))
    }

    @Test(
        "parses delay-seconds, trimming surrounding whitespace",
        arguments: [("0", 0), ("1", 1), (" 30 ", 30), ("007", 7), ("86400", 86_400)])
    func seconds(text: String, seconds: Int) {
        #expect(RetryAfter(parsing: text) == .seconds(seconds))
    }

    @Test("a delay too long for Int saturates instead of failing")
    func saturates() {
        #expect(RetryAfter(parsing: "99999999999999999999999999") == .seconds(Int.max))
    }

    @Test(
        "rejects values that are neither delay-seconds nor an HTTP-date",
        arguments: ["", " ", "-1", "+5", "1.5", "120s", "1e3", "soon", "0x10", "12 0", "Fri, 31 Dec 1999", "١٢"])
    func rejects(text: String) {
        #expect(RetryAfter(parsing: text) == nil)
    }

    @Test("the delay of a date is its distance from now, never negative")
    func dateDelay() {
        let value = RetryAfter.date(RetryAfterTests.exampleDate)
        #expect(value.delay(from: RetryAfterTests.exampleDate.addingTimeInterval(-90)) == 90)
        #expect(value.delay(from: RetryAfterTests.exampleDate) == 0)
        #expect(value.delay(from: RetryAfterTests.exampleDate.addingTimeInterval(3600)) == 0)
    }

    @Test("the delay of seconds does not depend on now")
    func secondsDelay() {
        #expect(RetryAfter.seconds(5).delay(from: .distantPast) == 5)
        #expect(RetryAfter.seconds(5).delay(from: .distantFuture) == 5)
    }

    @Test("a negative number of seconds made directly waits zero")
    func negativeSecondsClamped() {
        #expect(RetryAfter.seconds(-5).delay(from: Date()) == 0)
    }

    @Test("reads the Retry-After field of a field list")
    func fromFields() throws {
        #expect(RetryAfter(try HTTPFields(["retry-after": "3"])) == .seconds(3))
        #expect(RetryAfter(try HTTPFields(["Content-Type": "text/plain"])) == nil)
        #expect(RetryAfter(try HTTPFields(["Retry-After": "later"])) == nil)
    }

    @Test("repeated Retry-After fields are used only when they agree")
    func repeatedFields() throws {
        let date = "Fri, 31 Dec 1999 23:59:59 GMT"
        #expect(
            RetryAfter(try HTTPFields(["Retry-After": date, "Retry-After": date])) == .date(RetryAfterTests.exampleDate)
        )
        #expect(RetryAfter(try HTTPFields(["Retry-After": "3", "Retry-After": "3"])) == .seconds(3))
        #expect(RetryAfter(try HTTPFields(["Retry-After": "3", "Retry-After": "4"])) == nil)
    }
}
