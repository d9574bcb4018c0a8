import Foundation
import FuzzSupport
import HTTPClient
import HTTPClientTesting
import HTTPCore

/// The HAR reader on outside input: a file a browser exported, or anyone wrote. What
/// `HARLog(data:)` reads must write back to a file it reads again with as many entries, and a
/// `HARReplayTransport` over it must answer the requests of its first entries (or fail with
/// an error), never crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHAR(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard let log = try? HARLog(data: bytes) else { return 0 }
    guard let written = try? log.fileData(), let again = try? HARLog(data: written),
        again.entries.count == log.entries.count
    else { fatalError("a HAR log of \(log.entries.count) entries did not survive writing and reading") }
    let replay = HARReplayTransport(log: log, matchingBody: size % 2 == 0)
    runBlocking {
        for entry in log.entries.prefix(4) {
            guard let url = URL(string: entry.request.url), let method = try? HTTPMethod(entry.request.method) else {
                continue
            }
            var request = HTTPRequest(method: method, url: url)
            if let text = entry.request.postData?.text { request.body = HTTPBody(text) }
            guard let response = try? await replay.send(request, options: TransportOptions()) else { continue }
            if let body = response.body { _ = try? await body.collect(upTo: 1 << 20) }
        }
    }
    return 0
}
