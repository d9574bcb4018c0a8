import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient
@testable import HTTPClientTesting

/// The fingerprints a HAR file keeps of redacted secret values: keyed by a key the file does
/// not hold, so they tell the values of one file apart and let no guess be checked.
@Suite("HAR: keyed fingerprints of secret values")
struct HARFingerprintTests {
    static let secrets = (1...8).map { "hunter-\($0)" }

    /// Records each of ``secrets`` twice as a `password` query value and returns the
    /// fingerprints in the file, in order, and its text.
    static func record(_ recorder: HARRecorder) async throws -> (fingerprints: [String], text: String) {
        let client = Client(transport: recorder, retry: .none)
        for secret in secrets + secrets {
            _ = try await client.send(.get("https://api.example/login?password=\(secret)"))
        }
        let data = try recorder.harData()
        let log = try HARLog(data: data)
        let fingerprints = log.entries.map { entry in
            entry.request.queryString.first { $0.name == "password" }?.value ?? ""
        }
        return (fingerprints, String(decoding: data, as: UTF8.self))
    }

    static func recorder(_ key: HARFingerprintKey? = nil) -> HARRecorder {
        let stub = StubTransport(fallback: .status(.ok, body: Data("ok".utf8)))
        guard let key else { return HARRecorder(wrapping: stub) }
        return HARRecorder(wrapping: stub, fingerprintKey: key)
    }

    @Test("the same secret gets one fingerprint within a recording and another in the next; none is its plain hash")
    func perRecording() async throws {
        let first = try await Self.record(Self.recorder())
        let second = try await Self.record(Self.recorder())
        let count = Self.secrets.count
        for recording in [first, second] {
            #expect(recording.fingerprints.allSatisfy { $0.hasPrefix("***~") && $0.count == 8 })
            // Within a recording: a repeated value has its fingerprint, different values differ.
            #expect(Array(recording.fingerprints[..<count]) == Array(recording.fingerprints[count...]))
            #expect(Set(recording.fingerprints).count >= count - 1)
            for secret in Self.secrets { #expect(!recording.text.contains(secret)) }
        }
        // Across recordings (each with its own random key) the same secrets look different:
        // 8 equal by chance would be 1 in 2^128.
        #expect(first.fingerprints != second.fingerprints)
        // Nothing a guess can be hashed to is in the file: not the key-less hash of the value
        // (a chance match of one in eight is 1 in 8,192; of two, 1 in 150 million).
        let plain = Self.secrets.map { URLRedaction.fingerprint(of: $0) }
        for recording in [first, second] {
            let matching = zip(recording.fingerprints, plain).filter { $0 == $1 }.count
            #expect(matching <= 1, "\(matching) fingerprints are the plain hash of their value")
        }
    }

    @Test("the key is never in the file or a description; the file says its fingerprints are keyed")
    func keyStaysOut() async throws {
        let key = try #require(HARFingerprintKey(base64: Data((1...16).map { UInt8($0) }).base64EncodedString()))
        let recorder = Self.recorder(key)
        #expect(recorder.fingerprintKey == key)
        let (_, text) = try await Self.record(recorder)
        #expect(!text.contains(key.base64))
        #expect(text.contains(#""_fingerprints" : "keyed""#))
        #expect(key.description == "HARFingerprintKey(***)" && !"\(recorder.fingerprintKey)".contains(key.base64))
        #expect(try HARLog(data: try recorder.harData()).keyedFingerprints)
        // The key reads back from its text; other text is no key.
        #expect(HARFingerprintKey(base64: key.base64) == key)
        #expect(HARFingerprintKey(base64: "AAEC") == nil && HARFingerprintKey(base64: "not base64!") == nil)
        #expect(HARFingerprintKey.random() != HARFingerprintKey.random())
    }

    @Test("two keys give the same secret two fingerprints; one key always the same")
    func fixedKeys() throws {
        let one = try #require(HARFingerprintKey(base64: Data(repeating: 1, count: 16).base64EncodedString()))
        let two = try #require(HARFingerprintKey(base64: Data(repeating: 2, count: 16).base64EncodedString()))
        let plain = "https://api.example/x?token=" + URLRedaction.fingerprint(of: "s3cret")
        #expect(one.keyed(plain) == one.keyed(plain))
        #expect(one.keyed(plain) != two.keyed(plain))
        #expect(one.keyed(plain) != plain && one.keyed(plain).hasPrefix("https://api.example/x?token=***~"))
        // Only `***~` and exactly four hex digits are fingerprints.
        let digest = "a=***~" + String(repeating: "0", count: 32)
        #expect(one.keyed(digest) == digest)
        #expect(one.keyed("***~12g4 ***") == "***~12g4 ***")
    }

    @Test("SipHash-2-4 gives the paper's test vector; the keyed map is a permutation of 16-bit values")
    func primitives() throws {
        let key = try #require(HARFingerprintKey(base64: Data((0..<16).map { UInt8($0) }).base64EncodedString()))
        #expect(key.sipHash((0..<15).map { UInt8($0) }) == 0xa129_ca61_49be_45e5)
        var seen = Set<UInt16>()
        for value in UInt16.min...UInt16.max { seen.insert(key.permuted(value)) }
        #expect(seen.count == 65_536)
    }

    @Test("without the key, requests differing only in a secret are served in recorded order")
    func replayWithoutKey() async throws {
        let stub = StubTransport()
        stub.enqueue(.status(.ok, body: Data("first page".utf8)), .status(.ok, body: Data("second page".utf8)))
        let recorder = HARRecorder(wrapping: stub)
        let client = Client(transport: recorder, retry: .none)
        _ = try await client.send(.get("https://api.example/items?token=page-1"))
        _ = try await client.send(.get("https://api.example/items?token=page-2"))
        let replaying = Client(transport: try HARReplayTransport(data: try recorder.harData()), retry: .none)
        let asked = try await replaying.send(.get("https://api.example/items?token=page-2"))
        #expect(String(decoding: asked.body, as: UTF8.self) == "first page")
    }
}
