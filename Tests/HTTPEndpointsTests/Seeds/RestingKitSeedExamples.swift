import HTTPClientTesting
import HTTPEndpoints
import Testing

/// Every usage example of RestingKit's README (`../shared/seeds/RestingKit.md`), done with
/// Heron, in the order of the README's code blocks. `SeedExampleLengthTests` compares their
/// lengths; the test at the end runs them over a stub transport.
///
/// What the README's snippets take as given (the client of example 1 as `client`, a form to
/// upload, the app's `transport`) is declared under "What the examples take as given".
@Suite("RestingKit seed examples")
struct RestingKitSeedExamples {
    // seed: RestingKit 1
    // what: a client for one base URL
    let restingClient = Client(baseURL: "https://jsonplaceholder.typicode.com")
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

    let createPost = Endpoint<NewPost, Post>(.post, "/posts")
    // end seed

    // seed: RestingKit 3
    // what: calling the endpoint, reading the response's header fields and value; a status over 299 throws
    // differs: async/await with do/catch in place of a promise's done and catch
    func restingKit3() async {
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
    func restingKit4() async {
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
    func restingKit5() async {
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
    let upload = Endpoint<ImageUpload, Empty>(.post, "/uploads", body: .multipart)
    // end seed

    // seed: RestingKit 7
    // what: a model with a file property, uploaded (streamed from disk) through that endpoint
    struct ImageUpload: Encodable {
        let image: MultipartFile
    }

    func restingKit7() async {
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
    let tunedUpload = Endpoint<ImageUpload, Empty>(
        .post, "/uploads",
        body: .multipart(
            MultipartFormEncoder(keyEncodingStrategy: .convertToSnakeCase, dateEncodingStrategy: .secondsSince1970)))
    // end seed

    // seed: RestingKit 9
    // what: progress reported while an upload runs, then the response
    func restingKit9() async {
        // Each report prints as `upload 512/1024`.
        let options = RequestOptions(progress: .callback { print($0) })
        do {
            print("Uploaded: \(try await client.response(for: upload, form, options: options))")
        } catch {
            print("An error occurred")
        }
    }
    // end seed

    // seed: RestingKit 10
    // what: an interceptor adding a header field, and a logging one placed last to see requests as sent
    struct DeviceID: Interceptor {
        func prepare(_ request: inout HTTPRequest, context: inout InterceptorContext) async throws {
            if let id = Device.identifier { request = request.header("device-id", id) }
        }
    }

    let restingKit10 = Client(
        baseURL: "https://jsonplaceholder.typicode.com", transport: transport,
        interceptors: [
            DeviceID(),
            .prepare { request in print("sending request \(request)\n\(request.headerFields)") },
            .decide { outcome, _ in print("got response \(outcome)") },
        ])
    // end seed

    // seed: RestingKit 11
    // what: a client sending through a transport of your own
    struct MyTransport: ClientTransport {
        func send(_ request: HTTPRequest, options: TransportOptions) async throws -> TransportResponse {
            // Send the request (its body is bytes, a file or a stream), reporting to options.progress.
            TransportResponse(head: HTTPResponse(status: .noContent), body: nil)
        }
    }

    let restingKit11 = Client(baseURL: "https://jsonplaceholder.typicode.com", transport: MyTransport())
    // end seed

    // seed: RestingKit 12
    // what: a header field computed for every request of a client
    func restingKit12() throws -> Client {
        let deviceID = DefaultHeaderFields(try HTTPFieldName("device-id")) { _ in Device.identifier }
        return Client(baseURL: "https://jsonplaceholder.typicode.com", transport: transport, interceptors: [deviceID])
    }
    // end seed

    // seed: RestingKit 13
    // what: a path variable provided to every call whose template names it, a call's own value winning
    func restingKit13() -> Client {
        var defaults = EndpointDefaults()
        defaults.provide("userId") { await AuthManager.shared.userID }
        return Client(
            baseURL: "https://jsonplaceholder.typicode.com", transport: transport, values: RequestValues(defaults))
    }
    // end seed

    // MARK: What the examples take as given

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
        let stub = transport
        stub.enqueue(Self.json(post), .status(.noContent))

        #expect(restingClient.baseURL?.absoluteString == "https://jsonplaceholder.typicode.com")
        await restingKit3()
        #expect(stub.recordedRequests.last?.body == Data(#"{"body":"First","title":"Hi","userId":1}"#.utf8))
        #expect(stub.requests.last?.headerFields[.contentType] == "application/json")
        await restingKit4()
        await restingKit5()
        #expect(stub.requests.last?.url.absoluteString == "https://jsonplaceholder.typicode.com/posts/1")

        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: imageURL)
        defer { try? FileManager.default.removeItem(at: imageURL) }
        await restingKit7()
        let uploaded = String(decoding: stub.recordedRequests.last?.body ?? Data(), as: UTF8.self)
        #expect(uploaded.contains(#"name="image"; filename="\#(imageURL.lastPathComponent)""#))
        #expect(stub.requests.last?.headerFields[.contentType]?.hasPrefix("multipart/form-data") == true)
        let tuned = try tunedUpload.makeRequest(ImageUpload(image: MultipartFile(fileAt: imageURL)))
        #expect(tuned.headerFields[.contentType]?.hasPrefix("multipart/form-data") == true)
        let sent = stub.requests.count
        await restingKit9()
        #expect(stub.requests.count == sent + 1)
        #expect(stub.requests.last?.url.path == "/uploads")

        let deviceID = try HTTPFieldName("device-id")
        _ = try await restingKit10.send(.get("posts"))
        // The device ID, then the two steps of the hand-written logger, last.
        #expect(restingKit10.interceptors.count == 3)
        #expect(stub.requests.last?.headerFields[deviceID] == "device-42")
        #expect(try await restingKit11.send(.delete("posts/1")).status == .noContent)
        _ = try await restingKit12().send(.get("posts"))
        #expect(stub.requests.last?.headerFields[deviceID] == "device-42")
        let info = Endpoint<Empty, Empty>(.get, "/users/{userId}/info")
        try await restingKit13().call(info)
        #expect(stub.requests.last?.url.path == "/users/7/info")
        try await restingKit13().call(info, variables: ["userId": 9])
        #expect(stub.requests.last?.url.path == "/users/9/info")
    }
}

// MARK: The stub behind the client

private let post = #"{"id":101,"userId":1,"title":"Hi","body":"First"}"#
private let transport = StubTransport(fallback: RestingKitSeedExamples.json(post))
private let client = Client(baseURL: "https://jsonplaceholder.typicode.com", transport: transport, retry: .none)
/// The image of examples 7 and 9, written by the test.
private let imageURL = FileManager.default.temporaryDirectory.appendingPathComponent(
    "heron-seed-\(UUID().uuidString).png")
private let form = RestingKitSeedExamples.ImageUpload(image: MultipartFile(fileAt: imageURL))
