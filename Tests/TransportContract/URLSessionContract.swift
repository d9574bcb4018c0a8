import Foundation
import HTTPClient

@testable import HTTPClient

/// `URLSessionTransport` in the transport contract suite: the root package runs the suite on it
/// alone, the AsyncHTTPClient integration package beside its own transport.
struct URLSessionContract: ContractTransport {
    /// The transport the tests share.
    static let transport = URLSessionTransport()

    var name: String { "URLSessionTransport" }
    var shared: any ClientTransport { Self.transport }
    func make() -> any ClientTransport { URLSessionTransport() }
    func activeTransfers(on transport: any ClientTransport) -> Int {
        (transport as? URLSessionTransport)?.delegate.activeTransferCount ?? -1
    }
    var combinesRepeatedFields: Bool { true }
    var labelForUnlabelledBody: String? { "application/octet-stream" }
    var slowsTheServerForASlowReader: Bool { false }
    func make(proxy: ProxyPolicy, trust: TrustPolicy) throws(ClientError) -> any ClientTransport {
        try URLSessionTransport(trust: trust, proxy: proxy)
    }
    func release(_ transport: any ClientTransport) async {}
}
