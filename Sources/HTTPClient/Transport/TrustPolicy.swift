import Foundation
import HTTPCore

/// Which TLS servers a transport trusts, and the certificate it shows them: the system's roots
/// and roots of your own, public-key pins, and a client certificate for mutual TLS.
///
/// Alamofire's `ServerTrustManager` and OkHttp's `CertificatePinner` in one value that a
/// transport honours or refuses, never ignores: a transport that cannot apply every part of a
/// policy fails with ``ClientError/Code/trustPolicyUnsupported`` when it is made, naming the
/// part (see each transport's documentation for what it supports).
///
/// - Roots: the system's (unless ``trustsSystemRoots`` is `false`) and ``additionalRoots``,
///   such as a private CA's (`Certificate(pem:)`, `Certificate(der:)`).
/// - Pins: for hosts matching a pattern, the SHA-256 of a certificate's SubjectPublicKeyInfo
///   (its `sha256/…` base64, as OkHttp writes it). OkHttp's rule: the connection is trusted
///   when one pin matches one certificate anywhere in the verified chain. `*.example.com`
///   matches one label (`api.example.com`), `**.example.com` any number, and `example.com`
///   itself too. A failed pin is ``ClientError/Code/serverTrustFailed`` naming the host and the
///   pins seen, and is never retried.
/// - ``clientIdentity``: a certificate chain and its private key, shown when the server asks.
///
/// ```swift
/// let policy = TrustPolicy(pins: [
///     try TrustPolicy.Pin("**.example.com", sha256: ["KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio="])
/// ])
/// print(policy.pins(for: "api.example.com").count)  // 1
/// ```
public struct TrustPolicy: Sendable, Hashable, CustomStringConvertible {
    /// A certificate, DER-encoded.
    public struct Certificate: Sendable, Hashable {
        /// The DER bytes.
        public let der: Data

        /// A certificate from its DER bytes.
        /// - Parameter der: The bytes; checked only to start as a DER `SEQUENCE`.
        /// - Throws: ``ClientError/Code/invalidRequest`` when they cannot be a certificate.
        public init(der: Data) throws(ClientError) {
            guard der.count > 16, der.first == 0x30 else {
                throw ClientError(.invalidRequest, "\(der.count) bytes that are not a DER certificate")
            }
            self.der = der
        }

        /// The certificates of a PEM text, in order (`-----BEGIN CERTIFICATE-----` blocks).
        /// - Parameter pem: The text.
        /// - Returns: One certificate a block.
        /// - Throws: ``ClientError/Code/invalidRequest`` when the text holds no certificate or a
        ///   block is not base64.
        public static func all(pem: String) throws(ClientError) -> [Certificate] {
            var certificates: [Certificate] = []
            for block in PEMBlocks.blocks(in: pem, label: "CERTIFICATE") {
                guard let der = Data(base64Encoded: block, options: .ignoreUnknownCharacters) else {
                    throw ClientError(.invalidRequest, "a PEM CERTIFICATE block is not base64")
                }
                certificates.append(try Certificate(der: der))
            }
            guard !certificates.isEmpty else {
                throw ClientError(.invalidRequest, "the PEM text holds no -----BEGIN CERTIFICATE----- block")
            }
            return certificates
        }

        /// The first certificate of a PEM text.
        /// - Parameter pem: The text.
        /// - Throws: As ``all(pem:)``.
        public init(pem: String) throws(ClientError) {
            self = try Self.all(pem: pem)[0]
        }

        /// The certificate as PEM text.
        public var pem: String {
            let lines = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            return "-----BEGIN CERTIFICATE-----\n\(lines)\n-----END CERTIFICATE-----\n"
        }
    }

    /// Public-key pins for the hosts a pattern matches.
    public struct Pin: Sendable, Hashable, CustomStringConvertible {
        /// The host pattern: `example.com`, `*.example.com` (one label) or `**.example.com`
        /// (any number of labels, and `example.com` itself), lower-cased.
        public let pattern: String
        /// SHA-256 digests of SubjectPublicKeyInfo structures, one of which must be in the chain.
        public let hashes: Set<Data>

        /// Pins `hashes` (base64, with or without OkHttp's `sha256/` prefix) for `pattern`.
        /// - Parameters:
        ///   - pattern: The host pattern: letters, digits, `-` and `.` (an internationalized
        ///     name in its `xn--` form), a wildcard label first.
        ///   - hashes: The base64 SHA-256 digests of SubjectPublicKeyInfo structures.
        /// - Throws: ``ClientError/Code/invalidRequest`` for an empty pattern, another
        ///   character (a scheme, a port, a space), a wildcard anywhere but the first label, no
        ///   hash, or one that is not 32 bytes of base64.
        public init(_ pattern: String, sha256 hashes: [String]) throws(ClientError) {
            let pattern = pattern.lowercased()
            let labels = pattern.split(separator: ".", omittingEmptySubsequences: false)
            let wildcard = labels.first == "*" || labels.first == "**"
            // Host characters only (an IDN in its xn-- form): a URL, a port or a space would
            // make a pattern that never matches, leaving its host unpinned.
            let hostCharacters = pattern.utf8.allSatisfy { byte in
                (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "*")
            }
            guard hostCharacters, labels.allSatisfy({ !$0.isEmpty }),
                labels.dropFirst(wildcard ? 1 : 0).allSatisfy({ !$0.contains("*") }),
                !wildcard || labels.count >= 3
            else {
                throw ClientError(
                    .invalidRequest,
                    "the pin pattern '\(pattern)' is not a host, '*.' or '**.' then a domain of two labels or more")
            }
            var digests: Set<Data> = []
            for hash in hashes {
                let text = hash.hasPrefix("sha256/") ? String(hash.dropFirst(7)) : hash
                guard let digest = Data(base64Encoded: text), digest.count == 32 else {
                    throw ClientError(
                        .invalidRequest, "the pin '\(hash)' for '\(pattern)' is not the base64 of a SHA-256 digest")
                }
                digests.insert(digest)
            }
            guard !digests.isEmpty else { throw ClientError(.invalidRequest, "no pin given for '\(pattern)'") }
            self.pattern = pattern
            self.hashes = digests
        }

        /// Whether the pattern matches `host` (lower-cased, without a trailing dot).
        public func matches(_ host: String) -> Bool {
            var host = host.lowercased()
            if host.hasSuffix(".") { host.removeLast() }
            if pattern.hasPrefix("**.") {
                let domain = pattern.dropFirst(3)
                return host == domain || host.hasSuffix("." + domain)
            }
            if pattern.hasPrefix("*.") {
                let domain = pattern.dropFirst(2)
                guard host.hasSuffix("." + domain) else { return false }
                return !host.dropLast(domain.count + 1).contains(".")
            }
            return host == pattern
        }

        /// The pattern and its pins, as OkHttp writes them.
        public var description: String {
            "\(pattern): " + hashes.map { "sha256/" + $0.base64EncodedString() }.sorted().joined(separator: ", ")
        }
    }

    /// A certificate chain and its private key, shown to servers that ask for a client
    /// certificate (mutual TLS). The key is never printed: not by `print`, `dump`,
    /// `String(reflecting:)` nor a debugger, which show the chain's length only.
    public struct ClientIdentity: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// The client's certificate first, then any intermediates.
        public let certificateChain: [Certificate]
        /// The private key, PEM-encoded (`-----BEGIN PRIVATE KEY-----` or an RSA or EC key).
        public let privateKeyPEM: String

        /// An identity from a certificate chain and its key.
        /// - Parameters:
        ///   - certificateChain: The client's certificate first.
        ///   - privateKeyPEM: The unencrypted private key, PEM-encoded.
        /// - Throws: ``ClientError/Code/invalidRequest`` for an empty chain or a text that is
        ///   not a PEM private key.
        public init(certificateChain: [Certificate], privateKeyPEM: String) throws(ClientError) {
            guard !certificateChain.isEmpty else {
                throw ClientError(.invalidRequest, "a client identity needs its certificate")
            }
            guard privateKeyPEM.contains("-----BEGIN "), privateKeyPEM.contains("PRIVATE KEY-----") else {
                throw ClientError(.invalidRequest, "the client identity's key is not a PEM private key")
            }
            self.certificateChain = certificateChain
            self.privateKeyPEM = privateKeyPEM
        }

        /// The chain's length, never the key.
        public var description: String { "ClientIdentity(\(certificateChain.count) certificates, key redacted)" }

        /// The same as ``description``: the key is never printed.
        public var debugDescription: String { description }

        /// The certificate chain and a redacted key, for `dump` and debuggers.
        public var customMirror: Mirror {
            Mirror(
                self, children: ["certificateChain": certificateChain, "privateKeyPEM": Redacted()],
                displayStyle: .struct)
        }
    }

    /// Whether the system's roots are trusted; `true` by default.
    public var trustsSystemRoots: Bool
    /// Roots trusted besides (or, without the system's, instead of) the system's.
    public var additionalRoots: [Certificate]
    /// Public-key pins, by host pattern.
    public var pins: [Pin]
    /// The certificate shown to servers that ask for one.
    public var clientIdentity: ClientIdentity?

    /// A policy.
    /// - Parameters:
    ///   - trustsSystemRoots: Whether the system's roots are trusted; `true` by default.
    ///   - additionalRoots: More roots, such as a private CA's.
    ///   - pins: Public-key pins, by host pattern.
    ///   - clientIdentity: The certificate for servers that ask for one.
    public init(
        trustsSystemRoots: Bool = true, additionalRoots: [Certificate] = [], pins: [Pin] = [],
        clientIdentity: ClientIdentity? = nil
    ) {
        self.trustsSystemRoots = trustsSystemRoots
        self.additionalRoots = additionalRoots
        self.pins = pins
        self.clientIdentity = clientIdentity
    }

    /// The platform's own rules, nothing added: what every transport does by default.
    public static let system = TrustPolicy()

    /// The pins for `host`: those of every pattern that matches it; empty when none does (the
    /// host is then not pinned).
    /// - Parameter host: The host connected to.
    /// - Returns: The SHA-256 digests, one of which must be in the chain.
    public func pins(for host: String) -> Set<Data> {
        pins.filter { $0.matches(host) }.reduce(into: Set<Data>()) { $0.formUnion($1.hashes) }
    }

    /// Checks a verified chain against the pins for `host` (OkHttp's rule: one pin matching one
    /// certificate anywhere in the chain suffices). For transports: call it after the chain was
    /// verified against the roots.
    /// - Parameters:
    ///   - host: The host connected to.
    ///   - publicKeys: The DER SubjectPublicKeyInfo of each certificate of the verified chain.
    /// - Throws: ``ClientError/Code/serverTrustFailed`` naming the host, the pins expected
    ///   and those seen.
    public func checkPins(host: String, publicKeys: [Data]) throws(ClientError) {
        let expected = pins(for: host)
        guard !expected.isEmpty else { return }
        let seen = publicKeys.map { Data(DigestHash.sha256.digest($0)) }
        guard seen.contains(where: expected.contains) else {
            func list(_ digests: some Sequence<Data>) -> String {
                digests.map { "sha256/" + $0.base64EncodedString() }.sorted().joined(separator: ", ")
            }
            throw ClientError(
                .serverTrustFailed,
                "no certificate of \(host)'s chain has a pinned public key: pinned \(list(expected)); "
                    + "the chain has \(list(seen))")
        }
    }

    /// What a policy holds; never a key.
    public var description: String {
        var parts = [trustsSystemRoots ? "system roots" : "no system roots"]
        if !additionalRoots.isEmpty { parts.append("\(additionalRoots.count) more roots") }
        if !pins.isEmpty { parts.append("pins for " + pins.map(\.pattern).joined(separator: ", ")) }
        if clientIdentity != nil { parts.append("a client identity") }
        return "TrustPolicy(" + parts.joined(separator: "; ") + ")"
    }
}

/// The base64 bodies of PEM blocks (RFC 7468).
enum PEMBlocks {
    static func blocks(in text: String, label: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "-----BEGIN \(label)-----" {
                current = []
            } else if trimmed == "-----END \(label)-----" {
                if let body = current { blocks.append(body.joined()) }
                current = nil
            } else if current != nil {
                current?.append(Substring(trimmed))
            }
        }
        return blocks
    }
}
