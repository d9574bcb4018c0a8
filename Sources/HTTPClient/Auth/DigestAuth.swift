import Foundation
import HTTPCore

/// Answers HTTP Digest challenges (RFC 7616), as URLSession does with a `URLCredential`.
///
/// The first request to a server goes without credentials; its `401` carries a `Digest`
/// challenge, which this interceptor answers by sending the request again with an
/// `Authorization: Digest …` field. It then keeps the challenge for the origin and answers it
/// ahead of time on the requests that follow (RFC 7616 §3.5: the nonce is reused with a
/// growing `nc`), so they need no second round trip.
///
/// - Algorithms: `SHA-512-256`, `SHA-256` and `MD5`, each also in its `-sess` form (§3.2);
///   of several challenges the strongest is answered. A challenge naming only algorithms it
///   does not know fails with ``ClientError/Code/authenticationFailed``, naming them.
/// - `qop`: `auth` when offered; `auth-int` when it is all that is offered, over a body in
///   memory (a file or stream body fails the request: its hash would cost a read of its own).
///   A challenge without `qop` (RFC 2069) is answered the old way.
/// - `stale=true` (§3.3: the nonce expired, the credentials were right) is answered again with
///   the new nonce, without failing.
/// - `userhash=true` (§3.4.4): the user name is sent hashed. A user name that a quoted string
///   cannot carry (not ASCII) goes as `username*` (RFC 8187).
/// - A redirect to the same origin is answered again for its own target (the field names it);
///   one to another origin goes without credentials.
/// - Credentials go only to the client's origin (``InterceptorContext/mayCarryCredentials(_:)``)
///   and never replace an `Authorization` field the request has; the field is redacted in logs,
///   HAR files and errors, as Basic and Bearer credentials are. Printed, dumped or shown in a
///   debugger, the interceptor shows its user name and never its password.
///
/// A rejected answer to a challenge the request itself received fails the request with
/// ``ClientError/Code/authenticationFailed``: the credentials are wrong. A rejected answer given
/// ahead of time (a nonce the server has since dropped) is retried once with the new challenge.
///
/// ```swift
/// let client = Client(baseURL: baseURL, interceptors: [DigestAuth(username: "ada", password: "secret")])
/// let response = try await client.send(HTTPRequest(url: URL(string: "digest-auth/auth/ada/secret/SHA-256")!))
/// print(response.status)  // 200 OK
/// ```
public final class DigestAuth: SynchronousInterceptor, HopAuthorizing {
    /// The user name.
    public let username: String
    private let password: String
    private let makeClientNonce: @Sendable () -> String
    /// The last challenge of each origin, and how many times its nonce was used.
    private let sessions = Locked([String: Session]())

    private struct Session {
        var challenge: DigestChallenge
        var count: UInt32 = 0
        /// The client nonce of the first answer, which a `-sess` algorithm's session key
        /// hashes: every answer to the nonce sends it again (RFC 7616 §3.4.2), so a server that
        /// keeps the key made at the first answer and one that makes it anew both agree.
        var sessionNonce: String?
    }

    /// The field an interceptor set on a request, and which one, so that a redirect hop can
    /// tell it from one the caller, or another `DigestAuth`, set.
    private struct AnswerMark: Sendable {
        let owner: ObjectIdentifier
        let field: String
    }
    private enum Answer: HTTPRequest.OptionKey { typealias Value = AnswerMark }

    /// Whether the request's last attempt answered a challenge, and whether that challenge came
    /// to this very request (not kept from an earlier one).
    private enum Answered: RequestValueKey { typealias Value = Bool }
    /// The nonce of the last challenge this request received.
    private enum Received: RequestValueKey { typealias Value = String }
    /// Challenges this request received and answered again: a bound on `stale` loops.
    private enum Rounds: RequestValueKey { typealias Value = Int }

    /// Creates the interceptor.
    /// - Parameters:
    ///   - username: The user name.
    ///   - password: The password.
    public convenience init(username: String, password: String) {
        self.init(username: username, password: password) {
            var generator = SystemRandomNumberGenerator()
            return DigestHash.hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
    }

    /// Creates the interceptor with the client nonces of `makeClientNonce` (a test's fixed ones).
    init(username: String, password: String, clientNonce makeClientNonce: @escaping @Sendable () -> String) {
        self.username = username
        self.password = password
        self.makeClientNonce = makeClientNonce
    }

    /// Adds an answer to the origin's last challenge, if one is known, unless the request has
    /// an `Authorization` field or goes to another origin than the client's.
    /// - Parameters:
    ///   - request: The request to change.
    ///   - context: The attempt's context.
    /// - Throws: ``ClientError/Code/authenticationFailed`` when the challenge asks for
    ///   `auth-int` over a body that is not in memory.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {
        context.values[Answered.self] = nil
        guard !request.headerFields.contains(.authorization), context.mayCarryCredentials(request),
            let origin = Self.origin(of: request.url)
        else { return }
        guard let (challenge, count, cnonce) = nextAnswer(for: origin) else { return }
        // The challenge is this request's own when one of its attempts' 401 brought it.
        let own = context.values[Received.self] == challenge.nonce
        let field: String
        do {
            field = try authorization(answering: challenge, count: count, cnonce: cnonce, for: request)
        } catch  where !own && challenge.qop != "auth-int" {
            // A challenge kept from another request that cannot be answered (a -sess algorithm
            // without qop): sent without, the request's own 401 brings the server's challenge
            // now. (One asking for auth-int over a body not in memory fails at once: a body that
            // cannot be hashed now cannot be later either.)
            return
        }
        try request.headerFields.set(.authorization, field)
        request.options[Answer.self] = AnswerMark(owner: ObjectIdentifier(self), field: field)
        context.values[Answered.self] = own
    }

    /// Answers a same-origin redirect hop of a request this interceptor answered: the field
    /// names its target (`uri`), so the old one would be refused. Takes the next count. A hop
    /// the origin's challenge cannot answer now (another request replaced it) goes without a
    /// field, and its `401` is the call's response.
    /// - Parameter request: The hop's request, with the field of the request it came from.
    func authorize(hop request: inout HTTPRequest) throws {
        guard carriesOwnAnswer(request) else { return }
        request.headerFields.remove(.authorization)
        request.options[Answer.self] = nil
        guard let origin = Self.origin(of: request.url), let (challenge, count, cnonce) = nextAnswer(for: origin),
            let answer = try? authorization(answering: challenge, count: count, cnonce: cnonce, for: request)
        else { return }
        try request.headerFields.set(.authorization, answer)
        request.options[Answer.self] = AnswerMark(owner: ObjectIdentifier(self), field: answer)
    }

    /// Whether `request` carries the answer this interceptor set on it.
    private func carriesOwnAnswer(_ request: HTTPRequest) -> Bool {
        guard let field = request.headerFields[.authorization], let mark = request.options[Answer.self] else {
            return false
        }
        return mark.owner == ObjectIdentifier(self) && mark.field == field
    }

    /// The origin's kept challenge with the nonce's next count, taken under the lock so that
    /// concurrent requests never share one, and the client nonce to send.
    private func nextAnswer(for origin: String) -> (DigestChallenge, UInt32, String)? {
        sessions.withLock { sessions -> (DigestChallenge, UInt32, String)? in
            guard var session = sessions[origin] else { return nil }
            session.count &+= 1
            let cnonce: String
            if session.challenge.session {
                cnonce = session.sessionNonce ?? makeClientNonce()
                session.sessionNonce = cnonce
            } else {
                cnonce = makeClientNonce()
            }
            sessions[origin] = session
            return (session.challenge, session.count, cnonce)
        }
    }

    /// On a `401` with a `Digest` challenge: keeps the challenge and asks for a retry, or fails
    /// when the server rejected an answer to its own challenge.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - context: The attempt's context.
    /// - Returns: ``InterceptorDecision/retry`` to answer the challenge,
    ///   ``InterceptorDecision/fail(_:)`` when the credentials were rejected or no offered
    ///   algorithm is known, else ``InterceptorDecision/proceed``.
    public func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision {
        guard case .response(let head, let body) = outcome, head.status == .unauthorized,
            context.mayCarryCredentials(context.request), let origin = Self.origin(of: context.request.url)
        else { return .proceed }
        let answered = context.values[Answered.self]
        // The 401 must answer what went out: not a hop to another origin, whose challenge
        // credentials never go to, nor a hop that lost the answer on the way (A → B → A).
        if context.lastHopLeftOrigin { return .proceed }
        if answered != nil, let last = context.lastHop, !carriesOwnAnswer(last) { return .proceed }
        // An `Authorization` field the caller set is theirs to answer for.
        if answered == nil && context.request.headerFields.contains(.authorization) { return .proceed }
        let offered = AuthChallenge.challenges(in: head).filter { $0.scheme == "digest" }
        guard !offered.isEmpty else { return .proceed }
        func failure(_ message: String) -> InterceptorDecision {
            .fail(ClientError(.authenticationFailed, message, request: context.request, response: head, body: body))
        }
        guard let challenge = DigestChallenge.strongest(of: offered) else {
            let names = offered.map { $0["algorithm"] ?? "MD5" }
            return failure(
                "the server's Digest challenges name no algorithm this client knows: \(names.joined(separator: ", "))"
                    + " (known: SHA-512-256, SHA-256, MD5, and their -sess forms; RFC 7616 §3.2)")
        }
        // The same nonce again keeps its count: a count already sent is a replay (§3.5).
        sessions.withLock { sessions in
            let kept = sessions[origin].flatMap { $0.challenge.nonce == challenge.nonce ? $0 : nil }
            sessions[origin] = Session(
                challenge: challenge, count: kept?.count ?? 0, sessionNonce: kept?.sessionNonce)
        }
        context.values[Received.self] = challenge.nonce
        let rounds = (context.values[Rounds.self] ?? 0) + 1
        context.values[Rounds.self] = rounds
        if answered == true, !challenge.stale {
            return failure(
                "the server rejected the Digest credentials of '\(username)' for realm '\(challenge.realm)'")
        }
        // A stale nonce (§3.3), or a nonce kept from an earlier request that the server dropped:
        // answered again, a few times at most.
        guard rounds <= 3 else {
            return failure("the server kept sending new Digest challenges (\(rounds) in one request)")
        }
        return .retry
    }

    /// The `Authorization` field value answering `challenge` for `request` with the nonce count
    /// `count` and the client nonce `cnonce` (RFC 7616 §3.4).
    func authorization(
        answering challenge: DigestChallenge, count: UInt32, cnonce: String, for request: HTTPRequest
    ) throws -> String {
        let uri = request.path + (request.query.map { "?" + $0 } ?? "")
        let qop = challenge.qop
        // A -sess algorithm hashes the client nonce into A1, and only a qop carries it (§3.4.2).
        if challenge.session && qop == nil {
            throw ClientError(
                .authenticationFailed,
                "the server's Digest challenge names \(challenge.algorithmName ?? "a -sess algorithm") without qop: "
                    + "the client nonce that algorithm hashes could not be sent (RFC 7616 §3.4.2)",
                request: request)
        }
        var bodyHash: String?
        if qop == "auth-int" {
            switch request.body?.source {
            case nil: bodyHash = challenge.hash.hex("")
            case .data(let data): bodyHash = challenge.hash.hex(data)
            case .file, .stream:
                throw ClientError(
                    .authenticationFailed,
                    "the server's Digest challenge asks for qop=auth-int, which hashes the body: this client does so "
                        + "only for a body in memory, not a file or a stream",
                    request: request)
            }
        }
        return Self.field(
            challenge: challenge, username: username, password: password, method: request.method.rawValue, uri: uri,
            qop: qop, bodyHash: bodyHash, count: count, cnonce: cnonce)
    }

    /// The field value of §3.4, from its parts.
    static func field(
        challenge: DigestChallenge, username: String, password: String, method: String, uri: String, qop: String?,
        bodyHash: String?, count: UInt32, cnonce: String
    ) -> String {
        let hash = challenge.hash
        let nc = String(format: "%08x", count)
        // §3.4.2: A1, then for a -sess algorithm the hash of it with both nonces.
        var ha1 = hash.hex("\(username):\(challenge.realm):\(password)")
        if challenge.session { ha1 = hash.hex("\(ha1):\(challenge.nonce):\(cnonce)") }
        // §3.4.3: A2, with the body's hash for auth-int.
        let ha2 = hash.hex(bodyHash.map { "\(method):\(uri):\($0)" } ?? "\(method):\(uri)")
        let response =
            qop.map { hash.hex("\(ha1):\(challenge.nonce):\(nc):\(cnonce):\($0):\(ha2)") }
            ?? hash.hex("\(ha1):\(challenge.nonce):\(ha2)")
        var parts: [String] = []
        if challenge.userhash {
            // §3.4.4: the user name hashed with the realm.
            parts.append("username=\(HTTPToken.quotedString(hash.hex("\(username):\(challenge.realm)")))")
        } else if let plain = quotable(username) {
            parts.append("username=\(plain)")
        } else {
            parts.append("username*=\(extendedValue(username))")
        }
        parts.append("realm=\(HTTPToken.quotedString(challenge.realm))")
        parts.append("uri=\(HTTPToken.quotedString(uri))")
        // §3.4: the algorithm as the challenge named it, and only if it named one.
        if let algorithm = challenge.algorithmName { parts.append("algorithm=\(algorithm)") }
        parts.append("nonce=\(HTTPToken.quotedString(challenge.nonce))")
        if let qop {
            parts.append("nc=\(nc)")
            parts.append("cnonce=\(HTTPToken.quotedString(cnonce))")
            parts.append("qop=\(qop)")
        }
        parts.append("response=\(HTTPToken.quotedString(response))")
        if let opaque = challenge.opaque { parts.append("opaque=\(HTTPToken.quotedString(opaque))") }
        if challenge.userhash { parts.append("userhash=true") }
        return "Digest " + parts.joined(separator: ", ")
    }

    /// `text` as a quoted string when it is printable ASCII, else `nil`.
    static func quotable(_ text: String) -> String? {
        text.utf8.allSatisfy { (0x20...0x7E).contains($0) } ? HTTPToken.quotedString(text) : nil
    }

    /// `text` as an RFC 8187 ext-value: `UTF-8''` then its bytes, those outside attr-char
    /// percent-encoded.
    static func extendedValue(_ text: String) -> String {
        let allowed = Set("!#$&+-.^_`|~".utf8)
        var encoded = "UTF-8''"
        for byte in text.utf8 {
            let isAlphanumeric =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            if isAlphanumeric || allowed.contains(byte) {
                encoded.append(Character(Unicode.Scalar(byte)))
            } else {
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }

    /// The origin a challenge is kept for: scheme, host and port.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host(percentEncoded: true)?.lowercased() else {
            return nil
        }
        return "\(scheme)://\(host):\(url.port.map(String.init) ?? "")"
    }
}

/// A `Digest` challenge this client can answer (RFC 7616 §3.3).
struct DigestChallenge: Sendable, Equatable {
    var realm: String
    var nonce: String
    var opaque: String?
    /// The algorithm as named (`SHA-256-sess`), `nil` when the challenge named none (MD5).
    var algorithmName: String?
    var hash: DigestHash
    /// A `-sess` algorithm: A1 includes both nonces.
    var session: Bool
    /// The `qop` values offered, in lower case; empty for an RFC 2069 challenge.
    var qops: [String]
    var stale: Bool
    var userhash: Bool

    /// The challenge of `challenge`, or `nil` when it is not a Digest challenge with a nonce
    /// and an algorithm this client knows.
    init?(_ challenge: AuthChallenge) {
        guard challenge.scheme == "digest", let nonce = challenge["nonce"] else { return nil }
        let name = challenge["algorithm"]
        var algorithm = (name ?? "MD5").uppercased()
        session = algorithm.hasSuffix("-SESS")
        if session { algorithm.removeLast(5) }
        switch algorithm {
        case "MD5": hash = .md5
        case "SHA-256": hash = .sha256
        case "SHA-512-256": hash = .sha512t256
        default: return nil
        }
        realm = challenge["realm"] ?? ""
        self.nonce = nonce
        opaque = challenge["opaque"]
        algorithmName = name
        qops = (challenge["qop"] ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty }
        stale = challenge["stale"]?.lowercased() == "true"
        userhash = challenge["userhash"]?.lowercased() == "true"
    }

    /// The strongest of `challenges` this client can answer (SHA-512-256, then SHA-256, then
    /// MD5; the first offered of equals), or `nil`.
    static func strongest(of challenges: [AuthChallenge]) -> DigestChallenge? {
        let known = challenges.compactMap(DigestChallenge.init)
        let rank: [DigestHash: Int] = [.sha512t256: 0, .sha256: 1, .md5: 2]
        return known.enumerated().min { ($0.element.rank(rank), $0.offset) < ($1.element.rank(rank), $1.offset) }?
            .element
    }

    private func rank(_ ranks: [DigestHash: Int]) -> Int { ranks[hash] ?? 3 }

    /// The `qop` to answer with: `auth` when offered; `auth-int` when it alone is; none for a
    /// challenge that offers neither (RFC 2069).
    var qop: String? {
        if qops.contains("auth") { return "auth" }
        if qops.contains("auth-int") { return "auth-int" }
        return nil
    }
}

extension DigestAuth: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The user name, never the password: `DigestAuth(username: "ada", password: <redacted>)`.
    public var description: String {
        "DigestAuth(username: \(String(reflecting: username)), password: \(Redacted()))"
    }

    /// The same as ``description``: the password is never printed.
    public var debugDescription: String { description }

    /// The user name and a redacted password, for `dump` and debuggers; not the kept
    /// challenges.
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": Redacted()], displayStyle: .class)
    }
}
