import Foundation

/// Where the tests find the local servers that `scripts/with-servers` starts.
enum TestServers {
    /// A missing server, reported with the command that starts it.
    struct Missing: Error, CustomStringConvertible {
        let variable: String
        var description: String {
            "\(variable) is not set: run the tests with the servers up, as "
                + "`scripts/with-servers swift test --package-path Integrations/OpenAPI`"
        }
    }

    /// The base URL of the local httpbin (`HERON_HTTPBIN_URL`).
    static func httpbin() throws -> URL { try url(from: "HERON_HTTPBIN_URL") }

    /// The base URL of Heron's fault server (`HERON_FAULT_URL`).
    static func faultServer() throws -> URL { try url(from: "HERON_FAULT_URL") }

    private static func url(from variable: String) throws -> URL {
        guard let value = ProcessInfo.processInfo.environment[variable], let url = URL(string: value) else {
            throw Missing(variable: variable)
        }
        return url
    }
}

/// Items gathered from several tasks.
///
/// `@unchecked Sendable`: `items` is read and written only while `lock` is held (the
/// standard library's `Mutex` needs macOS 15, and the package supports macOS 13).
final class Collector<Item: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Item] = []

    func append(_ item: Item) { lock.withLock { items.append(item) } }
    var values: [Item] { lock.withLock { items } }
}
