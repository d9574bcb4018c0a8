import Foundation
import InMemoryTracing
import Tracing

/// An in-memory tracer that propagates as OpenTelemetry's W3C propagator does: a
/// `traceparent` field of version 00, the trace and span IDs in hex, and the sampled flag.
struct W3CTracer: Tracer {
    let recorder = InMemoryTracer(idGenerator: Self.hexIDs())

    static func hexIDs() -> InMemoryTracer.IDGenerator {
        let counter = InMemoryLockedCounter()
        return InMemoryTracer.IDGenerator(
            nextTraceID: { String(format: "%032x", counter.next()) },
            nextSpanID: { String(format: "%016x", counter.next()) })
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        recorder.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID,
            line: line)
    }

    func forceFlush() { recorder.forceFlush() }

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Carrier == Inject.Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Carrier == Extract.Carrier {}
}

/// A counter shared by the ID closures.
final class InMemoryLockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    /// The next value, from 1; guarded by `lock`.
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
