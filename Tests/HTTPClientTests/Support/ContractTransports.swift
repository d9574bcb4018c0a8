import Foundation
import HTTPClient

@testable import HTTPClient

/// `URLSessionTransport` in the transport contract suite (Tests/TransportContract).
struct URLSessionContract: ContractTransport {
    var name: String { "URLSessionTransport" }
    var shared: any ClientTransport { TransportFixture.transport }
    func make() -> any ClientTransport { URLSessionTransport() }
    func activeTransfers(on transport: any ClientTransport) -> Int {
        (transport as? URLSessionTransport)?.delegate.activeTransferCount ?? -1
    }
    var combinesRepeatedFields: Bool { true }
    var labelForUnlabelledBody: String? { "application/octet-stream" }
    var slowsTheServerForASlowReader: Bool { false }
}

/// The transports this package runs the contract suite against.
enum ContractTransports {
    static let all: [any ContractTransport] = [URLSessionContract()]
}
