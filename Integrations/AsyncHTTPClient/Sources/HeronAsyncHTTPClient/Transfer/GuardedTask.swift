extension TransferGuard {
    /// Runs `work` in a task of its own that this guard cancels when a limit passes, and
    /// that the caller's cancellation cancels too; the caller's task is never cancelled.
    ///
    /// The task starts at once on the caller's thread (Swift 6.2's `Task.immediate`, where
    /// available) and runs there until it first waits: work that needs no wait, such as
    /// reading a body that has already arrived, costs no thread hop.
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Self.start(work)
        cancelling { task.cancel() }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// A task running `work`, started on this thread where the platform allows.
    static func start<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        #if compiler(>=6.2)
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            return Task.immediate { try await work() }
        }
        #endif
        return Task { try await work() }
    }
}
