import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The baseline: URLSession used directly, as an application would without Heron.
///
/// Its session is configured like ``URLSessionTransport``'s (64 connections per host, no
/// cookies, no cache) so that only the layers above URLSession differ.
struct RawURLSession: Sendable {
    let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    /// `GET url` with the same header fields the client adds; checks for a 200.
    func get(_ url: URL) async throws {
        var request = URLRequest(url: url)
        request.setValue("1", forHTTPHeaderField: "X-Bench")
        request.setValue("Bearer bench-token", forHTTPHeaderField: "Authorization")
        try check(try await session.data(for: request).1)
    }

    /// `POST url` with the file at `file` as `httpBodyStream` (sent chunked).
    func uploadStream(_ file: URL, to url: URL) async throws {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(url: file)
        try check(try await session.data(for: request).1)
    }

    /// `POST url` with `chunks` as `httpBodyStream` through ``RawSequenceStream`` (sent chunked).
    func uploadSequence(_ chunks: some AsyncSequence<Data, any Error> & Sendable, to url: URL) async throws {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBodyStream = RawSequenceStream(chunks)
        try check(try await session.data(for: request).1)
    }

    /// `POST url` with `uploadTask(with:fromFile:)` (sent with Content-Length).
    func uploadFile(_ file: URL, to url: URL) async throws {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        let response: URLResponse = try await withCheckedThrowingContinuation { continuation in
            session.uploadTask(with: request, fromFile: file) { _, response, error in
                if let response {
                    continuation.resume(returning: response)
                } else {
                    continuation.resume(throwing: error ?? URLError(.badServerResponse))
                }
            }.resume()
        }
        try check(response)
    }

    private func check(_ response: URLResponse) throws {
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw URLError(.badServerResponse) }
    }
}
