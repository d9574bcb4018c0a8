/// The transports this package runs the contract suite (Tests/TransportContract) against.
enum ContractTransports {
    static let all: [any ContractTransport] = [URLSessionContract()]
}
