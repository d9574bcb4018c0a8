import Foundation
import HTTPCore
import TestSupport

@testable import HTTPCache
@testable import HTTPClient

/// Runs one test of the HTTP cache suite the way Tests/Conformance/http-cache/README.md
/// describes, through `Client` with a `CachingTransport`, against Tests/Servers/cache_origin.py.
///
/// The suite's 3-second pauses are not slept: the runner moves the cache's clock and the
/// origin's clock for the test 3 seconds ahead together (after any background revalidation
/// started before the pause has ended, as it would have in those 3 seconds), so every date,
/// age and freshness the cache computes is what it would be after a real pause.
struct ConformanceRunner: Sendable {
    let origin: URL
    let transport: URLSessionTransport

    /// A failed check: `setup` when the test marks it as preparation.
    struct CheckFailure: Error {
        let setup: Bool
        let message: String
    }

    static let serverNow = try! HTTPFieldName("Server-Now")

    /// The length of a pause after a request with `pause_after`.
    static let pause: Double = 3

    func run(_ test: ConformanceCase) async -> ConformanceResult {
        let id = UUID().uuidString.lowercased()
        let offset = Locked(0.0)
        var configuration = CacheConfiguration()
        configuration.clock = CacheClock { Date().addingTimeInterval(offset.withLock { $0 }) }
        // The opt-in offline window is on: a stale response may be served when the origin
        // cannot be reached (RFC 9111 §4.2.4 allows it when disconnected), which the suite's
        // `stale-close` check looks for.
        configuration.offlineWindow = .seconds(86_400)
        let cache = CachingTransport(wrapping: transport, configuration: configuration)
        let client = Client(transport: cache, retry: .none, timeout: .seconds(30))
        let plain = Client(transport: transport, retry: .none, timeout: .seconds(30))
        let requests = test.requests
        do {
            var objects: [Any] = []
            for request in requests {
                guard var object = request.jsonObject as? [String: Any] else { continue }
                object["id"] = test.id
                object["name"] = test.name
                objects.append(object)
            }
            let config = try JSONSerialization.data(withJSONObject: objects)
            let put = try await plain.send(
                HTTPRequest(
                    method: .put, url: origin.appendingPathComponent("config/\(id)"),
                    headerFields: try HTTPFields(["Content-Type": "application/json"]), body: HTTPBody(config)))
            guard put.status.code == 201 else { return .setupFailed("PUT config answered \(put.status)") }

            var responses: [ClientResponse<Data>] = []
            for (index, config) in requests.enumerated() {
                let number = index + 1
                let request = try makeRequest(config, number: number, test: test, id: id, previous: responses.last)
                var options = RequestOptions()
                if config["redirect"]?.string == "manual" { options.redirectLimit = 0 }
                if let mode = config["cache"]?.string { options.cachePolicy = Self.policy(forFetchMode: mode) }
                let response: ClientResponse<Data>
                do {
                    response = try await client.send(request, options: options)
                } catch {
                    return .failed("request \(number) failed: \(error)")
                }
                try checkResponse(response, config: config, number: number, id: id)
                responses.append(response)
                if config["pause_after"]?.bool == true {
                    await cache.backgroundRevalidationsFinished()
                    offset.withLock { $0 += Self.pause }
                    _ = try await plain.send(
                        HTTPRequest(
                            method: .post,
                            url: URL(string: "\(origin.absoluteString)/clock/\(id)?advance=\(Int(Self.pause))")!))
                }
            }
            await cache.backgroundRevalidationsFinished()
            let stateData = try await plain.send(.get("\(origin.absoluteString)/state/\(id)")).body
            let state = try JSONDecoder().decode([JSONValue].self, from: stateData)
            try checkServer(requests: requests, responses: responses, state: state)
            return .passed
        } catch let failure as CheckFailure {
            return failure.setup ? .setupFailed(failure.message) : .failed(failure.message)
        } catch {
            return .setupFailed("the runner failed: \(error)")
        }
    }

    /// The fetch cache mode of a request object as a ``CachePolicy``.
    static func policy(forFetchMode mode: String) -> CachePolicy {
        switch mode {
        case "no-cache": return .revalidate
        case "force-cache": return .cacheElseNetwork
        case "only-if-cached": return .cacheOnly
        default: return .reload  // "reload", "no-store"
        }
    }

    private func makeRequest(
        _ config: JSONValue, number: Int, test: ConformanceCase, id: String, previous: ClientResponse<Data>?
    ) throws -> HTTPRequest {
        var text = "\(origin.absoluteString)/test/\(id)"
        if let filename = config["filename"]?.string { text += "/\(filename)" }
        if let query = config["query_arg"]?.string { text += "?\(query)" }
        var request = HTTPRequest(
            method: try HTTPMethod(config["request_method"]?.string ?? "GET"), url: URL(string: text)!)
        for header in config["request_headers"]?.array ?? [] {
            guard let pair = header.array, pair.count >= 2, let name = pair[0].string else { continue }
            var value = pair[1].text
            if config["magic_ims"]?.bool == true, name.lowercased() == "if-modified-since",
                let delta = pair[1].number, let previous
            {
                value = Self.httpDate(serverNow: previous.headerFields[Self.serverNow], delta: delta, rfc850: false)
            }
            try request.headerFields.append(name: HTTPFieldName(name), value: value)
        }
        try request.headerFields.append(name: HTTPFieldName("Test-ID"), value: test.id)
        try request.headerFields.append(name: HTTPFieldName("Req-Num"), value: String(number))
        if let body = config["request_body"]?.string { request.body = HTTPBody(body) }
        return request
    }

    /// An HTTP-date `delta` seconds after the origin's `Server-Now` (milliseconds).
    static func httpDate(serverNow: String?, delta: Double, rfc850: Bool) -> String {
        let now = (serverNow.flatMap(Double.init) ?? 0) / 1000
        let date = Date(timeIntervalSince1970: (now + delta).rounded(.down))
        guard rfc850 else { return HTTPDate.format(date) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEEE, dd-MMM-yy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    private static func isSetup(_ config: JSONValue, _ member: String) -> Bool {
        config["setup"]?.bool == true || (config["setup_tests"]?.array ?? []).contains(.string(member))
    }

    private static func check(_ setup: Bool, _ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw CheckFailure(setup: setup, message: message()) }
    }

    /// The checks on one response (README "How one test runs", step 5).
    private func checkResponse(_ response: ClientResponse<Data>, config: JSONValue, number: Int, id: String) throws {
        let fields = response.headerFields
        let serverCount = fields[try HTTPFieldName("Server-Request-Count")].flatMap { Int($0) }
        if let numbers = fields[try HTTPFieldName("Request-Numbers")] {
            let list = numbers.split(separator: " ").map(String.init)
            try Self.check(false, Set(list).count == list.count, "request \(number) was retried: \(numbers)")
        }
        if let type = config["expected_type"]?.string {
            let setup = Self.isSetup(config, "expected_type")
            if type == "cached" && !(response.status.code == 304 && serverCount == nil) {
                try Self.check(
                    setup, (serverCount ?? Int.max) < number, "response \(number) does not come from the cache")
            }
            if type == "not_cached" {
                try Self.check(setup, serverCount == number, "response \(number) comes from the cache")
            }
        }
        let code = response.status.code
        if let expected = config["expected_status"] {
            // `null` expects no particular status (the suite's own runner compares the status
            // with null, which no response equals); the test's other checks still apply.
            if let status = expected.number {
                try Self.check(
                    Self.isSetup(config, "expected_status"), code == Int(status),
                    "response \(number) status is \(code), not \(Int(status))")
            }
        } else if let status = config["response_status"]?.array?.first?.number {
            try Self.check(true, code == Int(status), "response \(number) status is \(code), not \(Int(status))")
        } else if code == 999 {
            try Self.check(
                Self.isSetup(config, "expected_type"), false, "request \(number) should have been conditional")
        } else {
            try Self.check(true, code == 200, "response \(number) status is \(code), not 200")
        }
        if let expectedHeaders = config["expected_response_headers"]?.array {
            let setup = Self.isSetup(config, "expected_response_headers")
            for header in expectedHeaders {
                if let name = header.string {
                    try Self.check(setup, fields[try HTTPFieldName(name)] != nil, "response \(number) lacks \(name)")
                    continue
                }
                guard let parts = header.array, let name = parts.first?.string else { continue }
                let value = fields[try HTTPFieldName(name)]
                if parts.count > 2 {
                    try Self.check(setup, value != nil, "response \(number) lacks \(name)")
                    if parts[1].string == "=" {
                        let other = fields[try HTTPFieldName(parts[2].text)]
                        try Self.check(
                            setup, value == other, "response \(number) \(name) is \(value ?? "-"), not \(other ?? "-")")
                    } else {
                        let bound = parts[2].number ?? 0
                        let number = value.flatMap { Double($0.prefix(while: \.isNumber)) } ?? -Double.infinity
                        try Self.check(setup, number > bound, "response \(name) is \(value ?? "-"), not above \(bound)")
                    }
                } else {
                    let expected = Self.fixup(name: name, value: parts[1], fields: fields, config: config)
                    try Self.check(
                        setup, value == expected, "response \(number) \(name) is \(value ?? "absent"), not \(expected)")
                }
            }
        }
        if let missing = config["expected_response_headers_missing"]?.array {
            let setup = Self.isSetup(config, "expected_response_headers_missing")
            for header in missing {
                if let name = header.string {
                    let value = fields[try HTTPFieldName(name)]
                    try Self.check(setup, value == nil, "response \(number) has \(name): \(value ?? "")")
                } else if let parts = header.array, parts.count == 2, let name = parts[0].string,
                    let unwanted = parts[1].string
                {
                    let value = fields[try HTTPFieldName(name)] ?? ""
                    try Self.check(setup, !value.contains(unwanted), "response \(number) \(name) still has \(unwanted)")
                }
            }
        }
        // The body.
        if config["check_body"]?.bool == false { return }
        let body = String(decoding: response.body, as: UTF8.self)
        if let expected = config["expected_response_text"] {
            if let text = expected.string {
                try Self.check(
                    Self.isSetup(config, "expected_response_text"), body == text, "body is \(body), not \(text)")
            }
        } else if let text = config["response_body"]?.string {
            try Self.check(true, body == text, "body is \(body), not \(text)")
        } else if code != 204 && code != 304 && config["request_method"]?.string != "HEAD" {
            try Self.check(true, body == id, "body is \(body), not the test id")
        }
    }

    /// The expected value of a header: a number for a date field is that many seconds after
    /// the response's `Server-Now`; a location with `magic_locations` is made absolute.
    private static func fixup(name: String, value: JSONValue, fields: HTTPFields, config: JSONValue) -> String {
        let lowered = name.lowercased()
        if ["date", "expires", "last-modified", "if-modified-since", "if-unmodified-since"].contains(lowered),
            let delta = value.number
        {
            let rfc850 = (config["rfc850date"]?.array ?? []).contains { $0.string?.lowercased() == lowered }
            return httpDate(serverNow: fields[Self.serverNow], delta: delta, rfc850: rfc850)
        }
        return value.text
    }

    /// The checks on what the origin saw (README step 5, the origin's record).
    private func checkServer(requests: [JSONValue], responses: [ClientResponse<Data>], state: [JSONValue]) throws {
        var seen = 0
        for (index, config) in requests.enumerated() {
            let number = index + 1
            let setup = Self.isSetup(config, "expected_type")
            let record: JSONValue? = seen < state.count ? state[seen] : nil
            var validators: [String] = []
            switch config["expected_type"]?.string {
            case "cached": continue
            case "not_cached":
                let seenNumber = record?["request_num"]?.number.map { Int($0) }
                try Self.check(setup, seenNumber == number, "response \(number) comes from the cache")
            case "etag_validated": validators.append("if-none-match")
            case "lm_validated": validators.append("if-modified-since")
            default: break
            }
            seen += 1
            for field in validators {
                try Self.check(setup, record != nil, "request \(number) was not sent to the origin")
                try Self.check(setup, record?["request_headers"]?[field] != nil, "request \(number) lacks \(field)")
            }
            if let expected = config["expected_request_headers"]?.array {
                let setup = Self.isSetup(config, "expected_request_headers")
                for header in expected {
                    if let name = header.string {
                        try Self.check(
                            setup, record?["request_headers"]?[name.lowercased()] != nil,
                            "request \(number) lacks \(name)")
                    } else if let parts = header.array, parts.count == 2, let name = parts[0].string {
                        let value = record?["request_headers"]?[name.lowercased()]?.string
                        try Self.check(
                            setup, value == parts[1].text,
                            "request \(number) \(name) is \(value ?? "absent"), not \(parts[1].text)")
                    }
                }
            }
            if let missing = config["expected_request_headers_missing"]?.array {
                let setup = Self.isSetup(config, "expected_request_headers_missing")
                for header in missing {
                    if let name = header.string {
                        try Self.check(
                            setup, record?["request_headers"]?[name.lowercased()] == nil,
                            "request \(number) has \(name)")
                    } else if let parts = header.array, parts.count == 2, let name = parts[0].string {
                        let value = record?["request_headers"]?[name.lowercased()]?.string
                        try Self.check(setup, value != parts[1].text, "request \(number) \(name) is \(value ?? "")")
                    }
                }
            }
            if let record, let sent = record["response_headers"]?.array, index < responses.count {
                let fields = responses[index].headerFields
                for header in sent {
                    guard let parts = header.array, parts.count == 2, let name = parts[0].string,
                        name.lowercased() != "date"
                    else { continue }
                    let received = fields[try HTTPFieldName(name)]
                    try Self.check(
                        true, received == parts[1].text,
                        "response \(number) \(name) is \(received ?? "absent"), not \(parts[1].text)")
                }
            }
            if let method = config["expected_method"]?.string {
                try Self.check(
                    Self.isSetup(config, "expected_method"), record?["request_method"]?.string == method,
                    "request \(number) method is not \(method)")
            }
        }
    }
}
