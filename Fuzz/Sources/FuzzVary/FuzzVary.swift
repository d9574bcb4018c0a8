import Foundation
import FuzzSupport
import HTTPCache
import HTTPClient
import HTTPCore

/// `Vary` on outside input. The input's first part holds the lines of a response's `Vary`
/// (one field per line), the second the request's header fields (`Name: value` lines). The
/// parsed names must be lowercased, non-empty and without repeats, at most one past the
/// limit of 64 (a longer `Vary` is never stored); then a `CachingTransport` stores the
/// response and looks it up with those request fields and with none: nothing may crash, and
/// a response nominating `*` or more than 64 names is never a hit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVary(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let (varyLines, requestLines) = halves(data, size)
    var head = HTTPResponse(status: .ok)
    for line in varyLines.split(separator: "\n") {
        guard let field = try? HTTPField(name: .vary, value: String(line)) else { continue }
        head.headerFields.append(field)
    }
    head.headerFields.append(try! HTTPField(name: .cacheControl, value: "max-age=60"))
    let entry = CacheEntry(
        key: CacheKey(partition: "", uri: "https://fuzz.example/a"), head: head, requestTime: Date(),
        responseTime: Date())
    let names = entry.varyNames
    guard names.count <= 65, Set(names).count == names.count,
        names.allSatisfy({ !$0.isEmpty && $0 == $0.lowercased() })
    else { fatalError("Vary parsed as \(names)") }
    let request = fields(fromLines: requestLines)
    let stored = head
    let unstorable = names.contains("*") || names.count > 64
    reused.reset { request in TransportResponse(head: stored, body: request.method == .head ? nil : HTTPBody("vary")) }
    runBlocking {
        let client = reused.client
        var get = HTTPRequest.get("a")
        get.headerFields = request
        for call in [get, get, .get("a")] {
            guard let response = try? await client.send(call) else { continue }
            if unstorable, response.cacheOutcome == .hit { fatalError("a hit for Vary \(names.prefix(5))…") }
        }
    }
    return 0
}

/// The client and cache every input uses.
let reused = ReusedCacheClient()
