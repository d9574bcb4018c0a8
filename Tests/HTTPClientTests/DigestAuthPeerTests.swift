import Foundation
import HTTPCore
import TestSupport
import TestTraits
import Testing

@testable import HTTPClient

/// Digest authentication's arithmetic against Python: the three hash functions against
/// hashlib, the `Authorization` fields against Python requests' `HTTPDigestAuth` on the same
/// challenges (its client nonces and counts given to Heron), and what requests does not do
/// (SHA-512-256, the -sess forms of SHA, auth-int, userhash) against RFC 7616 §3.4 written
/// out with hashlib (`Tests/Peers/digest_peer.py`).
@Suite("Digest authentication against Python (hashlib, requests)", .heavyWork)
struct DigestAuthPeerTests {
    static func peer(_ request: [String: Any]) async throws -> [String: Any] {
        let python = try #require(ProcessInfo.processInfo.environment["HERON_PYTHON"], "run with scripts/with-servers")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers/digest_peer.py").path
        let output = try await ExternalProcess.run(
            python, [script], input: try JSONSerialization.data(withJSONObject: request))
        #expect(output.status == 0, "\(String(decoding: output.standardError, as: UTF8.self))")
        return try #require(try JSONSerialization.jsonObject(with: output.standardOutput) as? [String: Any])
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("MD5, SHA-256 and SHA-512/256 equal hashlib's for 300 messages around every padding boundary")
    func hashes() async throws {
        var random = SplitMix64(seed: 7616)
        // Every length to 260 bytes (both block sizes' padding edges: 55/56/64, 111/112/128),
        // then longer ones.
        let lengths = Array(0...260) + (0..<39).map { _ in 261 + Int(random.next() % 5000) }
        let messages = lengths.map { length in (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
        let answer = try await Self.peer(["hashes": messages.map(Self.hex)])
        let theirs = try #require(answer["hashes"] as? [[String: String]])
        try #require(theirs.count == messages.count)
        for (message, expected) in zip(messages, theirs) {
            #expect(DigestHash.md5.hex(message) == expected["md5"], "MD5 of \(message.count) bytes")
            #expect(DigestHash.sha256.hex(message) == expected["sha256"], "SHA-256 of \(message.count) bytes")
            #expect(
                DigestHash.sha512t256.hex(message) == expected["sha512_256"], "SHA-512/256 of \(message.count) bytes")
        }
    }

    /// The parameters of an `Authorization: Digest …` field.
    static func parameters(_ field: String) throws -> [String: String] {
        let challenge = try #require(AuthChallenge.parse(field).first)
        #expect(challenge.scheme == "digest")
        return Dictionary(challenge.parameters.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    @Test("the fields for three requests on each of 60 challenges equal those of Python requests' HTTPDigestAuth")
    func againstRequests() async throws {
        var random = SplitMix64(seed: 2617)
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        var cases: [[String: Any]] = []
        for index in 0..<60 {
            var challenge: [String: String] = [
                "realm": pick(["testrealm@host.com", "api", "a realm with spaces"]),
                "nonce": "n\(index)-\(random.next() % 1_000_000)",
            ]
            // requests answers MD5, MD5-sess and SHA-256 (and none named: MD5), with qop=auth or
            // without qop.
            if let algorithm = pick([String?.none, "MD5", "MD5-sess", "SHA-256"]) {
                challenge["algorithm"] = algorithm
            }
            // A -sess algorithm needs a qop to carry its client nonce (RFC 7616 §3.4.2): without
            // one, requests hashes a client nonce it does not send, and Heron refuses the
            // challenge (DigestAuthTests); so -sess challenges here always have a qop.
            if let qop = pick([String?.none, "auth", "auth,auth-int"])
                ?? (challenge["algorithm"] == "MD5-sess" ? "auth" : nil)
            {
                challenge["qop"] = qop
            }
            if random.next() % 2 == 0 { challenge["opaque"] = "o\(random.next() % 1000)" }
            cases.append([
                "user": pick(["Mufasa", "user", "ada.lovelace"]),
                "password": pick(["Circle of Life", "passwd", "p:w"]),
                "method": pick(["GET", "POST", "PUT", "DELETE"]),
                "url": pick([
                    "http://example.org/dir/index.html", "https://api.test/v1/items?id=7&q=a%20b", "http://h/",
                ]),
                "challenge": challenge, "count": 3,
            ])
        }
        let answer = try await Self.peer(["requests": cases])
        let theirs = try #require(answer["requests"] as? [[[String: String]]])
        try #require(theirs.count == cases.count)
        var compared = 0
        for (test, fields) in zip(cases, theirs) {
            let challengeValues = try #require(test["challenge"] as? [String: String])
            let challengeField =
                "Digest "
                + challengeValues.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }
                .joined(separator: ", ")
            let challenge = try #require(AuthChallenge.parse(challengeField).first.flatMap(DigestChallenge.init))
            let urlText = try #require(test["url"] as? String)
            let url = try #require(URL(string: urlText))
            let method = try #require(test["method"] as? String)
            let request = HTTPRequest(method: try HTTPMethod(method), url: url)
            let auth = DigestAuth(
                username: try #require(test["user"] as? String), password: try #require(test["password"] as? String))
            for (index, field) in fields.enumerated() {
                // Their client nonce and count, given to ours.
                if let nc = field["nc"] { #expect(UInt32(nc, radix: 16) == UInt32(index + 1)) }
                let ours = try Self.parameters(
                    try auth.authorization(
                        answering: challenge, count: UInt32(index + 1), cnonce: field["cnonce"] ?? "", for: request))
                for name in ["username", "realm", "nonce", "uri", "response", "opaque", "algorithm", "qop", "nc"] {
                    #expect(ours[name] == field[name], "\(name) for \(challengeField) \(method) \(url)")
                }
                compared += 1
            }
        }
        #expect(compared == 180)
    }

    @Test("SHA-512-256, the -sess forms, auth-int and userhash follow RFC 7616 §3.4 as hashlib computes it")
    func againstFormula() async throws {
        var random = SplitMix64(seed: 3_004)
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        var cases: [[String: Any]] = []
        var fields: [String] = []
        for index in 0..<80 {
            let algorithm = pick(["MD5", "MD5-sess", "SHA-256", "SHA-256-sess", "SHA-512-256", "SHA-512-256-sess"])
            // No qop only for an algorithm that is not -sess (which needs one, RFC 7616 §3.4.2).
            let qop = pick(algorithm.hasSuffix("-sess") ? ["auth", "auth-int"] : ["auth", "auth-int", ""])
            let userhash = random.next() % 3 == 0
            let user = pick(["Mufasa", "J\u{E4}s\u{F8}n Doe", "ada"])
            let body = (0..<Int(random.next() % 200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let nonce = "nonce-\(index)"
            let cnonce = "cnonce-\(random.next() % 100_000)"
            let realm = "api@example.org"
            var challengeField = "Digest realm=\"\(realm)\", nonce=\"\(nonce)\", algorithm=\(algorithm)"
            if !qop.isEmpty { challengeField += ", qop=\"\(qop)\"" }
            if userhash { challengeField += ", userhash=true" }
            let challenge = try #require(AuthChallenge.parse(challengeField).first.flatMap(DigestChallenge.init))
            let request = HTTPRequest(
                method: .post, url: URL(string: "https://example.org/doc?x=\(index)")!, body: HTTPBody(Data(body)))
            let count = UInt32(1 + random.next() % 300)
            let field = try DigestAuth(username: user, password: "Circle of Life")
                .authorization(answering: challenge, count: count, cnonce: cnonce, for: request)
            fields.append(field)
            cases.append([
                "algorithm": algorithm, "user": user, "password": "Circle of Life", "realm": realm, "nonce": nonce,
                "cnonce": cnonce, "nc": String(format: "%08x", count), "qop": qop, "method": "POST",
                "uri": "/doc?x=\(index)", "body": Self.hex(body), "userhash": userhash,
            ])
        }
        let answer = try await Self.peer(["formulas": cases])
        let theirs = try #require(answer["formulas"] as? [[String: String]])
        try #require(theirs.count == cases.count)
        for (field, expected) in zip(fields, theirs) {
            let ours = try Self.parameters(field)
            #expect(ours["response"] == expected["response"], "\(field)")
            if let hashed = ours["username"] {
                #expect(hashed == expected["username"], "\(field)")
            } else {
                // Not ASCII, not hashed: RFC 8187's username* (UTF-8, percent-encoded).
                #expect(ours["username*"] == "UTF-8''J%C3%A4s%C3%B8n%20Doe", "\(field)")
                #expect(expected["username"] == "J\u{E4}s\u{F8}n Doe")
            }
        }
    }
}
