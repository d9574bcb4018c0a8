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

extension PartialFile<ClientError> {
    /// Creates the folders missing on the way to `destination`'s folder.
    /// - Parameters:
    ///   - destination: A `file:` URL.
    ///   - request: The request, for errors.
    /// - Returns: The folders created, the outermost first.
    /// - Throws: ``ClientError/Code/fileWriteFailed`` naming the folder that could not be made
    ///   (the ones made before it are removed).
    static func createFolders(for destination: URL, request: HTTPRequest) throws(ClientError) -> [URL] {
        var missing: [URL] = []
        var folder = destination.deletingLastPathComponent().standardizedFileURL
        var isFolder: ObjCBool = false
        while !FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), folder.path != "/" {
            missing.append(folder)
            folder = folder.deletingLastPathComponent()
        }
        var created: [URL] = []
        for folder in missing.reversed() {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
                created.append(folder)
            } catch
                where FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) && isFolder.boolValue
            {
                // Another download made it meanwhile: it is that download's to keep.
                continue
            } catch {
                removeFolders(created)
                throw ClientError(
                    .fileWriteFailed, "cannot create the folder \(folder.path) for the download: \(error)",
                    request: request, underlying: error)
            }
        }
        return created
    }

    /// Removes `folders` (as ``createFolders(for:request:)`` returned them), innermost first,
    /// each only while empty.
    static func removeFolders(_ folders: [URL]) {
        for folder in folders.reversed() where rmdir(folder.path) != 0 { return }
    }
}
