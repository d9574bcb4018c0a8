import Foundation
import TestSupport
import Testing

@testable import HTTPClient

/// The table of `Tests/Fixtures/proxy-environment-cases.json` (an environment and a URL a
/// case) read by `ProxyPolicy.environment(_:)` and by curl itself under the same environment
/// (`Tests/Servers/curl_proxy_choice.py` runs the machine's curl and reports where it
/// connected): both must pick the same proxy, or both none, from the same variable.
///
/// One difference is Heron's on purpose, recognised by its cause, never by a case's name: a
/// `NO_PROXY` entry curl 7.88 never matches bypasses the proxy in Heron as its author meant:
/// one with a port (for that port), and an IPv6 address in brackets or a range (curl compares
/// an IPv6 host as a name).
@Suite("Proxy environment variables, read as curl reads them")
struct ProxyEnvironmentCurlTests {
    /// One row of the table.
    struct Case: Decodable {
        let name: String
        let env: [String: String]
        let url: String
    }

    /// What curl did for one row.
    struct CurlChoice: Decodable {
        struct Choice: Decodable {
            let proxy: String?
            let variable: String?
            // swift-format-ignore: AlwaysUseLowerCamelCase
            let no_proxy_variable: String?
        }
        let name: String
        let curl: Choice
    }

    /// Heron's choice for a row, written as the harness writes curl's.
    enum Outcome: Equatable, CustomStringConvertible {
        case direct
        case proxy(String)
        case refused(ClientError.Code)

        var description: String {
            switch self {
            case .direct: "direct"
            case .proxy(let proxy): proxy
            case .refused(let code): "refused (\(code))"
            }
        }
    }

    static func heron(_ variables: [String: String], _ url: URL) -> Outcome {
        do {
            return try ProxyPolicy.environment(variables).proxy(for: url).map { .proxy($0.description) } ?? .direct
        } catch {
            return .refused(error.code)
        }
    }

    /// curl's proxy as Heron names it: `socks5h` is Heron's `socks5` (the proxy resolves names).
    static func normalised(_ curl: String?) -> Outcome {
        guard let curl else { return .direct }
        if curl.hasPrefix("socks5h://") { return .proxy("socks5://" + curl.dropFirst("socks5h://".count)) }
        return .proxy(curl)
    }

    /// The environment without the `NO_PROXY` entries curl 7.88 never matches and Heron
    /// does: an entry with a port (`example.com:8080`, `[::1]:8080`), and an IPv6 address in
    /// brackets or with a prefix length (`[::1]`, `::1/128`), since curl compares an IPv6
    /// host with the entries as a name, character for character.
    static func withoutEntriesCurlNeverMatches(_ variables: [String: String]) -> [String: String] {
        var variables = variables
        for name in ["no_proxy", "NO_PROXY"] {
            guard let list = variables[name] else { continue }
            let kept = list.split(whereSeparator: { $0 == "," || $0 == " " }).filter { entry in
                let colons = entry.filter { $0 == ":" }.count
                if entry.hasPrefix("[") { return false }
                if colons == 1 { return false }  // name:port or v4:port
                if colons > 1, entry.contains("/") { return false }  // an IPv6 range
                return true
            }
            variables[name] = kept.joined(separator: ",")
        }
        return variables
    }

    @Test("every case of the table: Heron picks the proxy curl picks, from the same variable", .timeLimit(.minutes(2)))
    func againstCurl() async throws {
        let root = SnippetSource.packageRoot
        let table = root.appending(path: "Tests/Fixtures/proxy-environment-cases.json")
        let cases = try JSONDecoder().decode([Case].self, from: Data(contentsOf: table))
        #expect(cases.count >= 30)
        let python = ProcessInfo.processInfo.environment["HERON_PYTHON"] ?? "/usr/bin/python3"
        let output = try await ExternalProcess.run(
            python, [root.appending(path: "Tests/Servers/curl_proxy_choice.py").path, table.path])
        try #require(
            output.status == 0, "the curl harness failed: \(String(decoding: output.standardError, as: UTF8.self))")
        let choices = try JSONDecoder().decode([CurlChoice].self, from: output.standardOutput)
        let curlByName = Dictionary(choices.map { ($0.name, $0.curl) }, uniquingKeysWith: { first, _ in first })
        var agreed = 0
        var entriesCurlNeverMatches = 0
        for row in cases {
            let url = try #require(URL(string: row.url), "\(row.name)")
            let curl = try #require(curlByName[row.name], "curl reported nothing for \(row.name)")
            let expected = Self.normalised(curl.proxy)
            let heron = Self.heron(row.env, url)
            // The same NO_PROXY variable (curl names the one it reads).
            let bypassVariable = ProxyPolicy.environment(row.env).environmentBypassVariable
            #expect(
                bypassVariable == curl.no_proxy_variable, "\(row.name): curl read \(curl.no_proxy_variable ?? "none")")
            if heron == expected {
                agreed += 1
                // The same variable, when curl names one for its proxy.
                if case .proxy = heron, let variable = curl.variable {
                    let ours = ProxyPolicy.environment(row.env).environmentVariable(for: url)?.name
                    #expect(ours == variable, "\(row.name): curl read \(variable), Heron \(ours ?? "none")")
                }
                continue
            }
            if heron == .direct, Self.heron(Self.withoutEntriesCurlNeverMatches(row.env), url) == expected {
                entriesCurlNeverMatches += 1
                continue
            }
            Issue.record("\(row.name): curl \(expected), Heron \(heron) (env \(row.env), \(row.url))")
        }
        #expect(agreed >= cases.count - 4, "\(agreed) of \(cases.count) agree")
        #expect(agreed + entriesCurlNeverMatches == cases.count)
        print(
            "proxy environment table: \(cases.count) cases, \(agreed) as curl, \(entriesCurlNeverMatches) bypassed "
                + "by an entry curl 7.88 never matches")
    }
}
