import HTTPClientTesting
import HTTPEndpoints
import Testing

/// Every usage example of RestingKit's README (`../shared/seeds/RestingKit.md`), done with
/// Heron, in the order of the README's code blocks. `SeedExampleLengthTests` compares their
/// lengths; the test at the end runs them over a stub transport.
@Suite("RestingKit seed examples")
struct RestingKitSeedExamples {
    // seed: RestingKit 1
    // what: a client for one base URL
    static func restingKit1() -> Client {
        Client(baseURL: URL(string: "https://jsonplaceholder.typicode.com")!)
    }
    // end seed

    // seed: RestingKit 2
    // what: request and response models, and a typed endpoint that sends one as JSON and reads the other
    struct NewPost: Encodable {
        let userId: Int
        let title: String
        let body: String
    }

    struct Post: Decodable {
        let id: Int
        let userId: Int
        let title: String
        let body: String
    }

    static let createPost = Endpoint<NewPost, Post>(.post, "/posts")
    // end seed

    // seed: RestingKit 3
    // what: calling the endpoint, reading the response's header fields and value; a status over 299 throws
    // differs: async/await with do/catch in place of a promise's done and catch
    static func restingKit3(client: Client) async {
        do {
            let response = try await client.response(for: createPost, NewPost(userId: 1, title: "Hi", body: "First"))
            print("Header fields: \(response.headerFields)")
            print("New post \(response.body.id)")
        } catch {
            print("Failed: \(error)")
        }
    }
    // end seed

    // seed: RestingKit 4
    // what: an endpoint whose response may be empty: an Optional response type, nil for no content
    static func restingKit4(client: Client) async {
        let createPost = Endpoint<NewPost, Post?>(.post, "/posts")
        do {
            let response = try await client.response(for: createPost, NewPost(userId: 1, title: "Hi", body: "First"))
            print("Header fields: \(response.headerFields)")
            if let post = response.body {
                print("New post \(post.id)")
            } else {
                print("No content")
            }
        } catch {
            print("Failed: \(error)")
        }
    }
    // end seed

    // seed: RestingKit 5
    // what: a path variable in the endpoint's template, given at the call
    static func restingKit5(client: Client) async {
        let post = Endpoint<Empty, Post>(.get, "/posts/{id}")
        do {
            print("Post: \(try await client.call(post, variables: ["id": 1]))")
        } catch {
            print("Failed: \(error)")
        }
    }
    // end seed

    // seed: RestingKit 6
    // what: an endpoint that sends its request value as multipart/form-data
    static let upload = Endpoint<ImageUpload, Empty>(.post, "/uploads", body: .multipart)
    // end seed

    // seed: RestingKit 7
    // what: a model with a file property, uploaded (streamed from disk) through that endpoint
    struct ImageUpload: Encodable {
        let image: MultipartFile
    }

    static func restingKit7(client: Client, imageURL: URL) async {
        do {
            try await client.call(upload, ImageUpload(image: MultipartFile(fileAt: imageURL)))
            print("Uploaded")
        } catch {
            print("Upload failed: \(error)")
        }
    }
    // end seed

    // seed: RestingKit 8
    // what: a multipart encoder with snake-case keys and dates in seconds since 1970 (Data is sent raw by default)
    // differs: set per endpoint, as `EndpointDefaults` holds no multipart encoder for a whole client
    static func restingKit8() -> Endpoint<ImageUpload, Empty> {
        let encoder = MultipartFormEncoder(
            keyEncodingStrategy: .convertToSnakeCase, dateEncodingStrategy: .secondsSince1970)
        return Endpoint(.post, "/uploads", body: .multipart(encoder))
    }
    // end seed

    // seed: RestingKit 9
    // what: progress reported while an upload runs, then the response
    static func restingKit9(client: Client, form: ImageUpload) async {
        var options = RequestOptions()
        options.progress = .callback { print($0) }
        do {
            print("Uploaded: \(try await client.response(for: upload, form, options: options))")
        } catch {
            print("Upload failed")
        }
    }
    // end seed

    // seed: RestingKit 10
    // what: an interceptor adding a header field, and logging placed last to see requests as sent
    // differs: the stock `Logging` interceptor in place of a hand-written one
    struct DeviceID: Interceptor {
        func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
            if let id = Device.identifier { try request.headerFields.set(HTTPFieldName("device-id"), id) }
        }
    }

    static func restingKit10(transport: some ClientTransport) -> Client {
        Client(
            baseURL: URL(string: "https://jsonplaceholder.typicode.com")!, transport: transport,
            interceptors: [DeviceID(), Logging(.headers) { print($0) }])
    }
    // end seed

    // seed: RestingKit 11
    // what: a client sending through a transport of your own
    struct MyTransport: ClientTransport {
        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            // Send the request (its body is bytes, a file or a stream), reporting to options.progress.
            TransportResponse(head: HTTPResponse(status: .noContent), body: nil)
        }
    }

    static func restingKit11() -> Client {
        Client(baseURL: URL(string: "https://jsonplaceholder.typicode.com")!, transport: MyTransport())
    }
    // end seed

    // seed: RestingKit 12
    // what: a header field computed for every request of a client
    static func restingKit12(transport: some ClientTransport) throws -> Client {
        let deviceID = DefaultHeaderFields(try HTTPFieldName("device-id")) { _ in Device.identifier }
        return Client(
            baseURL: URL(string: "https://jsonplaceholder.typicode.com")!, transport: transport,
            interceptors: [deviceID])
    }
    // end seed

    // seed: RestingKit 13
    // what: a path variable provided to every call whose template names it, a call's own value winning
    static func restingKit13(transport: some ClientTransport) -> Client {
        var defaults = EndpointDefaults()
        defaults.provide("userId") { await AuthManager.shared.userID }
        return Client(
            baseURL: URL(string: "https://jsonplaceholder.typicode.com")!, transport: transport,
            values: RequestValues(defaults))
    }
    // end seed

    // MARK: support

    enum Device {
        static var identifier: String? { "device-42" }
    }

    actor AuthManager {
        static let shared = AuthManager()
        var userID: Int? = 7
    }

    static func json(_ text: String) -> StubTransport.Reply {
        .status(
            .ok, headerFields: [try! HTTPField(name: .contentType, value: "application/json")], body: Data(text.utf8))
    }

    // MARK: the rewrites, run

    @Test("the RestingKit rewrites send what RestingKit's examples send and read what they read")
    func rewritesRun() async throws {
        let post = #"{"id":101,"userId":1,"title":"Hi","body":"First"}"#
        let stub = StubTransport(fallback: Self.json(post))
        stub.enqueue(Self.json(post), .status(.noContent))
        let client = Client(
            baseURL: URL(string: "https://jsonplaceholder.typicode.com")!, transport: stub, retry: .none)

        #expect(Self.restingKit1().baseURL?.host == "jsonplaceholder.typicode.com")
        await Self.restingKit3(client: client)
        #expect(stub.recordedRequests.last?.body == Data(#"{"body":"First","title":"Hi","userId":1}"#.utf8))
        #expect(stub.requests.last?.headerFields[.contentType] == "application/json")
        await Self.restingKit4(client: client)
        await Self.restingKit5(client: client)
        #expect(stub.requests.last?.url.absoluteString == "https://jsonplaceholder.typicode.com/posts/1")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron-seed-\(UUID().uuidString).png")
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        await Self.restingKit7(client: client, imageURL: file)
        let uploaded = String(decoding: stub.recordedRequests.last?.body ?? Data(), as: UTF8.self)
        #expect(uploaded.contains(#"name="image"; filename="\#(file.lastPathComponent)""#))
        #expect(stub.requests.last?.headerFields[.contentType]?.hasPrefix("multipart/form-data") == true)
        let tuned = try Self.restingKit8().makeRequest(ImageUpload(image: MultipartFile(fileAt: file)))
        #expect(tuned.headerFields[.contentType]?.hasPrefix("multipart/form-data") == true)
        await Self.restingKit9(client: client, form: ImageUpload(image: MultipartFile(fileAt: file)))

        let deviceID = try HTTPFieldName("device-id")
        _ = try await Self.restingKit10(transport: stub).send(.get("posts"))
        #expect(stub.requests.last?.headerFields[deviceID] == "device-42")
        #expect(try await Self.restingKit11().send(.delete("posts/1")).status == .noContent)
        _ = try await Self.restingKit12(transport: stub).send(.get("posts"))
        #expect(stub.requests.last?.headerFields[deviceID] == "device-42")
        let info = Endpoint<Empty, Empty>(.get, "/users/{userId}/info")
        try await Self.restingKit13(transport: stub).call(info)
        #expect(stub.requests.last?.url.path == "/users/7/info")
        try await Self.restingKit13(transport: stub).call(info, variables: ["userId": 9])
        #expect(stub.requests.last?.url.path == "/users/9/info")
    }
}
