import Foundation

/// Where the integration tests find the local servers that `scripts/test` starts.
public enum TestServers {
    /// A missing server, reported with the command that starts it.
    public struct Missing: Error, CustomStringConvertible {
        /// The environment variable that was not set.
        public let variable: String
        /// What to do about it.
        public var description: String {
            "\(variable) is not set: run the suite with scripts/test, which starts the local test servers"
        }
    }

    /// The base URL of the local httpbin (`HERON_HTTPBIN_URL`).
    /// - Throws: ``Missing`` when the variable is absent.
    public static func httpbin() throws -> URL { try url(from: "HERON_HTTPBIN_URL") }

    /// The base URL of the local fault server (`HERON_FAULT_URL`).
    /// - Throws: ``Missing`` when the variable is absent.
    public static func faultServer() throws -> URL { try url(from: "HERON_FAULT_URL") }

    /// The base URL of the HTTP cache conformance origin (`HERON_CACHE_ORIGIN_URL`,
    /// Tests/Servers/cache_origin.py).
    /// - Throws: ``Missing`` when the variable is absent.
    public static func cacheOrigin() throws -> URL { try url(from: "HERON_CACHE_ORIGIN_URL") }

    private static func url(from variable: String) throws -> URL {
        guard let value = ProcessInfo.processInfo.environment[variable], let url = URL(string: value) else {
            throw Missing(variable: variable)
        }
        return url
    }
}
