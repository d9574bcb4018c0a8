import Foundation
import HTTPClient
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HeronProxyProbe [NAME=VALUE]... URL`: sends one `GET URL` with a ``Client`` on a
/// ``URLSessionTransport`` made with the process's environment as its proxy policy, after
/// clearing every proxy variable it inherited and setting each `NAME=VALUE` given, and prints
/// one JSON object: `status`, `body` (its first 4 KiB as text), `proxy` (the response's
/// ``ClientMetrics/proxy``), `proxiedEvents` (the ``ClientEvent/Kind/proxied(_:proxy:attempt:)``
/// events an observer saw), `attempts`, and on failure `error` (its code), `failures` (each
/// attempt's code), `description` and `reflecting`.
///
/// libcurl, under URLSession on Linux, reads its proxy settings from the process's environment
/// for each transfer, and tests run in parallel in one process: a test that set a variable
/// would send its neighbours' requests through its proxy. Each case runs here instead, in a
/// process of its own. Used by `URLSessionProxyTests` only, never shipped.
@main
enum ProxyProbe {
    /// Every variable libcurl or ``ProxyPolicy/environment`` reads, in both cases.
    static let proxyVariables = [
        "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
    ]

    /// Collects the `proxied` events.
    actor ProxiedEvents: ClientObserver {
        private(set) var proxies: [String] = []
        private(set) var finished = false

        func receive(_ event: ClientEvent) async {
            if case .proxied(_, let proxy, _) = event.kind { proxies.append(proxy.description) }
            if case .finished = event.kind { finished = true }
        }
    }

    /// Runs the probe with the process's arguments.
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let last = arguments.popLast(), let url = URL(string: last), url.scheme != nil else {
            FileHandle.standardError.write(Data("usage: HeronProxyProbe [NAME=VALUE]... URL\n".utf8))
            exit(2)
        }
        for name in proxyVariables { unsetenv(name) }
        for assignment in arguments {
            guard let equals = assignment.firstIndex(of: "=") else {
                FileHandle.standardError.write(Data("HeronProxyProbe: not NAME=VALUE: \(assignment)\n".utf8))
                exit(2)
            }
            setenv(String(assignment[..<equals]), String(assignment[assignment.index(after: equals)...]), 1)
        }
        var result: [String: Any] = [:]
        let observer = ProxiedEvents()
        do {
            let transport = try URLSessionTransport(proxy: .environment)
            let client = Client(transport: transport, observers: [observer], timeout: .seconds(20))
            let response = try await client.send(HTTPRequest(url: url))
            result["status"] = Int(response.status.code)
            result["body"] = String(decoding: response.body.prefix(4096), as: UTF8.self)
            result["proxy"] = response.metrics.proxy?.description ?? NSNull()
            result["metrics"] = response.metrics.description
            result["attempts"] = response.metrics.attempts.count
        } catch let error as ClientError {
            result["error"] = error.code.rawValue
            result["description"] = String(describing: error)
            result["reflecting"] = String(reflecting: error)
            result["attempts"] = error.attempts.count
            result["failures"] = error.attempts.map { $0.failure ?? "" }
        } catch {
            result["error"] = "other"
            result["description"] = String(describing: error)
        }
        // The observer's events arrive after the call; `finished` is the last.
        for _ in 0..<200 where await !observer.finished { try? await Task.sleep(for: .milliseconds(10)) }
        result["proxiedEvents"] = await observer.proxies
        do {
            let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
            FileHandle.standardOutput.write(json + Data("\n".utf8))
        } catch {
            FileHandle.standardError.write(Data("HeronProxyProbe: \(error)\n".utf8))
            exit(1)
        }
    }
}
