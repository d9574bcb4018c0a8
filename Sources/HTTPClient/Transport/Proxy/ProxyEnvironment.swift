import Foundation
import HTTPCore

/// The proxy variables of an environment, read as curl 7.88 reads them.
///
/// For a URL whose scheme is `s`: `no_proxy` (else `NO_PROXY`) first: a host it matches is
/// reached directly. Then `s_proxy` in lower case; for any scheme but `http` its upper-case
/// form when the lower-case one is not set (`HTTP_PROXY` never: a CGI server puts a request's
/// `Proxy:` field there, "httpoxy"); then `all_proxy`, else `ALL_PROXY`. A variable set to the
/// empty string counts as not set, as for curl.
struct ProxyEnvironment: Sendable, Hashable {
    /// The variables read, by name, with their values (only those set and not empty).
    let variables: [String: String]

    /// The names read; nothing else of the environment is kept.
    static let names = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]

    /// Keeps the proxy variables of `environment`.
    init(_ environment: [String: String]) {
        var kept: [String: String] = [:]
        for name in Self.names {
            if let value = environment[name], !value.isEmpty { kept[name] = value }
        }
        variables = kept
    }

    /// The `NO_PROXY` list in effect, and the variable it came from.
    var bypass: (list: ProxyBypass, variable: String)? {
        for name in ["no_proxy", "NO_PROXY"] {
            if let value = variables[name] { return (ProxyBypass(value), name) }
        }
        return nil
    }

    /// The variable naming the proxy for `url`, and its value; `nil` when none applies.
    func proxyVariable(for url: URL) -> (name: String, value: String)? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host(percentEncoded: false), !host.isEmpty
        else { return nil }
        if let bypass, bypass.list.matches(host: host, port: url.port ?? ProxyBypass.defaultPort(of: url)) {
            return nil
        }
        var candidates = ["\(scheme)_proxy"]
        if scheme != "http" { candidates.append("\(scheme.uppercased())_PROXY") }
        candidates += ["all_proxy", "ALL_PROXY"]
        for name in candidates {
            if let value = variables[name] { return (name, value) }
        }
        return nil
    }

    /// The proxy for `url`, if any.
    /// - Throws: As ``Proxy/init(url:)``, naming the variable.
    func proxy(for url: URL) throws(ClientError) -> Proxy? {
        guard let (name, value) = proxyVariable(for: url) else { return nil }
        do {
            return try Proxy(url: value)
        } catch {
            throw ClientError(error.code, "\(name): \(error.message)")
        }
    }

    /// The variables as `name=value`, sorted, each proxy's credentials redacted.
    var description: String {
        variables.keys.sorted().map { name in "\(name)=\(Proxy.redacting(variables[name] ?? ""))" }
            .joined(separator: ", ")
    }
}
