import AsyncHTTPClient
import Foundation
import HTTPClient
import HTTPCore
import NIOCore

/// One request's exchange with AsyncHTTPClient: what `send`, the request body and the
/// response body share, the sending, and the error a failure becomes.
struct Exchange: Sendable {
    let transport: AsyncHTTPClientTransport
    let request: HTTPCore.HTTPRequest
    let options: TransportOptions
    /// The request body read as it is sent, unless it is bytes sent as they are.
    let upload: Upload?
    /// The limits AsyncHTTPClient does not enforce, if any.
    let guardian: TransferGuard?
    let progress: ProgressReports?
    /// The AsyncHTTPClient client that sends it: the transport's own, or the one for its proxy.
    let client: HTTPClient
    /// The proxy it goes through, as configured (with credentials when they are sent), if any.
    let proxy: Proxy?
    /// The per-proxy client borrowed for it, returned when it ends.
    let lease: ProxyClients.Lease?

    init(
        transport: AsyncHTTPClientTransport, request: HTTPCore.HTTPRequest, options: TransportOptions,
        upload: Upload?, guardian: TransferGuard?, progress: ProgressReports?, route: Route
    ) {
        self.transport = transport
        self.request = request
        self.options = options
        self.upload = upload
        self.guardian = guardian
        self.progress = progress
        self.client = route.client
        self.proxy = route.proxy
        self.lease = route.lease
    }

    /// Where an exchange goes: the client, and the proxy it goes through.
    struct Route: Sendable {
        let client: HTTPClient
        let proxy: Proxy?
        let lease: ProxyClients.Lease?
    }

    /// Sends the request and waits for the head, and, when the caller waits for the whole
    /// body, for the body.
    /// - Parameters:
    ///   - clientRequest: What AsyncHTTPClient sends.
    ///   - headDeadline: When AsyncHTTPClient fails the request if the head has not arrived.
    func run(_ clientRequest: HTTPClientRequest, headDeadline: NIODeadline) async throws -> TransportResponse {
        var head: HTTPResponse?
        do {
            let response = try await client.execute(clientRequest, deadline: headDeadline)
            // A second exchange means the HTTPClient followed a redirect, which Heron's client does.
            guard response.history.count <= 1 else { throw followsRedirects }
            let answer = try HTTPResponse(
                status: response.status, headers: response.headers, version: response.version, for: request)
            head = answer
            headArrived()
            let body: HTTPBody?
            if !answer.hasBody(answering: request) {
                // Read to its end (at once: there is none), so the connection can serve again.
                for try await _ in response.body {}
                body = nil
                end()
            } else if options.awaitsWholeBody {
                let declared = answer.decodedBodyLength
                let data: Data
                if let guardian {
                    // A read that waits is stopped by the guard cancelling the task it runs in.
                    data = try await guardian.run { [declared] in
                        try await collect(response.body, head: answer, declared: declared)
                    }
                } else {
                    data = try await collect(response.body, head: answer, declared: declared)
                }
                body = Self.whole(data, of: response.body)
                end()
            } else {
                body = streamed(response.body, head: answer)
            }
            await finishUploadReports()
            return TransportResponse(head: answer, body: body, bytesSent: bytesSent, proxy: proxy)
        } catch {
            end()
            // A body's failure comes mapped already, with what arrived of it.
            throw self.error(for: error, head: head, received: 0, declared: nil)
        }
    }

    /// The error of an exchange the `HTTPClient` followed a redirect for (Heron's client
    /// follows them): every way of sending fails with it.
    var followsRedirects: ClientError {
        ClientError(
            .transport,
            "the AsyncHTTPClient HTTPClient follows redirects; make it with redirectConfiguration: .disallow "
                + "(Heron's client follows them)", request: request)
    }

    /// The response head arrived: the guard's head deadline is over and its idle timeout
    /// counts from now; the watchdog looks at it again, as it may now be due sooner.
    func headArrived() {
        guard let guardian else { return }
        guardian.headArrived()
        guardian.touch()
        transport.watchdog.watch(guardian)
    }

    /// The transfer ended: it is no longer counted or watched, and the request body is no
    /// longer read. Called once.
    func end() {
        transport.transfers.remove()
        if let guardian { transport.watchdog.unwatch(guardian) }
        upload?.close()
        lease?.release()
    }

    /// Request body bytes handed to AsyncHTTPClient.
    var bytesSent: Int64 {
        if let upload { return upload.sent }
        if case .known(let length)? = request.body?.length { return length }
        return 0
    }

    /// Reports a body of unknown length as complete at what was sent, then waits until the
    /// callback had every report.
    private func finishUploadReports() async {
        guard let progress, let upload else { return }
        let sent = upload.sent
        if upload.expected != sent {
            progress.report(TransferProgress(direction: .upload, completed: sent, expected: sent))
        }
        await progress.flush()
    }

    /// The whole body, failing past ``TransportOptions/responseBufferLimit`` bytes.
    /// - Throws: The error a caller gets (``error(for:head:received:declared:)``).
    private func collect(_ body: HTTPClientResponse.Body, head: HTTPResponse, declared: Int64?) async throws -> Data {
        var received: Int64 = 0
        do {
            return try await collect(body, head: head, declared: declared, received: &received)
        } catch {
            throw self.error(for: error, head: head, received: received, declared: declared)
        }
    }

    private func collect(
        _ body: HTTPClientResponse.Body, head: HTTPResponse, declared: Int64?, received: inout Int64
    ) async throws -> Data {
        let limit = options.responseBufferLimit
        func tooLarge() -> ClientError {
            ClientError(
                .responseTooLarge, "the response body is longer than the \(limit)-byte limit", request: request,
                response: head)
        }
        if let declared, declared > limit { throw tooLarge() }
        var chunks = body.makeAsyncIterator()
        guard let first = try await chunks.next() else { return Data() }
        received = Int64(first.readableBytes)
        guardian?.touch()
        if received > limit { throw tooLarge() }
        guard var chunk = try await chunks.next() else {
            try checkLength(received: received, declared: declared, head: head)
            return Data(copying: first)
        }
        var data = Data(copying: first)
        if let declared { data.reserveCapacity(Int(declared)) }
        while true {
            received += Int64(chunk.readableBytes)
            guardian?.touch()
            if received > limit { throw tooLarge() }
            data.append(copying: chunk)
            guard let next = try await chunks.next() else { break }
            chunk = next
        }
        try checkLength(received: received, declared: declared, head: head)
        return data
    }

    /// Throws ``ClientError/Code/truncatedBody`` when fewer bytes than declared arrived.
    func checkLength(received: Int64, declared: Int64?, head: HTTPResponse) throws(ClientError) {
        guard let declared, received < declared else { return }
        throw ClientError(
            .truncatedBody, "the body ended after \(received) of the \(declared) bytes its Content-Length declared",
            request: request, response: head)
    }

    /// The body as it arrives, read from AsyncHTTPClient in a task of its own that keeps up
    /// to the buffer limit (at most 256 KiB) ahead of the reader, then waits for it: the
    /// transfer ends when AsyncHTTPClient's body does, read or not, and a limit or the reader
    /// going away stops a read that waits by cancelling that task, never the reader's.
    private func streamed(_ body: HTTPClientResponse.Body, head: HTTPResponse) -> HTTPBody {
        let handoff = Handoff(limit: min(options.responseBufferLimit, 256 * 1024))
        let pump = TransferGuard.start { [guardian] in
            defer { end() }
            do {
                for try await chunk in body {
                    guardian?.touch()
                    // Past the buffer limit, wait for the reader (AsyncHTTPClient then pauses).
                    guardian?.pause()
                    let free = await handoff.room()
                    guardian?.resume()
                    guard free else { return }
                    handoff.offer(chunk)
                }
                handoff.finish(.success(()))
            } catch {
                handoff.finish(.failure(error))
            }
        }
        guardian?.cancelling { pump.cancel() }
        let reader = StreamedBody(
            exchange: self, head: head, declared: head.decodedBodyLength, handoff: handoff, stop: { pump.cancel() })
        #if ResponseTrailers
        return HTTPBody(
            length: .unknown, iterationBehavior: .single, makeSequence: { reader },
            trailerFields: { body.trailerSection })
        #else
        return HTTPBody(length: .unknown, iterationBehavior: .single) { reader }
        #endif
    }

    /// A body read whole into `data`, with the trailer section AsyncHTTPClient received after
    /// `body` when the `ResponseTrailers` trait is on.
    private static func whole(_ data: Data, of body: HTTPClientResponse.Body) -> HTTPBody {
        #if ResponseTrailers
        return HTTPBody(data, trailerFields: body.trailerSection)
        #else
        return HTTPBody(data)
        #endif
    }

    /// The error `send` or a body read throws for `error`, after `received` body bytes.
    ///
    /// A limit this transport enforces is ``ClientError/Code/timedOut``; a request body that
    /// could not be read is ``ClientError/Code/invalidRequest`` with its error; the task's
    /// cancellation is `CancellationError`; a body shorter than declared is
    /// ``ClientError/Code/truncatedBody``; the rest is mapped by
    /// ``AsyncHTTPClientTransport/mapError(_:request:response:bodyBytes:)``.
    func error(for error: any Error, head: HTTPResponse?, received: Int64, declared: Int64?) -> any Error {
        if let reason = guardian?.reason {
            let what: String
            switch reason {
            case .deadline: what = "the response did not end before the call's deadline"
            case .head: what = "no response before the deadline of the attempt"
            case .idle: what = "no data moved within the idle timeout"
            }
            return ClientError(.timedOut, what, request: request, response: head, underlying: error)
        }
        if let failure = upload?.error {
            if let failure = failure as? ClientError { return failure }
            return ClientError(
                .invalidRequest, "the request body could not be read: \(failure)", request: request, response: head,
                underlying: failure)
        }
        if error is ClientError { return error }
        if error is CancellationError || Task.isCancelled { return CancellationError() }
        if let head {
            do { try checkLength(received: received, declared: declared, head: head) } catch { return error }
        }
        return AsyncHTTPClientTransport.mapError(
            error, request: request, response: head, bodyBytes: received, proxy: proxy)
    }
}

extension Data {
    /// The readable bytes of `buffer`, copied once.
    init(copying buffer: ByteBuffer) {
        self = buffer.withUnsafeReadableBytes { raw in
            guard let base = raw.baseAddress, !raw.isEmpty else { return Data() }
            return Data(bytes: base, count: raw.count)
        }
    }

    /// Appends the readable bytes of `buffer`.
    mutating func append(copying buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { raw in
            guard let base = raw.baseAddress, !raw.isEmpty else { return }
            append(base.assumingMemoryBound(to: UInt8.self), count: raw.count)
        }
    }
}
