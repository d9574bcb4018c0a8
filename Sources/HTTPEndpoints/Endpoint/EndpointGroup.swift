import Foundation
import HTTPClient
import HTTPCore

/// The endpoints of one API with what they share: the base URL, header fields every
/// request carries, and the endpoint defaults (decoder, encoders, envelope key path,
/// variable providers), declared once beside the endpoints.
///
/// A client made with `Client(for:)` takes them all, so nothing is repeated where
/// the client is made:
///
/// ```swift
/// enum GitHub: EndpointGroup {
///     static let baseURL = URL(string: "https://api.github.com")!
///     static let headerFields: KeyValuePairs<HTTPFieldName, String> = [.accept: "application/vnd.github+json"]
///     static var defaults: EndpointDefaults {
///         var defaults = EndpointDefaults()
///         defaults.jsonDecoder = JSONResponseDecoder {
///             let decoder = JSONDecoder()
///             decoder.keyDecodingStrategy = .convertFromSnakeCase
///             return decoder
///         }
///         return defaults
///     }
///
///     static let user = Endpoint<Empty, User>(.get, "/users/{login}")
/// }
///
/// let client = Client(for: GitHub.self, interceptors: [BearerAuth(token: token)])
/// let user = try await client.call(GitHub.user, variables: ["login": "octocat"])
/// ```
///
/// Endpoints with their arguments bound (``EndpointCall``) make a call read as the
/// operation it is: `try await client.call(.user(login: "octocat"))`.
public protocol EndpointGroup {
    /// The URL the endpoints' templates are relative to.
    static var baseURL: URL { get }
    /// Header fields every request of the client carries, in order; none by default.
    ///
    /// An invalid value (a control character in it) is never sent: every call of the client
    /// fails with `ClientError` code `invalidRequest`, the `HTTPCoreError` that names the field
    /// as its `underlying`.
    static var headerFields: KeyValuePairs<HTTPFieldName, String> { get }
    /// The endpoint defaults of the client; the built-in ones by default.
    static var defaults: EndpointDefaults { get }
}

extension EndpointGroup {
    /// No header fields.
    public static var headerFields: KeyValuePairs<HTTPFieldName, String> { [:] }
    /// The built-in endpoint defaults.
    public static var defaults: EndpointDefaults { EndpointDefaults() }
}

extension Client {
    /// Creates a client for the API `group` describes: its base URL, header fields and
    /// endpoint defaults; the other settings are those of `Client`'s own initializer.
    ///
    /// - Parameters:
    ///   - group: The API's endpoint group.
    ///   - transport: Sends requests; URLSession by default.
    ///   - interceptors: Run in array order for the request, reverse order for the response.
    ///   - observers: See every event of every call, change nothing.
    ///   - retry: The retry policies.
    ///   - redirectLimit: The most redirects one call follows.
    ///   - timeout: The longest wait for a response head and between body chunks; `nil` for none.
    ///   - values: Values for interceptors and calls; endpoint defaults set here win over
    ///     the group's.
    ///   - deadline: The longest a whole call may take, retries included; `nil` for none.
    ///   - cookies: Where to keep cookies (an HTTPCookies `CookieJar`); `nil` for none.
    public convenience init<Group: EndpointGroup>(
        for group: Group.Type, transport: any ClientTransport = URLSessionTransport(),
        interceptors: [any Interceptor] = [], observers: [any ClientObserver] = [], retry: RetryStack = .default,
        redirectLimit: Int = 10, timeout: Duration? = .seconds(60), values: RequestValues = RequestValues(),
        deadline: Duration? = nil, cookies: (any CookieStore)? = nil
    ) {
        var values = values
        if values[EndpointDefaults.self] == nil { values.endpointDefaults = Group.defaults }
        var fields: HTTPFields = []
        var refusal: ClientError?
        do throws(HTTPCoreError) {
            fields = try HTTPFields(Group.headerFields)
        } catch {
            // As an endpoint's invalid field: every call fails before any step runs, nothing is sent.
            refusal = ClientError(.invalidRequest, error.description, underlying: error)
        }
        self.init(
            base: .url(Group.baseURL), headerFields: fields, transport: transport, interceptors: interceptors,
            observers: observers, retry: retry, redirectLimit: redirectLimit, timeout: timeout, values: values,
            deadline: deadline, cookies: cookies, refusal: refusal)
    }
}
