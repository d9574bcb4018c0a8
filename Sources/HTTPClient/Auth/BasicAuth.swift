import Foundation
import HTTPCore

/// Sends HTTP Basic credentials (RFC 7617) with every request.
///
/// The `Authorization` field is added only when the request has none, so one request can
/// carry other credentials. User name and password are encoded as UTF-8 (RFC 7617 §2.1).
/// Basic credentials are only as private as the connection: use HTTPS.
///
/// Printed, dumped or shown in a debugger, the interceptor shows its user name and never its
/// password (`BasicAuth(username: "ada", password: <redacted>)`).
///
/// ```swift
/// let client = Client(baseURL: baseURL, interceptors: [BasicAuth(username: "ada", password: "secret")])
/// let response = try await client.send(HTTPRequest(url: URL(string: "basic-auth/ada/secret")!))
/// print(response.status)  // 200 OK
/// ```
public struct BasicAuth: SynchronousInterceptor {
    /// The user name; it must not contain `:`.
    public let username: String
    private let password: String

    /// Creates the interceptor.
    /// - Parameters:
    ///   - username: The user name (a `:` in it makes every request fail, RFC 7617 §2).
    ///   - password: The password.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// Adds `Authorization: Basic …` unless the request already has an `Authorization` field
    /// or goes to another origin than the client's base URL
    /// (``InterceptorContext/mayCarryCredentials(_:)``).
    /// - Parameters:
    ///   - request: The request to change.
    ///   - context: The attempt's context.
    /// - Throws: ``ClientError/Code/authenticationFailed`` when the user name contains `:`.
    public func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) throws {
        // Never to another origin than the client's base URL's (an absolute URL elsewhere).
        guard !request.headerFields.contains(.authorization), context.mayCarryCredentials(request) else { return }
        guard !username.contains(":") else {
            throw ClientError(
                .authenticationFailed,
                "the user name '\(username)' contains ':', which Basic authentication cannot carry (RFC 7617 §2)",
                request: request)
        }
        let credentials = Data("\(username):\(password)".utf8).base64EncodedString()
        try request.headerFields.set(.authorization, "Basic \(credentials)")
    }

    /// Proceeds: Basic credentials are sent whole, with nothing to answer a `401` with.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - context: The attempt's context.
    /// - Returns: ``InterceptorDecision/proceed``.
    public func decide(_ outcome: AttemptOutcome, context: inout InterceptorContext) throws -> InterceptorDecision {
        .proceed
    }
}

extension BasicAuth: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The user name, never the password: `BasicAuth(username: "ada", password: <redacted>)`.
    public var description: String { "BasicAuth(username: \(String(reflecting: username)), password: \(Redacted()))" }

    /// The same as ``description``: the password is never printed.
    public var debugDescription: String { description }

    /// The user name and a redacted password, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": Redacted()], displayStyle: .struct)
    }
}
