import Foundation
import HTTPClient
import HTTPCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HeronTrailerProbe URL (client | urlsession)`: fetches URL, whose response ends with a
/// trailer section, and prints one line, `status <code> trailers <count>`, when it survives.
///
/// With `client` the request goes through a ``Client`` on the default ``URLSessionTransport``;
/// with `urlsession` through `URLSession.shared` alone, to show the defect is the platform's.
/// On Linux, swift-corelibs-foundation ends the process in both modes (libcurl hands it the
/// trailer lines as if they began a new response head, and the finished transfer then has no
/// response: `fatalError("Transfer completed, but there's no response.")`), which is why
/// `TrailerCrashTests` runs this in a child process.
///
/// Used by `TrailerCrashTests` only, never shipped.
@main
enum TrailerProbe {
    /// Runs the probe with the process's arguments.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count == 2, let url = URL(string: arguments[0]), url.scheme != nil else {
            FileHandle.standardError.write(Data("usage: HeronTrailerProbe URL (client | urlsession)\n".utf8))
            exit(2)
        }
        do {
            let line: String
            switch arguments[1] {
            case "client":
                let response = try await Client().send(HTTPRequest(url: url))
                line = "status \(response.status.code) trailers \(response.trailerFields?.count ?? 0)"
            case "urlsession":
                let (_, response) = try await URLSession.shared.data(from: url)
                line = "status \((response as? HTTPURLResponse)?.statusCode ?? 0) trailers 0"
            default:
                FileHandle.standardError.write(Data("HeronTrailerProbe: unknown mode \(arguments[1])\n".utf8))
                exit(2)
            }
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        } catch {
            FileHandle.standardError.write(Data("HeronTrailerProbe: \(error)\n".utf8))
            exit(1)
        }
    }
}
