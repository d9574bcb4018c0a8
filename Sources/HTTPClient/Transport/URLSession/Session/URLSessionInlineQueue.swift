import Foundation

#if canImport(FoundationNetworking)
/// The delegate queue of a ``URLSessionTransport`` on Linux: runs each operation at once,
/// on the thread that adds it.
///
/// swift-corelibs-foundation adds one operation to the delegate queue per callback (the
/// head, each body chunk, each chunk sent, the completion) from its work queue. On an
/// ordinary queue each costs a thread switch, and for small requests those switches cost
/// more than everything else the transport does (about 10–15% of a loopback request;
/// `URLSession.data(for:)` avoids them by completing inline, which is why it is faster).
/// Run inline, the callbacks arrive in the order the work queue adds them, with nothing
/// queued in between.
///
/// The price is that delegate code runs on URLSession's work queue, which every session of
/// the process shares: ``URLSessionTransportDelegate`` and ``URLSessionTransfer`` only
/// record, hand over and resume there; they never call a URLSession method that waits for
/// the work queue (cancelling goes through another queue), and progress callbacks, which
/// run callers' code, are delivered from a queue of their own.
///
/// `@unchecked Sendable`: the subclass adds no state; it only runs what it is given.
final class URLSessionInlineQueue: OperationQueue, @unchecked Sendable {
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }

    override func addOperation(_ operation: Operation) {
        operation.start()
    }

    override func addOperations(_ operations: [Operation], waitUntilFinished wait: Bool) {
        for operation in operations { operation.start() }
    }
}
#endif
