import HTTPClientTesting
import HTTPEndpoints
import Testing

/// Every usage example of Osprey's README (`../shared/seeds/Osprey.md`), done with Heron, in
/// the order of the README's code blocks. `SeedExampleLengthTests` compares their lengths;
/// the test at the end runs them over a stub transport.
///
/// What the README's snippets take as given (the API's client, `product`, `token`,
/// `requestUser()`, `updateProducts`, …) is declared under "What the examples take as given".
/// Osprey calls its closures on the main queue, so the rewrites live in a `@MainActor` type, as
/// they would in an app's view model.
@MainActor
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
    let repositories = Endpoint<Empty, [Repository]>(.get, "https://api.github.com/users/{user}/repos")
    // end seed

    // seed: Osprey 3
    // what: calling that API and handling the result or the error
    // differs: async/await with do/catch in place of a promise's success and error callbacks
    func osprey3() async {
        do {
            print(try await client.call(repositories, variables: ["user": "octocat"]))
        } catch {
            print(error)
        }
    }
    // end seed

    // seed: Osprey 4
    // what: a call of the API: a GET of an absolute URL decoded into a model
    // differs: an endpoint, called as `client.call(user)`, in place of an API method returning a promise
    let user = Endpoint<Empty, User>(.get, "https://api/users")
    // end seed

    // seed: Osprey 5
    // what: requests of the common methods
    let osprey5 = [HTTPMethod.get, .post, .patch, .delete].map { HTTPRequest(method: $0, string: "https://api/users") }
    // end seed

    // seed: Osprey 6
    // what: an API with a base URL, its routes relative to it
    // differs: a client with the base URL and an endpoint per route in place of an API class
    let productsAPI = Client(baseURL: "https://myapi", transport: transport)
    let requestProducts = Endpoint<Empty, [Product]>(.get, "/products")
    // end seed

    // seed: Osprey 7
    // what: URL query parameters
    func productsPage() async throws -> [Product] {
        try await client.send(.get("products").query(["page": 1]), decoding: [Product].self)
    }
    // end seed

    // seed: Osprey 8
    // what: a model sent as a JSON body, the response decoded
    func addProduct(_ product: Product) async throws -> Product {
        try await client.post("products/", json: product, as: Product.self)
    }
    // end seed

    // seed: Osprey 9
    // what: a PNG sent as a multipart part with a generated filename
    func addPicture(_ data: Data, to product: Product) async throws -> Picture {
        try await client.send(
            .patch("products/\(product.id)/").multipart {
                $0.append(name: "picture", data: data, filename: UUID().uuidString, contentType: .png)
            }, decoding: Picture.self)
    }
    // end seed

    // seed: Osprey 10
    // what: a header added to JSON, query and multipart requests alike
    let osprey10 = [
        HTTPRequest.post("products").json(product),
        .get("products").query(product),
        .post("products").multipart(product),
    ].map { $0.header("Authentication", "Token \(token)") }
    // end seed

    // seed: Osprey 11
    // what: a header whose value is fetched, possibly failing, when the request is sent
    // differs: an interceptor attached to the request in place of a parameters subclass
    let osprey11 = HTTPRequest.post("products").json(product).intercepted(
        by: .prepare { request in request = request.header("Authentication", try await UserManager.shared.token()) })
    // end seed

    // seed: Osprey 12
    // what: a call that needs the result of another, then success, error and always-run steps
    // differs: awaits and do/catch in place of then/onSuccess/onError/finally (a step after the
    // do/catch always runs)
    func osprey12() async {
        do { updateProducts(try await getFavorites(of: requestUser())) } catch { logError(error) }
        updateInterface()
    }
    // end seed

    // seed: Osprey 13
    // what: a client whose results are not delivered on the main thread
    // differs: no response queue to set: code after an `await` runs where the awaiting function does (JSON is the default)
    let api = Client()
    // end seed

    // seed: Osprey 14
    // what: some steps on a background thread, others on the main thread
    // differs: a nonisolated async function runs off the main thread; `@MainActor` functions are awaited on it
    nonisolated func osprey14() async {
        do {
            let products = try await getFavorites(of: requestUser())
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
    func osprey15() async throws -> [Product] {
        try await client.send(.get("products"), decoding: [Product].self, at: "results")
    }
    // end seed

    // MARK: What the examples take as given

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

    nonisolated static let favorites = Endpoint<Empty, [Product]>(.get, "/users/{id}/favorites")

    /// The API's calls that the promise chains of examples 12 and 14 name (`usersAPI.requestUser()`
    /// and `api.getFavorites(of:)`), sent off the main actor.
    nonisolated func requestUser() async throws -> User { try await client.call(user) }
    nonisolated func getFavorites(of user: User) async throws -> [Product] {
        try await client.call(Self.favorites, variables: ["id": user.id])
    }

    /// What the callbacks did, in order.
    nonisolated static let steps = Steps()

    final class Steps: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func append(_ item: String) { lock.withLock { items.append(item) } }
        var all: [String] { lock.withLock { items } }
    }

    func updateProducts(_ products: [Product]) { Self.steps.append("update \(products.count)") }
    func updateInterface() { Self.steps.append("interface") }
    func alertError(_ error: any Error) { Self.steps.append("alert") }
    func logError(_ error: any Error) { Self.steps.append("log") }
    nonisolated func cacheProducts(_ products: [Product]) { Self.steps.append("cache \(products.count)") }
    nonisolated func reportError(_ error: any Error) { Self.steps.append("report") }

    nonisolated static func json(_ text: String) -> StubTransport.Reply {
        .status(
            .ok, headerFields: [try! HTTPField(name: .contentType, value: "application/json")], body: Data(text.utf8))
    }

    // MARK: the rewrites, run

    @Test("the Osprey rewrites send what Osprey's examples send and read what they read")
    func rewritesRun() async throws {
        let stub = transport
        stub.on(.path("/users/octocat/repos"), reply: Self.json(#"[{"name":"heron"}]"#))
        stub.on(.path("/users"), reply: Self.json(#"{"id":7,"name":"Ada"}"#))
        stub.on(.method(.post), reply: Self.json(#"{"id":2,"name":"Ink"}"#))
        stub.on(.method(.patch), reply: Self.json(#"{"url":"https://cdn/p.png"}"#))
        let pen = [Product(id: 1, name: "Pen")]

        await osprey3()
        #expect(stub.requests.last?.url.absoluteString == "https://api.github.com/users/octocat/repos")
        #expect(try await client.call(user) == User(id: 7, name: "Ada"))
        #expect(stub.requests.last?.url.absoluteString == "https://api/users")
        #expect(
            osprey5.map { "\($0.method) \($0.url)" }
                == ["GET", "POST", "PATCH", "DELETE"].map { "\($0) https://api/users" })
        #expect(try await productsAPI.call(requestProducts) == pen)
        #expect(stub.requests.last?.url.absoluteString == "https://myapi/products")
        #expect(try await productsPage() == pen)
        #expect(stub.requests.last?.url.query == "page=1")
        #expect(try await addProduct(pen[0]) == Product(id: 2, name: "Ink"))
        #expect(stub.recordedRequests.last?.body == Data(#"{"id":1,"name":"Pen"}"#.utf8))
        let picture = try await addPicture(Data([0x89, 0x50]), to: pen[0])
        #expect(picture.url == "https://cdn/p.png")
        #expect(stub.requests.last?.url.absoluteString == "https://myapi/products/1/")
        #expect(stub.requests.last?.headerFields[.contentType]?.hasPrefix("multipart/form-data") == true)

        let authentication = try HTTPFieldName("Authentication")
        #expect(osprey10.allSatisfy { $0.pendingError == nil && $0.headerFields[authentication] == "Token abc" })
        #expect(osprey10.map(\.url.absoluteString) == ["products", "products?id=1&name=Pen", "products"])
        _ = try await client.send(osprey11)
        #expect(stub.requests.last?.headerFields[authentication] == "Token t0k3n")

        await osprey12()
        await osprey14()
        #expect(Self.steps.all == ["update 1", "interface", "cache 1", "update 1", "interface"])
        #expect(stub.requests.last?.url.path == "/users/7/favorites")
        #expect(api.baseURL == nil)

        stub.enqueue(Self.json(#"{"page":{"number":1},"results":[{"id":3,"name":"Cap"}]}"#))
        #expect(try await osprey15() == [Product(id: 3, name: "Cap")])
    }
}

// MARK: The stub behind the API's client

private let transport = StubTransport(fallback: OspreySeedExamples.json(#"[{"id":1,"name":"Pen"}]"#))
private let client = Client(baseURL: "https://myapi/", transport: transport, retry: .none)
private let product = OspreySeedExamples.Product(id: 1, name: "Pen")
private let token = "abc"
