import Dispatch
import Foundation
import FuzzSupport
import HTTPCache
import HTTPClient
import HTTPCore

/// The HTTP cache on outside input. An even first byte: the rest is a response head (a
/// status line of digits, then `Name: value` lines) that an origin sends, stored and served
/// by a `CachingTransport` through `GET`, `HEAD`, a validation answered `304` with the same
/// fields, and a `POST`, on a clock moved by the input: nothing may crash, and every
/// response the cache serves has an `Age` of digits and a `Cache-Status` naming it. An odd
/// first byte: the rest is the content of a `DiskCacheStorage` entry file, which the storage
/// must read or drop, never crash on, leaving no file it could not read.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCache(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Data(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] % 2 == 0 { exerciseTransport(bytes) } else { exerciseFile(bytes) }
    return 0
}

/// A clock the input moves.
final class InputClock: @unchecked Sendable {
    // Invariant: `now` is read and written under `lock`.
    private let lock = NSLock()
    private var now = Date(timeIntervalSince1970: 1_800_000_000)

    func read() -> Date { lock.withLock { now } }
    func advance(_ seconds: Double) { lock.withLock { now = now.addingTimeInterval(seconds) } }
    func reset() { lock.withLock { now = Date(timeIntervalSince1970: 1_800_000_000) } }
}

/// The clock of the cache every input uses, set back for each input.
let clock = InputClock()

/// The client and cache every input uses (a client and cache made per input cost ten times
/// the input's own work): the origin answers with the fuzzed head, `304` for a conditional
/// request.
let reused: ReusedCacheClient = {
    var configuration = CacheConfiguration()
    configuration.clock = CacheClock { clock.read() }
    configuration.offlineWindow = .seconds(60)
    return ReusedCacheClient(configuration: configuration, redirectLimit: 0)
}()

func exerciseTransport(_ bytes: Data) {
    let text = String(decoding: bytes, as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let code = Int(lines.first?.prefix(3) ?? "") ?? 200
    if !lines.isEmpty { lines.removeFirst() }
    guard let status = try? HTTPStatus(code: min(599, max(200, code))) else { return }
    var fields = HTTPFields()
    for line in lines {
        guard let colon = line.firstIndex(of: ":"),
            let field = try? HTTPField(name: String(line[..<colon]), value: String(line[line.index(after: colon)...]))
        else { continue }
        fields.append(field)
    }
    clock.reset()
    let head = HTTPResponse(status: status, headerFields: fields)
    reused.reset { request in
        if request.headerFields.contains(.ifNoneMatch) || request.headerFields.contains(.ifModifiedSince) {
            return TransportResponse(
                head: HTTPResponse(status: .notModified, headerFields: head.headerFields), body: nil)
        }
        let empty = request.method == .head || head.status.code == 204 || head.status.code == 304
        return TransportResponse(head: head, body: empty ? nil : HTTPBody("fuzzed body"))
    }
    let client = reused.client
    let cache = reused.cache
    let advances = bytes.prefix(4).map { Double($0) * 7 }
    let done = DispatchSemaphore(value: 0)
    Task {
        defer { done.signal() }
        let requests: [HTTPRequest] = [
            .get("a"), .get("a"), HTTPRequest(method: .head, url: URL(string: "a")!),
            .get("a").header(.cacheControl, "max-stale=30, min-fresh=5"), .post("a"), .get("a"),
        ]
        for (index, request) in requests.enumerated() {
            clock.advance(index < advances.count ? advances[index] : 1)
            guard let response = try? await client.send(request) else { continue }
            await cache.backgroundRevalidationsFinished()
            guard let outcome = response.cacheOutcome else {
                fatalError("a response without the cache's Cache-Status: \(response.headerFields)")
            }
            if outcome == .hit, let age = response.headerFields[.age], age.isEmpty || !age.allSatisfy(\.isNumber) {
                fatalError("a hit with the Age \(age.debugDescription)")
            }
        }
    }
    done.wait()
}

func exerciseFile(_ bytes: Data) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heron-fuzz-cache-\(getpid())")
    try? FileManager.default.removeItem(at: directory)
    defer { try? FileManager.default.removeItem(at: directory) }
    guard (try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)) != nil else {
        return
    }
    let file = directory.appendingPathComponent("00000000-0000-0000-0000-000000000000.entry")
    guard (try? bytes.write(to: file)) != nil, let storage = try? DiskCacheStorage(directory: directory) else { return }
    if storage.count == 0, FileManager.default.fileExists(atPath: file.path) {
        fatalError("an entry file the storage could not read was left in place")
    }
    for key in [CacheKey(partition: "", uri: "https://fuzz.example/a")] {
        for entry in storage.entries(for: key) { _ = storage.body(of: entry) }
    }
}
