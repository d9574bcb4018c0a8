import Foundation
import HTTPEncoding
import Testing

@Suite("Date and data strategies")
struct DateStrategyTests {
    private static let instant = Date(timeIntervalSince1970: 1_700_000_000)

    @Test(
        "iso8601 writes UTC with whole seconds",
        arguments: [
            (0.0, "1970-01-01T00:00:00Z"), (1_700_000_000.0, "2023-11-14T22:13:20Z"),
            (1_700_000_000.999, "2023-11-14T22:13:20Z"), (-1.5, "1969-12-31T23:59:58Z"),
            (951_782_400.0, "2000-02-29T00:00:00Z"), (253_402_300_799.0, "9999-12-31T23:59:59Z"),
        ])
    func iso8601(seconds: Double, expected: String) throws {
        #expect(try DateEncodingStrategy.iso8601.encode(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test("iso8601WithFractionalSeconds writes milliseconds")
    func fractional() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        #expect(try DateEncodingStrategy.iso8601WithFractionalSeconds.encode(date) == "2023-11-14T22:13:20.123Z")
    }

    @Test("epoch strategies write integers for whole values")
    func epochs() throws {
        #expect(try DateEncodingStrategy.secondsSince1970.encode(Self.instant) == "1700000000")
        #expect(try DateEncodingStrategy.secondsSince1970.encode(Date(timeIntervalSince1970: 1.5)) == "1.5")
        #expect(try DateEncodingStrategy.millisecondsSince1970.encode(Self.instant) == "1700000000000")
    }

    @Test("formatted uses the formatter")
    func formatted() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy/MM/dd"
        #expect(try DateEncodingStrategy.formatted(formatter).encode(Self.instant) == "2023/11/14")
        #expect(
            try DateDecodingStrategy.formatted(formatter).decode("2023/11/14")
                == Date(timeIntervalSince1970: 1_699_920_000))
    }

    @Test("a throwing custom strategy becomes strategyFailed")
    func customThrows() {
        struct Refused: Error {}
        let error = #expect(throws: HTTPEncodingError.self) {
            try DateEncodingStrategy.custom { _ in throw Refused() }.encode(Self.instant)
        }
        #expect(error?.code == .strategyFailed)
        #expect(error?.underlying is Refused)
    }

    @Test(
        "iso8601 decoding reads fractions and offsets",
        arguments: [
            ("2023-11-14T22:13:20Z", 1_700_000_000.0), ("2023-11-14T22:13:20.5Z", 1_700_000_000.5),
            ("2023-11-15T00:13:20+02:00", 1_700_000_000.0), ("2023-11-14t22:13:20z", 1_700_000_000.0),
        ])
    func iso8601Decoding(text: String, seconds: Double) throws {
        #expect(try DateDecodingStrategy.iso8601.decode(text).timeIntervalSince1970 == seconds)
    }

    @Test(
        "iso8601 decoding rejects malformed dates",
        arguments: [
            "2023-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2023-11-14 22:13", "yesterday", "", "2023-11-14T22:13:20",
        ])
    func iso8601Rejects(text: String) {
        let error = #expect(throws: HTTPEncodingError.self) { try DateDecodingStrategy.iso8601.decode(text) }
        #expect(error?.code == .typeMismatch)
        #expect(error?.value == text)
    }

    @Test("dates round-trip through every built-in strategy pair")
    func roundTrip() throws {
        let pairs: [(DateEncodingStrategy, DateDecodingStrategy)] = [
            (.iso8601, .iso8601), (.iso8601WithFractionalSeconds, .iso8601), (.secondsSince1970, .secondsSince1970),
            (.millisecondsSince1970, .millisecondsSince1970),
        ]
        for (encoding, decoding) in pairs {
            #expect(try decoding.decode(encoding.encode(Self.instant)) == Self.instant)
        }
    }

    @Test("data strategies round-trip base64 and custom")
    func dataStrategies() throws {
        let bytes = Data([0, 1, 0xFE, 0xFF])
        #expect(try DataEncodingStrategy.base64.encode(bytes) == "AAH+/w==")
        #expect(try DataDecodingStrategy.base64.decode("AAH+/w==") == bytes)
        let hex = DataEncodingStrategy.custom { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(try hex.encode(bytes) == "0001feff")
        let error = #expect(throws: HTTPEncodingError.self) { try DataDecodingStrategy.base64.decode("not base64!") }
        #expect(error?.code == .typeMismatch)
    }
}
