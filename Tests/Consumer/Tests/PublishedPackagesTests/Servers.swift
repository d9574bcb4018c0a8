import Foundation

/// The local servers `scripts/with-servers` starts.
enum Servers {
    /// A server's variable that is not set, reported with the command that sets it.
    struct Missing: Error, CustomStringConvertible {
        let variable: String
        var description: String { "\(variable) is not set: run scripts/test-published, which starts the servers" }
    }

    /// The base URL of the local httpbin (`HERON_HTTPBIN_URL`).
    static func httpbin() throws -> URL {
        guard let value = ProcessInfo.processInfo.environment["HERON_HTTPBIN_URL"], let url = URL(string: value)
        else { throw Missing(variable: "HERON_HTTPBIN_URL") }
        return url
    }

    /// The query arguments httpbin echoes in the JSON body of `/get` or `/anything`.
    static func echoedArguments(_ body: Data) throws -> [String: String] {
        let echo = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        return (echo?["args"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
    }
}
