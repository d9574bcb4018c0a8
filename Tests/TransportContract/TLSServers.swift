import Foundation
import HTTPClient
import HTTPCore

/// The HTTPS servers of `Tests/Servers/tls_servers.py`, which `scripts/with-servers` starts
/// and describes in the JSON file `HERON_TLS_INFO` names: a port per server (`trusted`,
/// `expired`, `wronghost`, `mutual`), the paths of the certificates openssl made for them,
/// the base64 SHA-256 of the SubjectPublicKeyInfo of the CA and the leaf, and the plain-HTTP
/// port that reports how many TCP connections each server accepted.
struct TLSServers: Decodable {
    let ports: [String: Int]
    let ca: String
    let leaf: String
    let clientCertificate: String
    let clientKey: String
    let spkiSha256: [String: String]
    /// The plain-HTTP port whose `GET /connections` gives the TCP connections each server
    /// accepted, by name; `nil` from an older server script.
    let connectionsPort: Int?

    /// The servers started for this run.
    /// - Throws: ``TransportFixture/MissingServer`` outside `scripts/with-servers`; a
    ///   decoding error for a file that is not theirs.
    static func load() throws -> TLSServers {
        guard let path = ProcessInfo.processInfo.environment["HERON_TLS_INFO"] else {
            throw TransportFixture.MissingServer(variable: "HERON_TLS_INFO")
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(TLSServers.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The TCP connections each server accepted so far, by name, asked over plain HTTP with
    /// `transport`.
    /// - Throws: ``TransportFixture/MissingServer`` when the servers do not report them; the
    ///   transport's error.
    func connections(using transport: some ClientTransport) async throws -> [String: Int] {
        guard let connectionsPort else { throw TransportFixture.MissingServer(variable: "HERON_TLS_INFO") }
        let url = URL(string: "http://127.0.0.1:\(connectionsPort)/connections")!
        let response = try await transport.send(HTTPRequest(url: url), options: TransportOptions())
        return try await TransportFixture.json(response).compactMapValues { $0 as? Int }
    }
}
