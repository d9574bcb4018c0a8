import AsyncHTTPClient
import Foundation
import HTTPClient
import HeronAsyncHTTPClient

@testable import HTTPClient
@testable import HeronAsyncHTTPClient

/// One AsyncHTTPClient `HTTPClient` for the whole test process, made with the settings an
/// owning transport uses; the process's end takes it down (it is never released).
let sharedHTTPClient = HTTPClient(
    eventLoopGroup: HTTPClient.defaultEventLoopGroup,
    configuration: AsyncHTTPClientTransport.clientConfiguration(.init()))

/// `AsyncHTTPClientTransport` in the transport contract suite (Tests/TransportContract).
struct AsyncHTTPClientContract: ContractTransport {
    static let transport = AsyncHTTPClientTransport(client: sharedHTTPClient)

    var name: String { "AsyncHTTPClientTransport" }
    var shared: any ClientTransport { Self.transport }
    func make() -> any ClientTransport { AsyncHTTPClientTransport(client: sharedHTTPClient) }
    func activeTransfers(on transport: any ClientTransport) -> Int {
        (transport as? AsyncHTTPClientTransport)?.transfers.value ?? -1
    }
    var combinesRepeatedFields: Bool { false }
    var labelForUnlabelledBody: String? { nil }
    var slowsTheServerForASlowReader: Bool { true }
    var proxyCases: Set<ContractProxyCase> { Set(ContractProxyCase.allCases) }
    var reachesUnixSockets: Bool { true }
    func make(proxy: ProxyPolicy, trust: TrustPolicy) throws(ClientError) -> any ClientTransport {
        try AsyncHTTPClientTransport(trust: trust, proxy: proxy)
    }
    func release(_ transport: any ClientTransport) async {
        try? await (transport as? AsyncHTTPClientTransport)?.shutdown()
    }
}

/// The transports this package runs the contract suite against: AsyncHTTPClientTransport
/// alone (Heron's own tests run it against URLSessionTransport, and a second run here doubled
/// the suite's minute and a half of timeouts in CI).
enum ContractTransports {
    static let all: [any ContractTransport] = [AsyncHTTPClientContract()]
}
