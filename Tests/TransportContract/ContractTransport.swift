import Foundation
import HTTPClient
import Testing

/// A transport the contract suite runs against: every suite in this folder takes one as a
/// test argument, so the same tests judge each transport and the transports cannot drift
/// apart.
///
/// The folder is shared: the root package's `HTTPClientTests` holds it through the link
/// `Tests/HTTPClientTests/TransportContract` and runs it against `URLSessionTransport`;
/// `Integrations/AsyncHTTPClient`'s tests hold it through a link too and run it against
/// `URLSessionTransport` and `AsyncHTTPClientTransport`. Each test target lists its
/// transports in `ContractTransports.all`. Only the public API of `HTTPClient` is used here.
protocol ContractTransport: Sendable, CustomTestStringConvertible {
    /// The transport's name, shown in the test's arguments.
    var name: String { get }
    /// One transport of default settings, shared by the tests that need no fresh one.
    var shared: any ClientTransport { get }
    /// A fresh transport of default settings, for tests that count its transfers.
    func make() -> any ClientTransport
    /// How many transfers of `transport` (made by ``make()``) have not ended: 0 once
    /// cancelled or finished work has really stopped.
    func activeTransfers(on transport: any ClientTransport) -> Int

    /// Whether repeated request fields go out combined into one line (`a, b`) rather than
    /// one line each; RFC 9110 §5.3 allows both.
    var combinesRepeatedFields: Bool { get }
    /// The `Content-Type` a body sent without one gets, if any (never a form's).
    var labelForUnlabelledBody: String? { get }
    /// Whether a reader that falls behind slows the server down (backpressure), where a
    /// transport without it fails the body past its buffer limit.
    var slowsTheServerForASlowReader: Bool { get }

    /// The proxy set-ups of `TransportContractProxyTests` the transport applies; for the others
    /// ``make(proxy:trust:)`` must fail with `proxyUnsupported`. None by default.
    var proxyCases: Set<ContractProxyCase> { get }

    /// Whether the transport sends requests to Unix domain sockets (`http+unix://`, `unix://`);
    /// one that does not must refuse them with `invalidRequest`. `false` by default.
    var reachesUnixSockets: Bool { get }

    /// A fresh transport that applies `proxy` and `trust`, or the typed error the transport
    /// refuses them with when it is made.
    func make(proxy: ProxyPolicy, trust: TrustPolicy) throws(ClientError) -> any ClientTransport
    /// Releases a transport made by ``make(proxy:trust:)`` (shuts down what it owns).
    func release(_ transport: any ClientTransport) async
}

extension ContractTransport {
    /// The name.
    var testDescription: String { name }
}
