import Foundation
import HTTPEncoding
import Testing

/// Key, date and data strategies inside forms, at the top level and nested, both ways.
@Suite("Form strategies")
struct FormStrategyTests {
    struct Account: Codable, Equatable {
        struct HomeAddress: Codable, Equatable { var zipCode: String }

        var userID: Int
        var homeAddress: HomeAddress
        var extraFields: [String: String]
    }

    static let account = Account(userID: 7, homeAddress: .init(zipCode: "75001"), extraFields: ["favoriteColor": "red"])

    @Test(
        "key strategies convert coding keys and dictionary keys at every level",
        arguments: [
            (KeyEncodingStrategy.useDefaultKeys, "extraFields[favoriteColor]=red&homeAddress[zipCode]=75001&userID=7"),
            (.convertToSnakeCase, "extra_fields[favorite_color]=red&home_address[zip_code]=75001&user_id=7"),
            (.convertToKebabCase, "extra-fields[favorite-color]=red&home-address[zip-code]=75001&user-id=7"),
            (.custom { $0.uppercased() }, "EXTRAFIELDS[FAVORITECOLOR]=red&HOMEADDRESS[ZIPCODE]=75001&USERID=7"),
        ])
    func keyStrategies(strategy: KeyEncodingStrategy, expected: String) throws {
        let encoder = FormEncoder(style: FormStyle(brackets: .literal), keyEncodingStrategy: strategy)
        #expect(try encoder.encodeQuery(Self.account) == expected)
    }

    @Test("a decoder given the same key strategy reads the converted keys back")
    func keyStrategyRoundTrip() throws {
        let encoder = FormEncoder(keyEncodingStrategy: .convertToSnakeCase)
        let query = try encoder.encodeQuery(Self.account)
        let decoded = try FormDecoder(keyEncodingStrategy: .convertToSnakeCase).decode(Account.self, from: query)
        // Dictionary keys come back as written on the wire, since a conversion cannot be undone.
        #expect(decoded.userID == 7)
        #expect(decoded.homeAddress == Self.account.homeAddress)
        #expect(decoded.extraFields == ["favorite_color": "red"])
    }

    struct Event: Codable, Equatable {
        var at: Date
        var log: [Date]
    }

    static let event = Event(at: Date(timeIntervalSince1970: 1_700_000_000), log: [Date(timeIntervalSince1970: 0)])

    @Test(
        "date strategies apply to top-level and nested dates",
        arguments: [
            (DateEncodingStrategy.iso8601, "at=2023-11-14T22%3A13%3A20Z&log[]=1970-01-01T00%3A00%3A00Z"),
            (.secondsSince1970, "at=1700000000&log[]=0"),
            (.millisecondsSince1970, "at=1700000000000&log[]=0"),
            (.custom { "day-\(Int($0.timeIntervalSince1970 / 86_400))" }, "at=day-19675&log[]=day-0"),
        ])
    func dateStrategies(strategy: DateEncodingStrategy, expected: String) throws {
        let encoder = FormEncoder(style: FormStyle(brackets: .literal), dateEncodingStrategy: strategy)
        #expect(try encoder.encodeQuery(Self.event) == expected)
    }

    @Test(
        "date decoding strategies invert the encoding ones",
        arguments: [
            (DateEncodingStrategy.iso8601, DateDecodingStrategy.iso8601), (.secondsSince1970, .secondsSince1970),
            (.millisecondsSince1970, .millisecondsSince1970),
        ])
    func dateRoundTrip(encoding: DateEncodingStrategy, decoding: DateDecodingStrategy) throws {
        let query = try FormEncoder(dateEncodingStrategy: encoding).encodeQuery(Self.event)
        #expect(try FormDecoder(dateDecodingStrategy: decoding).decode(Event.self, from: query) == Self.event)
    }

    @Test("a formatted date strategy uses the formatter both ways")
    func formattedDates() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let event = Event(at: Date(timeIntervalSince1970: 1_699_999_980), log: [])
        let query = try FormEncoder(dateEncodingStrategy: .formatted(formatter)).encodeQuery(event)
        #expect(query == "at=2023-11-14%2022%3A13")
        #expect(try FormDecoder(dateDecodingStrategy: .formatted(formatter)).decode(Event.self, from: query) == event)
    }

    @Test("a date strategy that throws reports the key path of the date")
    func dateStrategyThrows() {
        struct Refused: Error {}
        let encoder = FormEncoder(dateEncodingStrategy: .custom { _ in throw Refused() })
        let error = #expect(throws: HTTPEncodingError.self) { try encoder.encodeQuery(Self.event) }
        #expect(error?.code == .strategyFailed)
        #expect(error?.keyPath.first == "at" || error?.keyPath == ["log", "0"])
        #expect(error?.underlying is Refused)
    }

    struct Blob: Codable, Equatable {
        var payload: Data
        var parts: [Data]
    }

    @Test("data is base64 by default with its + / = percent-encoded, and round-trips")
    func base64Data() throws {
        let blob = Blob(payload: Data([0xFB, 0xFF]), parts: [Data("hi".utf8)])
        let query = try FormEncoder(style: FormStyle(brackets: .literal)).encodeQuery(blob)
        #expect(query == "parts[]=aGk%3D&payload=%2B%2F8%3D")
        #expect(try FormDecoder().decode(Blob.self, from: query) == blob)
    }

    @Test("a custom data strategy is used both ways")
    func customData() throws {
        let blob = Blob(payload: Data([0xCA, 0xFE]), parts: [])
        let hex = DataEncodingStrategy.custom { $0.map { String(format: "%02x", $0) }.joined() }
        let unhex = DataDecodingStrategy.custom { text in
            Data(
                stride(from: 0, to: text.count, by: 2).map { offset in
                    let start = text.index(text.startIndex, offsetBy: offset)
                    return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16) ?? 0
                })
        }
        let query = try FormEncoder(dataEncodingStrategy: hex).encodeQuery(blob)
        #expect(query == "payload=cafe")
        #expect(try FormDecoder(dataDecodingStrategy: unhex).decode(Blob.self, from: query) == blob)
    }

    @Test("a value that is not base64 fails naming its key")
    func badBase64() {
        let error = #expect(throws: HTTPEncodingError.self) {
            try FormDecoder().decode(Blob.self, from: "payload=%%%")
        }
        #expect(error?.code == .typeMismatch)
        #expect(error?.keyPath == ["payload"])
    }
}
