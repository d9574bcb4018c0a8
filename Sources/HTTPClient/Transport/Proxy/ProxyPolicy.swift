import Foundation
import HTTPCore

/// Which proxy, if any, a transport sends each request through: none, one proxy (with hosts
/// it bypasses), the proxy the environment names (read as curl reads it), or one chosen per
/// URL by a closure of yours (as OkHttp's `ProxySelector`).
///
/// A transport applies the policy it is given or refuses it when it is made, with
/// ``ClientError/Code/proxyUnsupported`` naming what it cannot do (see each transport's
/// documentation), as it does a ``TrustPolicy``: a proxy setting is never ignored. Both of
/// Heron's transports read the environment by default (``environment``), as curl, libcurl
/// (and so URLSession on Linux), Python's requests and Go do: a container or CI runner with
/// `HTTPS_PROXY` set works without code, and ``direct`` turns it off.
///
/// `Unix`-socket URLs (`http+unix://`) never go through a proxy.
///
/// ```swift
/// let proxy = Proxy(host: "127.0.0.1", port: 3128)
/// let policy = ProxyPolicy.through(proxy, bypass: "localhost, .internal.example")
/// print(try policy.proxy(for: URL(string: "https://example.com/")!) as Any)  // Optional(http://127.0.0.1:3128)
/// print(try policy.proxy(for: URL(string: "http://db.internal.example/")!) as Any)  // nil
/// ```
public struct ProxyPolicy: Sendable, CustomStringConvertible {
    /// How the proxy is chosen.
    enum Rule: Sendable {
        case direct
        case fixed(Proxy, ProxyBypass)
        case environment(ProxyEnvironment, ofProcess: Bool)
        case choosing(@Sendable (URL) throws -> Proxy?)
    }

    let rule: Rule

    /// Every request goes straight to its origin.
    public static let direct = ProxyPolicy(rule: .direct)

    /// Every request goes through `proxy`, but for hosts `bypass` matches.
    /// - Parameters:
    ///   - proxy: The proxy.
    ///   - bypass: Hosts reached directly (a `NO_PROXY` list); none by default.
    /// - Returns: The policy.
    public static func through(_ proxy: Proxy, bypass: ProxyBypass = .none) -> ProxyPolicy {
        ProxyPolicy(rule: .fixed(proxy, bypass))
    }

    /// The proxies the process's environment names when the policy is made, read as curl
    /// reads them: `http_proxy` (never `HTTP_PROXY`), `https_proxy` or `HTTPS_PROXY`,
    /// `all_proxy` or `ALL_PROXY`, and `no_proxy` or `NO_PROXY` for the hosts reached
    /// directly. The default of Heron's transports.
    public static var environment: ProxyPolicy {
        ProxyPolicy(rule: .environment(ProxyEnvironment(ProcessInfo.processInfo.environment), ofProcess: true))
    }

    /// The proxies `variables` name, read as ``environment`` reads the process's.
    /// - Parameter variables: Environment variables; those that are not proxy variables are
    ///   ignored.
    /// - Returns: The policy.
    public static func environment(_ variables: [String: String]) -> ProxyPolicy {
        ProxyPolicy(rule: .environment(ProxyEnvironment(variables), ofProcess: false))
    }

    /// The proxy `choose` returns for each request's URL (`nil`: straight to the origin). A
    /// ``ProxyBypass`` gives the closure `NO_PROXY`'s rules. An error it throws fails the
    /// request (a ``ClientError`` as it is, another as ``ClientError/Code/invalidRequest``).
    /// - Parameter choose: Called once per request sent, redirects included, on any thread.
    /// - Returns: The policy.
    public static func choosing(_ choose: @escaping @Sendable (URL) throws -> Proxy?) -> ProxyPolicy {
        ProxyPolicy(rule: .choosing(choose))
    }

    /// The proxy a request to `url` goes through, or `nil` for none.
    /// - Parameter url: The request's URL.
    /// - Returns: The proxy, checked (``Proxy/validate()``).
    /// - Throws: ``ClientError/Code/invalidRequest`` or ``ClientError/Code/proxyUnsupported``
    ///   for a proxy that cannot be used as written.
    public func proxy(for url: URL) throws(ClientError) -> Proxy? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        let chosen: Proxy?
        switch rule {
        case .direct:
            return nil
        case .fixed(let proxy, let bypass):
            chosen = bypass.matches(url) ? nil : proxy
        case .environment(let environment, _):
            chosen = try environment.proxy(for: url)
        case .choosing(let choose):
            do {
                chosen = try choose(url)
            } catch let error as ClientError {
                throw error
            } catch {
                throw ClientError(
                    .invalidRequest, "the proxy policy's closure failed for \(URLRedaction.display(url))",
                    underlying: error)
            }
        }
        try chosen?.validate()
        return chosen
    }

    /// The proxy of a ``through(_:bypass:)`` policy, which every request it does not bypass
    /// goes through, so that a transport can refuse it when made; `nil` for another policy.
    public var fixedProxy: Proxy? {
        guard case .fixed(let proxy, _) = rule else { return nil }
        return proxy
    }

    /// Whether no request ever goes through a proxy: ``direct``, or an environment that
    /// names none.
    public var isDirect: Bool {
        switch rule {
        case .direct: true
        case .environment(let environment, _): environment.variables.keys.allSatisfy { $0.lowercased() == "no_proxy" }
        case .fixed, .choosing: false
        }
    }

    /// The environment's proxy variables this policy reads, and whether they are the
    /// process's own; `nil` for a policy that does not read an environment.
    package var environmentVariables: (variables: [String: String], ofProcess: Bool)? {
        guard case .environment(let environment, let ofProcess) = rule else { return nil }
        return (environment.variables, ofProcess)
    }

    /// The variable the environment's choice for `url` comes from and its value, for a policy
    /// that reads an environment (the table of cases checked against curl).
    package func environmentVariable(for url: URL) -> (name: String, value: String)? {
        guard case .environment(let environment, _) = rule else { return nil }
        return environment.proxyVariable(for: url)
    }

    /// The variable `no_proxy` or `NO_PROXY` the environment's bypass list comes from.
    package var environmentBypassVariable: String? {
        guard case .environment(let environment, _) = rule else { return nil }
        return environment.bypass?.variable
    }

    /// `direct`, `through http://proxy:3128 (bypass: …)`, `environment (https_proxy=…)` or
    /// `choosing per URL`: never a proxy's credentials.
    public var description: String {
        switch rule {
        case .direct: "direct"
        case .fixed(let proxy, let bypass):
            bypass.list.isEmpty ? "through \(proxy)" : "through \(proxy) (bypass: \(bypass))"
        case .environment(let environment, _): "environment (\(environment.description))"
        case .choosing: "choosing per URL"
        }
    }
}
