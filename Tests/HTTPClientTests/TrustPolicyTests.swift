import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

/// ``TrustPolicy``'s own rules (PEM, pin patterns, OkHttp's pin rule) with the certificates
/// `scripts/with-servers` makes with openssl, and URLSessionTransport's refusal of what it
/// cannot apply. The AsyncHTTPClient package's suite holds the connections.
@Suite("TLS trust policies")
struct TrustPolicyTests {
    /// The DER SubjectPublicKeyInfo of the PEM certificate at `path`, from openssl.
    static func publicKey(_ path: String) async throws -> Data {
        let output = try await ExternalProcess.run(
            "/bin/sh", ["-c", #"openssl x509 -in "$1" -pubkey -noout | openssl pkey -pubin -outform DER"#, "sh", path])
        try #require(output.status == 0, "openssl failed: \(String(decoding: output.standardError, as: UTF8.self))")
        return output.standardOutput
    }

    @Test("PEM certificates read as DER and print back; text that is not one fails typed")
    func pem() throws {
        let text = try String(contentsOfFile: try TLSServers.load().ca, encoding: .utf8)
        let certificate = try TrustPolicy.Certificate(pem: text)
        #expect(certificate.der.first == 0x30 && certificate.der.count > 200)
        #expect(try TrustPolicy.Certificate(pem: certificate.pem) == certificate)
        #expect(try TrustPolicy.Certificate.all(pem: text + text).count == 2)
        for bad in ["", "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----", "hello"] {
            #expect(throws: ClientError.self) { _ = try TrustPolicy.Certificate(pem: bad) }
        }
        #expect(throws: ClientError.self) { _ = try TrustPolicy.Certificate(der: Data([1, 2, 3])) }
    }

    @Test("pin patterns: a host, *. for one label, **. for any number and the domain itself; bad ones fail typed")
    func patterns() throws {
        let hash = ["sha256/" + Data(repeating: 7, count: 32).base64EncodedString()]
        let exact = try TrustPolicy.Pin("Example.COM", sha256: hash)
        #expect(exact.matches("example.com") && exact.matches("EXAMPLE.com.") && !exact.matches("www.example.com"))
        let one = try TrustPolicy.Pin("*.example.com", sha256: hash)
        #expect(one.matches("api.example.com") && !one.matches("a.b.example.com") && !one.matches("example.com"))
        let any = try TrustPolicy.Pin("**.example.com", sha256: hash)
        #expect(try TrustPolicy.Pin("xn--bcher-kva.de", sha256: hash).matches("XN--BCHER-KVA.DE"))
        #expect(any.matches("a.b.example.com") && any.matches("example.com") && !any.matches("badexample.com"))
        for bad in [
            "", "*.com", "a.*.example.com", "ex*ample.com", "example..com", "https://example.com", "example.com:443",
            " example.com", "b\u{FC}cher.de",
        ] {
            #expect(throws: ClientError.self, "\(bad)") { _ = try TrustPolicy.Pin(bad, sha256: hash) }
        }
        #expect(throws: ClientError.self) { _ = try TrustPolicy.Pin("example.com", sha256: []) }
        #expect(throws: ClientError.self) { _ = try TrustPolicy.Pin("example.com", sha256: ["sha256/abc"]) }
        let policy = TrustPolicy(pins: [one, try TrustPolicy.Pin("api.example.com", sha256: [hash[0], hash[0]])])
        #expect(policy.pins(for: "api.example.com").count == 1 && policy.pins(for: "other.com").isEmpty)
    }

    @Test("one pin anywhere in the chain suffices (OkHttp's rule); none fails serverTrustFailed naming what was seen")
    func pinRule() async throws {
        let info = try TLSServers.load()
        let leaf = try await Self.publicKey(info.leaf)
        let ca = try await Self.publicKey(info.ca)
        // The same digests openssl gives (the server computed them with hashlib).
        #expect(Data(DigestHash.sha256.digest(leaf)).base64EncodedString() == info.spkiSha256["leaf"])
        let byLeaf = TrustPolicy(pins: [
            try TrustPolicy.Pin("127.0.0.1", sha256: [try #require(info.spkiSha256["leaf"])])
        ])
        let byCA = TrustPolicy(pins: [
            try TrustPolicy.Pin("**.heron.test", sha256: ["sha256/" + (try #require(info.spkiSha256["ca"]))])
        ])
        try byLeaf.checkPins(host: "127.0.0.1", publicKeys: [leaf, ca])
        try byCA.checkPins(host: "api.heron.test", publicKeys: [leaf, ca])
        // A host no pattern matches is not pinned.
        try byLeaf.checkPins(host: "localhost", publicKeys: [ca])
        let error = #expect(throws: ClientError.self) { try byLeaf.checkPins(host: "127.0.0.1", publicKeys: [ca]) }
        #expect(error?.code == .serverTrustFailed)
        #expect(error?.message.contains("127.0.0.1") == true)
        #expect(error?.message.contains("sha256/" + (info.spkiSha256["ca"] ?? "-")) == true)
        #expect(!RetryPolicy.defaultTransportErrorCodes.contains(.serverTrustFailed))
    }

    @Test("URLSessionTransport takes the system policy and refuses any other at once, typed")
    func urlSessionRefuses() throws {
        _ = try URLSessionTransport(trust: .system)
        let root = try TrustPolicy.Certificate(pem: String(contentsOfFile: try TLSServers.load().ca, encoding: .utf8))
        for policy in [
            TrustPolicy(additionalRoots: [root]),
            TrustPolicy(pins: [try TrustPolicy.Pin("*.example.com", sha256: [Data(count: 32).base64EncodedString()])]),
        ] {
            let error = #expect(throws: ClientError.self) { _ = try URLSessionTransport(trust: policy) }
            #expect(error?.code == .trustPolicyUnsupported)
            #expect(error?.message.contains("Linux") == true)
        }
    }
}
