import Dispatch
import NIOConcurrencyHelpers
import NIOCore

/// Hands chunks from a producer (a task or a thread) to a consumer that awaits them, holding
/// fewer than `limit` bytes before the producer waits: it offers a chunk only once there is
/// room (``room()``; ``put(_:)`` offers, then waits for room). With a limit of 1 byte, each
/// chunk is taken before the next is offered.
///
/// It puts a task or thread of its own between a read that may stall and its consumer, so
/// that the read can be stopped (by cancelling that task) without cancelling the consumer's
/// task. ``close()`` is the consumer going away: a waiting producer is released with `false`.
final class Handoff: Sendable {
    private struct State {
        var chunks = CircularBuffer<ByteBuffer>()
        var held = 0
        var closed = false
        var end: Result<Void, any Error>?
        var producer: (@Sendable (Bool) -> Void)?
        var consumer: CheckedContinuation<ByteBuffer?, any Error>?
    }

    /// The bytes held from which the producer waits.
    let limit: Int
    private let state = NIOLockedValueBox(State())

    /// A hand-off whose producer waits while `limit` bytes or more are held (at least 1).
    init(limit: Int = 1) { self.limit = max(1, limit) }

    /// Hands `chunk` over: to a waiting consumer, or held until the consumer asks. Dropped
    /// once the hand-off ended.
    func offer(_ chunk: ByteBuffer) {
        let consumer: CheckedContinuation<ByteBuffer?, any Error>? = state.withLockedValue { state in
            if state.end != nil { return nil }
            if let consumer = state.consumer {
                state.consumer = nil
                return consumer
            }
            state.chunks.append(chunk)
            state.held += chunk.readableBytes
            return nil
        }
        consumer?.resume(returning: chunk)
    }

    /// Whether fewer than ``limit`` bytes are held, and the consumer is still there.
    var hasRoom: Bool { state.withLockedValue { !$0.closed && $0.held < limit } }

    /// Calls `then` once with `true` when fewer than ``limit`` bytes are held (at once if so),
    /// or with `false` when the consumer went away.
    func whenRoom(_ then: @escaping @Sendable (Bool) -> Void) {
        let now: Bool? = state.withLockedValue { state in
            if state.closed { return false }
            if state.held < limit { return true }
            state.producer = then
            return nil
        }
        if let now { then(now) }
    }

    /// Waits until fewer than ``limit`` bytes are held.
    /// - Returns: `false` when the consumer went away (``close()``).
    func room() async -> Bool {
        await withCheckedContinuation { continuation in whenRoom { continuation.resume(returning: $0) } }
    }

    /// Offers `chunk` and waits for room.
    /// - Returns: `false` when the consumer went away.
    func put(_ chunk: ByteBuffer) async -> Bool {
        offer(chunk)
        return await room()
    }

    /// Offers `chunk` and blocks this thread until there is room (for a producer on a thread
    /// of its own).
    /// - Returns: `false` when the consumer went away.
    func putBlocking(_ chunk: ByteBuffer) -> Bool {
        offer(chunk)
        let done = DispatchSemaphore(value: 0)
        let free = NIOLockedValueBox(false)
        whenRoom { room in
            free.withLockedValue { $0 = room }
            done.signal()
        }
        done.wait()
        return free.withLockedValue { $0 }
    }

    /// The producer is done: the consumer gets the end (`nil`) or `result`'s error after the
    /// chunks still held. Only the first end counts.
    func finish(_ result: Result<Void, any Error>) {
        let consumer: CheckedContinuation<ByteBuffer?, any Error>? = state.withLockedValue { state in
            guard state.end == nil else { return nil }
            state.end = result
            defer { state.consumer = nil }
            return state.consumer
        }
        consumer?.resume(with: result.map { nil })
    }

    /// The consumer went away: held chunks are dropped, a waiting producer is released with
    /// `false`, and a consumer still waiting gets `CancellationError`.
    func close() {
        let (producer, consumer) = state.withLockedValue { state in
            state.closed = true
            if state.end == nil { state.end = .failure(CancellationError()) }
            state.chunks.removeAll()
            state.held = 0
            defer {
                state.producer = nil
                state.consumer = nil
            }
            return (state.producer, state.consumer)
        }
        producer?(false)
        consumer?.resume(throwing: CancellationError())
    }

    /// The next chunk, waiting for one; `nil` at the end.
    /// - Throws: The error the producer finished with.
    func next() async throws -> ByteBuffer? {
        try await withCheckedThrowingContinuation { continuation in
            enum Outcome {
                case chunk(ByteBuffer, (@Sendable (Bool) -> Void)?)
                case end(Result<Void, any Error>)
                case wait
            }
            let outcome: Outcome = state.withLockedValue { state in
                if let chunk = state.chunks.popFirst() {
                    state.held -= chunk.readableBytes
                    guard state.held < limit, let producer = state.producer else { return .chunk(chunk, nil) }
                    state.producer = nil
                    return .chunk(chunk, producer)
                }
                if let end = state.end { return .end(end) }
                state.consumer = continuation
                return .wait
            }
            switch outcome {
            case .chunk(let chunk, let producer):
                continuation.resume(returning: chunk)
                producer?(true)
            case .end(let end): continuation.resume(with: end.map { nil })
            case .wait: break
            }
        }
    }
}
