import Foundation
import HTTPCore

/// A download being written to a hidden file beside its destination, moved into place with
/// one atomic `rename(2)` only when complete: HTTPCore's `PartialFile`, failing with
/// ``ClientError/Code/fileWriteFailed``.
typealias DownloadFile = PartialFile<ClientError>

extension PartialFile<ClientError> {
    /// Creates the hidden file beside `destination`, for the download of `response`.
    /// - Parameters:
    ///   - destination: A `file:` URL in an existing directory.
    ///   - request: The request, for errors.
    ///   - response: The response head, for errors.
    /// - Throws: ``ClientError/Code/fileWriteFailed`` naming the destination and the file; every
    ///   later failure is one too, naming the path, with `errno` as a `POSIXError` cause.
    convenience init(destination: URL, request: HTTPRequest, response: HTTPResponse) throws(ClientError) {
        try self.init(destination: destination) { problem in
            ClientError(
                .fileWriteFailed, "\(problem.path): \(problem.reason)", request: request, response: response,
                underlying: problem.underlyingError)
        }
    }
}
