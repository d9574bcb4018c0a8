import Foundation

/// The one check, shared by HTTPCore's file bodies and HTTPMultipart's file parts (hence
/// `package`), that a URL names a readable regular file, and its size.
///
/// One `stat(2)` (following a symbolic link) gives type and size without reading the file;
/// `access(2)` checks it is readable. A failure says why in words each module's own error
/// type carries, naming the path.
package enum RegularFile {
    /// Why a URL is not a readable regular file, or why a ``PartialFile`` failed.
    package struct Problem: Error {
        /// The path, or the URL's text when it is not a file URL.
        package let path: String
        /// What is wrong, such as `not a regular file`.
        package let reason: String
        /// The system error number, when a system call failed.
        package let errorNumber: Int32?

        /// ``errorNumber`` as a `POSIXError`, for a module's error to carry as its cause.
        package var underlyingError: POSIXError? {
            errorNumber.flatMap(POSIXErrorCode.init(rawValue:)).map { POSIXError($0) }
        }
    }

    /// The size of the readable regular file at `url`, or why there is none.
    package static func size(at url: URL) -> Result<Int64, Problem> {
        guard url.isFileURL else {
            return .failure(Problem(path: url.absoluteString, reason: "not a file URL", errorNumber: nil))
        }
        let path = url.path
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(systemProblem(path, "cannot stat", errno)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return .failure(Problem(path: path, reason: "not a regular file", errorNumber: nil))
        }
        guard access(path, R_OK) == 0 else { return .failure(systemProblem(path, "not readable", errno)) }
        return .success(Int64(info.st_size))
    }

    /// The problem of a failed system call on `path`: `what` went wrong, with `errno`'s text.
    static func systemProblem(_ path: String, _ what: String, _ number: Int32) -> Problem {
        Problem(
            path: path, reason: "\(what): \(String(cString: strerror(number))) (errno \(number))", errorNumber: number)
    }
}
