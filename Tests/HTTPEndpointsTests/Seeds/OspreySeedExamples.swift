import HTTPClientTesting
import HTTPEndpoints
import Testing

/// Every usage example of Osprey's README (`../shared/seeds/Osprey.md`), done with Heron, in
/// the order of the README's code blocks. `SeedExampleLengthTests` compares their lengths;
/// the test at the end runs them over a stub transport.
@Suite("Osprey seed examples")
struct OspreySeedExamples {
    // seed: Osprey 1
    // what: the model a response decodes into
    struct Repository: Decodable {
        let name: String
    }
    // end seed

    // seed: Osprey 2
    // what: an API of one call, a GET of a user's repositories
    static let repositories = Endpoint<Empty, [Repository]>(.get, "https://api.github.com/users/{user}/repos")
    // end seed

    // seed: Osprey 3
    // what: calling that API and handling the result or the error
    // differs: async/await with do/catch in place of a promise's success and error callbacks
    static func osprey3(client: Client) async {
        do {
            print(try await client.call(repositories, variables: ["user": "octocat"]))
        } catch {
            print(error)
        }
    }
    // end seed

    // seed: Osprey 4
    // what: a GET of an absolute URL decoded into a model
    static func osprey4(client: Client) async throws -> User {
        try await client.get("https://api/users", as: User.self)
    }
    // end seed

    // seed: Osprey 5
    // what: requests of the common methods
    static func osprey5() -> [HTTPRequest] {
        [
            .get("https://api/users"), .post("https://api/users"), .patch("https://api/users"),
            .delete("https://api/users"),
        ]
    }
    // end seed

    // seed: Osprey 6
    // what: an API with a base URL, its routes relative to it
    static func osprey6(transport: some ClientTransport) async throws -> [Product] {
        let client = Client(baseURL: URL(string: "https://myapi")!, transport: transport)
        return try await client.get("products", as: [Product].self)
    }
    // end seed

    // seed: Osprey 7
    // what: URL query parameters
    static func osprey7(client: Client) async throws -> [Product] {
        try await client.send(.get("products").query(["page": 1]), decoding: [Product].self)
    }
    // end seed

    // seed: Osprey 8
    // what: a model sent as a JSON body, the response decoded
    static func osprey8(client: Client, product: Product) async throws -> Product {
        try await client.post("products/", json: product, as: Product.self)
    }
    // end seed

    // seed: Osprey 9
    // what: a PNG sent as a multipart part with a generated filename
    static func osprey9(client: Client, data: Data, product: Product) async throws -> Picture {
        try await client.send(
            .patch("products/\(product.id)/").multipart {
                try $0.append(name: "picture", data: data, filename: UUID().uuidString, contentType: .png)
            }, decoding: Picture.self)
    }
    // end seed

    // seed: Osprey 10
    // what: a header added to JSON, query and multipart requests alike
    static func osprey10(product: Product, token: String) throws -> [HTTPRequest] {
        [
            HTTPRequest.post("products").json(product),
            .get("products").query(product),
            .post("products").body(try MultipartFormEncoder().encodeBody(product)),
        ].map { $0.header("Authentication", "Token \(token)") }
    }
    // end seed

    // seed: Osprey 11
    // what: a header whose value is fetched, possibly failing, when the request is sent
    // differs: an interceptor attached to the request in place of a parameters subclass
    static func osprey11(product: Product) throws -> HTTPRequest {
        let token = DefaultHeaderFields(try HTTPFieldName("Authentication")) { _ in try await UserManager.shared.token()
        }
        return .post("products").json(product).intercepted(by: token)
    }
    // end seed

    // seed: Osprey 12
    // what: a call that needs the result of another, then success, error and always-run steps
    // longer: a promise chain passes each result on point-free; async/await names the user it waits for
    // differs: sequential awaits and do/catch/defer in place of then/onSuccess/onError/finally
    @MainActor static func osprey12(client: Client) async {
        defer { updateInterface() }
        do {
            let user = try await client.call(me)
            updateProducts(try await client.call(favorites, variables: ["id": user.id]))
        } catch {
            logError(error)
        }
    }
    // end seed

    // seed: Osprey 13
    // what: a client whose results are not delivered on the main thread
    // differs: no response queue to set: code after an `await` runs where the awaiting function does (JSON is the default)
    static func osprey13() -> Client {
        Client()
    }
    // end seed

    // seed: Osprey 14
    // what: some steps on a background thread, others on the main thread
    // differs: a nonisolated async function runs off the main thread; `@MainActor` functions are awaited on it
    static func osprey14(client: Client) async {
        do {
            let user = try await client.call(me)
            let products = try await client.call(favorites, variables: ["id": user.id])
            cacheProducts(products)
            await updateProducts(products)
        } catch {
            reportError(error)
            await alertError(error)
        }
        await updateInterface()
    }
    // end seed

    // seed: Osprey 15
    // what: models read from inside a JSON envelope that also holds metadata
    // differs: a key path per call (or `response: .json(at:)` per endpoint) in place of a parser subclass
    static func osprey15(client: Client) async throws -> [Product] {
        try await client.send(.get("products"), decoding: [Product].self, at: "results")
    }
    // end seed

    // MARK: support

    struct User: Codable, Equatable {
        let id: Int
        let name: String
    }

    struct Product: Codable, Equatable {
        let id: Int
        let name: String
    }

    struct Picture: Decodable, Equatable {
        let url: String
    }

    /// Where the signed-in user's token comes from.
    actor UserManager {
        static let shared = UserManager()
        func token() throws -> String { "Token t0k3n" }
    }

    static let me = Endpoint<Empty, User>(.get, "/user")
    static let favorites = Endpoint<Empty, [Product]>(.get, "/users/{id}/favorites")

    /// What the callbacks did, in order.
    static let steps = Steps()

    final class Steps: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func append(_ item: String) { lock.withLock { items.append(item) } }
        var all: [String] { lock.withLock { items } }
    }

    @MainActor static func updateProducts(_ products: [Product]) { steps.append("update \(products.count)") }
    @MainActor static func updateInterface() { steps.append("interface") }
    @MainActor static func alertError(_ error: any Error) { steps.append("alert") }
    static func logError(_ error: any Error) { steps.append("log") }
    static func cacheProducts(_ products: [Product]) { steps.append("cache \(products.count)") }
    static func reportError(_ error: any Error) { steps.append("report") }

    static func json(_ text: String) -> StubTransport.Reply {
        .status(
            .ok, headerFields: [try! HTTPField(name: .contentType, value: "application/json")], body: Data(text.utf8))
    }

    // MARK: the rewrites, run

    @Test("the Osprey rewrites send what Osprey's examples send and read what they read")
    func rewritesRun() async throws {
        let stub = StubTransport(fallback: Self.json(#"[{"id":1,"name":"Pen"}]"#))
        stub.on(.path("/users/octocat/repos"), reply: Self.json(#"[{"name":"heron"}]"#))
        stub.on(.path("/user"), reply: Self.json(#"{"id":7,"name":"Ada"}"#))
        stub.on(.path("/users"), reply: Self.json(#"{"id":7,"name":"Ada"}"#))
        stub.on(.method(.post), reply: Self.json(#"{"id":2,"name":"Ink"}"#))
        stub.on(.method(.patch), reply: Self.json(#"{"url":"https://cdn/p.png"}"#))
        stub.on(
            .path("/envelope/products"), reply: Self.json(#"{"page":{"number":1},"results":[{"id":3,"name":"Cap"}]}"#))
        let client = Client(baseURL: URL(string: "https://myapi/")!, transport: stub, retry: .none)
        let pen = [Product(id: 1, name: "Pen")]

        await Self.osprey3(client: client)
        #expect(stub.requests.last?.url.absoluteString == "https://api.github.com/users/octocat/repos")
        #expect(try await Self.osprey4(client: client) == User(id: 7, name: "Ada"))
        #expect(Self.osprey5().map { "\($0.method)" } == ["GET", "POST", "PATCH", "DELETE"])
        #expect(try await Self.osprey6(transport: stub) == pen)
        #expect(stub.requests.last?.url.absoluteString == "https://myapi/products")
        #expect(try await Self.osprey7(client: client) == pen)
        #expect(stub.requests.last?.url.query == "page=1")
        #expect(try await Self.osprey8(client: client, product: pen[0]) == Product(id: 2, name: "Ink"))
        #expect(stub.recordedRequests.last?.body == Data(#"{"id":1,"name":"Pen"}"#.utf8))
        let picture = try await Self.osprey9(client: client, data: Data([0x89, 0x50]), product: pen[0])
        #expect(picture.url == "https://cdn/p.png")
        #expect(stub.requests.last?.url.absoluteString == "https://myapi/products/1/")
        #expect(stub.requests.last?.headerFields[.contentType]?.hasPrefix("multipart/form-data") == true)

        let authentication = try HTTPFieldName("Authentication")
        let requests = try Self.osprey10(product: pen[0], token: "abc")
        #expect(requests.allSatisfy { $0.pendingError == nil && $0.headerFields[authentication] == "Token abc" })
        _ = try await client.send(try Self.osprey11(product: pen[0]))
        #expect(stub.requests.last?.headerFields[authentication] == "Token t0k3n")

        await Self.osprey12(client: client)
        await Self.osprey14(client: client)
        #expect(Self.steps.all == ["update 1", "interface", "cache 1", "update 1", "interface"])
        #expect(stub.requests.last?.url.path == "/users/7/favorites")
        #expect(Self.osprey13().baseURL == nil)

        let envelope = Client(baseURL: URL(string: "https://myapi/envelope/")!, transport: stub, retry: .none)
        #expect(try await Self.osprey15(client: envelope) == [Product(id: 3, name: "Cap")])
    }
}
