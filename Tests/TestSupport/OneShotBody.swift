import Foundation
import HTTPCore

extension HTTPBody {
    /// A one-shot stream body of `text`, with its length known: it can be read once only.
    /// - Parameter text: The body's text.
    /// - Returns: The body.
    public static func oneShot(_ text: String) -> HTTPBody {
        let stream = AsyncStream<Data> { continuation in
            continuation.yield(Data(text.utf8))
            continuation.finish()
        }
        return HTTPBody(stream: stream, length: .known(Int64(text.utf8.count)))
    }
}
