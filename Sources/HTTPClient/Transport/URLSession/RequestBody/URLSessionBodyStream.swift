import Foundation

#if canImport(FoundationNetworking)
/// The `InputStream` URLSession on Linux reads a stream or file body from.
///
/// swift-corelibs-foundation reads `httpBodyStream` from libcurl's read callback: it asks
/// `hasBytesAvailable`, and a `false` there ends the body. So this stream says `true`
/// until the body has really ended and its `read` blocks until bytes exist (see
/// ``URLSessionBodyPump`` and ``URLSessionDirectBodyReader``).
///
/// Thread-safe although `InputStream` cannot be `Sendable`: the status is kept in a
/// ``Locked``, and the pump is itself thread-safe.
final class URLSessionBodyStream: InputStream {
    private let pump: any URLSessionBodySource
    private let status = Locked(Stream.Status.notOpen)

    init(pump: any URLSessionBodySource) {
        self.pump = pump
        super.init(data: Data())
    }

    override func open() {
        status.withLock { if $0 == .notOpen { $0 = .open } }
        pump.start()
    }

    override func close() { status.withLock { $0 = .closed } }

    override var streamStatus: Stream.Status { status.withLock { $0 } }

    /// After a failed read: the body's own error went to the transfer, which reports it.
    override var streamError: (any Error)? {
        streamStatus == .error ? URLError(.requestBodyStreamExhausted) : nil
    }

    override var hasBytesAvailable: Bool { pump.hasBytesAvailable }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let count = pump.read(into: buffer, maxLength: len)
        if count <= 0 { status.withLock { $0 = count == 0 ? .atEnd : .error } }
        return count
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }

    override func property(forKey key: Stream.PropertyKey) -> AnyObject? { nil }

    override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool { false }

    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}

    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}
}

extension URLSessionBodySource {
    /// The stream URLSession reads the body from.
    func makeInputStream() -> InputStream {
        URLSessionBodyStream(pump: self)
    }
}
#else
extension URLSessionBodySource {
    /// The stream URLSession reads the body from: the reading end of a bound stream pair
    /// that a dedicated thread fills from the pump (CFNetwork cannot read from a Swift
    /// `InputStream` subclass; a bound pair's writes block while its buffer is full).
    func makeInputStream() -> InputStream {
        var input: InputStream?
        var output: OutputStream?
        Stream.getBoundStreams(withBufferSize: 256 * 1024, inputStream: &input, outputStream: &output)
        guard let input, let output else { return InputStream(data: Data()) }
        let writer = BoundStreamWriter(pump: self, output: output)
        Thread.detachNewThread { writer.run() }
        return input
    }
}

/// Copies a pump into the writing end of a bound stream pair, on its own thread.
///
/// `@unchecked Sendable`: the output stream is used only by the writer thread after `run` starts.
private final class BoundStreamWriter: @unchecked Sendable {
    let pump: any URLSessionBodySource
    let output: OutputStream

    init(pump: any URLSessionBodySource, output: OutputStream) {
        self.pump = pump
        self.output = output
    }

    func run() {
        output.open()
        defer { output.close() }
        let size = 64 * 1024
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        defer { buffer.deallocate() }
        while true {
            let count = pump.read(into: buffer, maxLength: size)
            if count <= 0 { return }
            var written = 0
            while written < count {
                let result = output.write(buffer + written, maxLength: count - written)
                if result <= 0 {
                    pump.close()
                    return
                }
                written += result
            }
        }
    }
}
#endif
