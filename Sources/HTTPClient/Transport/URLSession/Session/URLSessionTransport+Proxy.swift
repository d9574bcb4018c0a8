import Foundation
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Fails when URLSession on this platform cannot apply `proxy`.
    ///
    /// On Linux, swift-corelibs-foundation hands libcurl no proxy setting (its `EasyHandle`
    /// leaves `CURLOPT_PROXY` and the rest to a TODO, and `connectionProxyDictionary` is read
    /// by nothing), and libcurl reads the process's environment for every transfer: the
    /// process's ``ProxyPolicy/environment`` is what is applied, and ``ProxyPolicy/direct``
    /// only while that environment names no proxy. On Apple platforms the session's
    /// `connectionProxyDictionary` is set from the policy (``proxyDictionary(for:)``), which
    /// holds no credentials and no per-URL choice.
    static func checkApplicable(_ proxy: ProxyPolicy) throws(ClientError) {
        #if canImport(FoundationNetworking)
        let environment = ProxyPolicy.environment
        if let (_, ofProcess) = proxy.environmentVariables, ofProcess { return }
        if proxy.isDirect, environment.isDirect { return }
        throw ClientError(
            .proxyUnsupported,
            "URLSessionTransport cannot apply the proxy policy \(proxy) on Linux: swift-corelibs-foundation hands "
                + "libcurl no proxy setting, and libcurl reads the process's environment (now: \(environment)); use "
                + "AsyncHTTPClientTransport for a proxy of your own")
        #else
        _ = try proxyDictionary(for: proxy)
        #endif
    }

    /// The proxy a request to `request`'s URL goes through, as the policy this transport
    /// reports chooses it; `nil` for none, or when the transport does not know (URLSession on
    /// Apple platforms made without a policy follows the system's settings).
    ///
    /// On Linux the choice is libcurl's, which reads the environment as the policy does, but
    /// for a `NO_PROXY` entry with a port: curl 7.88 never matches one, and a request such an
    /// entry alone keeps from the proxy fails here rather than go through the proxy unreported.
    /// - Throws: The policy's error for a proxy Heron does not speak to (an `https://` or
    ///   `socks4://` proxy in `https_proxy`, say: libcurl would use it, but no ``Proxy`` can
    ///   name it, and AsyncHTTPClientTransport cannot use it), with the request.
    func proxy(for request: HTTPRequest) throws(ClientError) -> Proxy? {
        guard let policy = reportedProxies else { return nil }
        do throws(ClientError) {
            let chosen = try policy.proxy(for: request.url)
            #if canImport(FoundationNetworking)
            if chosen == nil, let ignored = Self.portEntryLibcurlIgnores(policy, request.url) {
                throw ClientError(
                    .proxyUnsupported,
                    "the NO_PROXY entry for \(URLRedaction.display(request.url))'s port is one libcurl 7.88 ignores: "
                        + "URLSession on Linux would send the request through \(ignored); list the host without a "
                        + "port, or use AsyncHTTPClientTransport")
            }
            #endif
            return chosen
        } catch {
            throw ClientError(error.code, error.message, request: request, underlying: error.underlying)
        }
    }

    /// The proxy variable (`name=value`, credentials redacted) libcurl would use for `url`,
    /// when `policy`'s environment sends it straight to the origin only because of a
    /// `NO_PROXY` entry with a port, which curl 7.88 never matches.
    static func portEntryLibcurlIgnores(_ policy: ProxyPolicy, _ url: URL) -> String? {
        guard case .environment(let environment, _) = policy.rule, let (bypass, _) = environment.bypass,
            let host = url.host(percentEncoded: false)
        else { return nil }
        let port = url.port ?? ProxyBypass.defaultPort(of: url)
        guard bypass.matches(host: host, port: port), !bypass.ignoringPortEntries.matches(host: host, port: port)
        else { return nil }
        let proxies = ProxyEnvironment(environment.variables.filter { $0.key.lowercased() != "no_proxy" })
        guard let (name, value) = proxies.proxyVariable(for: url) else { return nil }
        return "\(name)=\(Proxy.redacting(value))"
    }

    /// Why a request through `proxy` failed, when `error` is libcurl's report of the proxy's
    /// failure, else `nil`.
    ///
    /// libcurl 7.88's texts, which reach URLSession on Linux as the error's description (an
    /// unknown error, -1, but for a refused connection): "CONNECT tunnel failed, response 403"
    /// (older versions: "Received HTTP code 403 from proxy after CONNECT") for a tunnel the
    /// proxy refused; a `407`, or a `401` (tinyproxy 1.11 answers a wrong password so), there
    /// is the proxy's refusal of the credentials. SOCKS5: "No authentication method was
    /// acceptable." (the proxy wants credentials the URL lacks), "User was rejected by the
    /// SOCKS5 server (1 2)." (wrong ones), "Can't complete SOCKS5 connection to 127.0.0.1. (5)"
    /// (the proxy could not reach the origin; the number is RFC 1928 §6's reply). "Could not
    /// resolve proxy: name" and "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't
    /// connect to server" name the proxy's host, as every connection a proxied transfer opens
    /// goes to the proxy: the proxy could not be reached, ``ClientError/Code/proxyConnectFailed``
    /// as AsyncHTTPClientTransport reports it (retried as a connection failure: nothing reached
    /// the origin).
    static func proxyFailure(_ error: URLError, proxy: Proxy) -> (ClientError.Code, String)? {
        let reason = (error as NSError).localizedDescription
        if let status = connectStatus(in: reason) {
            if status == 407 || status == 401 {
                let credentials = proxy.credentials == nil ? "without credentials" : "with the credentials given"
                return (
                    .proxyAuthenticationFailed,
                    "the proxy \(proxy) refused the tunnel \(credentials): it answered CONNECT with \(status)"
                )
            }
            return (.proxyConnectFailed, "the proxy \(proxy) refused the tunnel: it answered CONNECT with \(status)")
        }
        if reason.contains("SOCKS") || reason == "No authentication method was acceptable." {
            let lowered = reason.lowercased()
            if lowered.contains("authentication") || lowered.contains("rejected") || lowered.contains("password") {
                let what = proxy.credentials == nil ? "asked for credentials" : "refused the credentials given"
                return (.proxyAuthenticationFailed, "the SOCKS proxy \(proxy) \(what) (\(reason))")
            }
            return (.proxyConnectFailed, "the SOCKS proxy \(proxy) opened no connection to the origin (\(reason))")
        }
        if reason.hasPrefix("Proxy CONNECT aborted") {
            return (.proxyConnectFailed, "the proxy \(proxy) closed the connection before the tunnel opened")
        }
        if reason.hasPrefix("Could not resolve proxy") {
            return (.proxyConnectFailed, "the proxy \(proxy)'s host name could not be resolved")
        }
        if error.code == .cannotConnectToHost || error.code == .timedOut && reason.hasPrefix("Failed to connect") {
            return (.proxyConnectFailed, "no connection to the proxy \(proxy) could be made")
        }
        return nil
    }

    /// The error for libcurl's report of the proxy's failure (see ``proxyFailure(_:proxy:)``),
    /// without a response: the head URLSession on Linux may have seen is the proxy's answer
    /// to `CONNECT` (libcurl passes its lines on as if they began the response), not the
    /// origin's.
    static func proxyError(_ error: URLError, request: HTTPRequest, proxy: Proxy) -> ClientError? {
        guard let (code, what) = proxyFailure(error, proxy: proxy) else { return nil }
        return ClientError(code, "\(what) (URLError \(error.code.rawValue))", request: request, underlying: error)
    }

    /// The proxy's status in libcurl's report of a failed `CONNECT`.
    private static func connectStatus(in reason: String) -> Int? {
        for (before, after) in [
            ("CONNECT tunnel failed, response ", ""), ("Received HTTP code ", " from proxy after CONNECT"),
        ] {
            guard let start = reason.range(of: before), after.isEmpty || reason.contains(after) else { continue }
            let digits = reason[start.upperBound...].prefix(while: \.isNumber)
            if let status = Int(digits) { return status }
        }
        return nil
    }

    /// The error for a response the proxy itself gave: `407 Proxy Authentication Required`
    /// is the proxy's (RFC 9110 §15.5.8), never the origin's.
    static func proxyRefused(_ response: HTTPResponse, through proxy: Proxy, request: HTTPRequest) -> ClientError {
        let credentials = proxy.credentials == nil ? "without credentials" : "with the credentials given"
        return ClientError(
            .proxyAuthenticationFailed,
            "the proxy \(proxy) asked for credentials (407) and the request went \(credentials)", request: request,
            response: response)
    }

    /// The `connectionProxyDictionary` that makes URLSession on Apple platforms apply `policy`.
    ///
    /// CFNetwork's keys: `HTTPEnable`, `HTTPProxy`, `HTTPPort` for `http` URLs,
    /// `HTTPSEnable`, `HTTPSProxy`, `HTTPSPort` for `https` ones (through `CONNECT`),
    /// `SOCKSEnable`, `SOCKSProxy`, `SOCKSPort` for a SOCKS proxy every request goes through,
    /// and `ExceptionsList` for the hosts reached directly (a name listed both as itself and
    /// as `*.name`, as `NO_PROXY` means it; addresses and CIDR ranges as written). Every kind
    /// not used is disabled, so the system's proxy settings never apply in its place.
    ///
    /// Compiled and tested on every platform; only URLSession on Apple platforms reads it.
    /// - Parameter policy: ``ProxyPolicy/direct``, ``ProxyPolicy/through(_:bypass:)`` with a
    ///   proxy without credentials, or an environment (the process's or given) naming such
    ///   proxies.
    /// - Returns: The dictionary.
    /// - Throws: ``ClientError/Code/proxyUnsupported`` for what the dictionary cannot hold:
    ///   credentials (CFNetwork takes a proxy's credentials from the keychain or an
    ///   authentication challenge, not from this dictionary), a per-URL choice, a `NO_PROXY`
    ///   entry with a port, an environment naming a SOCKS proxy for one scheme and another
    ///   proxy for the other; a proxy Heron does not speak to as ``ProxyPolicy/proxy(for:)``
    ///   throws it.
    static func proxyDictionary(for policy: ProxyPolicy) throws(ClientError) -> [AnyHashable: Any] {
        var http: Proxy?
        var https: Proxy?
        var bypass = ProxyBypass.none
        switch policy.rule {
        case .direct:
            break
        case .fixed(let proxy, let list):
            try proxy.validate()
            (http, https, bypass) = (proxy, proxy, list)
        case .environment(let environment, _):
            // The proxy each scheme would use for a host no NO_PROXY entry matches.
            let proxies = ProxyEnvironment(environment.variables.filter { $0.key.lowercased() != "no_proxy" })
            http = try proxies.proxy(for: URL(string: "http://heron.invalid/")!)
            https = try proxies.proxy(for: URL(string: "https://heron.invalid/")!)
            bypass = environment.bypass?.list ?? .none
        case .choosing:
            throw ClientError(
                .proxyUnsupported,
                "URLSessionTransport cannot apply a proxy chosen per URL: URLSession takes one proxy setting per "
                    + "session; use AsyncHTTPClientTransport")
        }
        var dictionary: [AnyHashable: Any] = ["HTTPEnable": 0, "HTTPSEnable": 0, "SOCKSEnable": 0]
        if bypass.bypassesAll { return dictionary }
        for proxy in [http, https].compactMap({ $0 }) where proxy.kind != .http && proxy.kind != .socks5 {
            throw ClientError(
                .proxyUnsupported,
                "URLSessionTransport cannot give URLSession the \(proxy.kind) proxy \(proxy): its proxy dictionary "
                    + "holds HTTP and SOCKS5 proxies")
        }
        for proxy in [http, https].compactMap({ $0 }) where proxy.credentials != nil {
            throw ClientError(
                .proxyUnsupported,
                "URLSessionTransport cannot give URLSession the credentials of the proxy \(proxy): its proxy "
                    + "dictionary holds none; use AsyncHTTPClientTransport")
        }
        let socks = [http, https].compactMap { $0 }.filter { $0.kind == .socks5 }
        if let first = socks.first {
            guard http == https else {
                throw ClientError(
                    .proxyUnsupported,
                    "URLSessionTransport cannot send http and https requests through different proxies when one is "
                        + "the SOCKS proxy \(first): URLSession sends every request through its SOCKS proxy")
            }
            dictionary["SOCKSEnable"] = 1
            dictionary["SOCKSProxy"] = first.host
            dictionary["SOCKSPort"] = first.port
        } else {
            if let http {
                dictionary["HTTPEnable"] = 1
                dictionary["HTTPProxy"] = http.host
                dictionary["HTTPPort"] = http.port
            }
            if let https {
                dictionary["HTTPSEnable"] = 1
                dictionary["HTTPSProxy"] = https.host
                dictionary["HTTPSPort"] = https.port
            }
        }
        if http != nil || https != nil {
            let exceptions = try exceptionsList(bypass)
            if !exceptions.isEmpty { dictionary["ExceptionsList"] = exceptions }
        }
        return dictionary
    }

    /// `bypass` as CFNetwork's `ExceptionsList`: a name as itself and `*.name`, an address
    /// or a range as written.
    private static func exceptionsList(_ bypass: ProxyBypass) throws(ClientError) -> [String] {
        var list: [String] = []
        for entry in bypass.entries {
            switch entry {
            case .name(_, port: _?), .range(_, bits: _, port: _?):
                throw ClientError(
                    .proxyUnsupported,
                    "URLSessionTransport cannot keep the NO_PROXY list '\(bypass)' from the proxy: URLSession's "
                        + "exceptions list has no entry for one port; use AsyncHTTPClientTransport")
            case .name(let name, port: nil):
                list += [name, "*.\(name)"]
            case .range(let bytes, let bits, port: nil):
                let address = addressText(bytes)
                list.append(bits == bytes.count * 8 ? address : "\(address)/\(bits)")
            }
        }
        return list
    }

    /// An IPv4 or IPv6 address's bytes as text.
    private static func addressText(_ bytes: [UInt8]) -> String {
        var text = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count)) != nil
        }
        guard written else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension ProxyBypass {
    /// The list as curl 7.88 applies it: an entry with a port never matches.
    var ignoringPortEntries: ProxyBypass {
        ProxyBypass(
            keeping: entries.filter { entry in
                switch entry {
                case .name(_, let port), .range(_, _, let port): port == nil
                }
            }, of: self)
    }

    /// `other` with only `entries`.
    private init(keeping entries: [Entry], of other: ProxyBypass) {
        self.entries = entries
        self.bypassesAll = other.bypassesAll
        self.list = other.list
    }
}
