import Foundation

/// The HTTPS servers of `Tests/Servers/tls_servers.py`, which `scripts/with-servers` starts
/// and describes in the JSON file `HERON_TLS_INFO` names: a port per server (`trusted`,
/// `expired`, `wronghost`, `mutual`), the paths of the certificates openssl made for them,
/// and the base64 SHA-256 of the SubjectPublicKeyInfo of the CA and the leaf.
struct TLSServers: Decodable {
    let ports: [String: Int]
    let ca: String
    let leaf: String
    let clientCertificate: String
    let clientKey: String
    let spkiSha256: [String: String]

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
}
