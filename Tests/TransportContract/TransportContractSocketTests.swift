import Foundation
import HTTPClient
import HTTPCore
import Testing

extension ContractTransport {
    /// `false`: a transport claims sockets when it reaches them.
    var reachesUnixSockets: Bool { false }
}

/// Unix-socket URLs on every transport: one that reaches sockets
/// (``ContractTransport/reachesUnixSockets``) gets the fault server's answer on
/// `HERON_UNIX_SOCKET_A`; one that does not refuses the request, typed, sending nothing.
@Suite("Transport contract: Unix sockets")
struct TransportContractSocketTests {
    @Test(
        "a request to a Unix socket is answered there, or refused with invalidRequest naming the URL",
        arguments: ContractTransports.all)
    func socketRequest(_ subject: any ContractTransport) async throws {
        guard let path = ProcessInfo.processInfo.environment["HERON_UNIX_SOCKET_A"] else {
            throw TransportFixture.MissingServer(variable: "HERON_UNIX_SOCKET_A")
        }
        let host = try #require(path.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let url = try #require(URL(string: "http+unix://\(host)/whoami"))
        guard subject.reachesUnixSockets else {
            let error = await #expect(throws: ClientError.self) {
                _ = try await subject.shared.send(HTTPRequest(url: url), options: TransportOptions())
            }
            #expect(error?.code == .invalidRequest, "\(String(describing: error))")
            #expect(error?.url == url)
            return
        }
        let response = try await subject.shared.send(HTTPRequest(url: url), options: TransportOptions())
        #expect(response.head.status == .ok)
        #expect(try await TransportFixture.json(response)["socket"] as? String == path)
    }
}
