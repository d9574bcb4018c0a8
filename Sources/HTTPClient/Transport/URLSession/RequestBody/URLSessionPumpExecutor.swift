import Foundation

#if canImport(FoundationNetworking)
/// Runs the task that reads one request body on a serial dispatch queue of its own,
/// outside Swift's cooperative thread pool.
///
/// swift-corelibs-foundation reads a body stream on URLSession's work queue, which its
/// public calls (`dataTask(with:)`, `resume()`, `cancel()`) wait for synchronously. While
/// ``URLSessionBodyPump`` blocks that queue waiting for the next chunk, any cooperative
/// thread inside such a call is stuck too; with the reading task on the same few
/// cooperative threads, nothing could produce the chunk. On its own queue (whose thread
/// libdispatch creates on demand) the reading task always gets to run. Linux only: on
/// Apple platforms CFNetwork reads body streams without blocking its queues.
final class URLSessionPumpExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "Heron.URLSessionTransport.body")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
#endif
