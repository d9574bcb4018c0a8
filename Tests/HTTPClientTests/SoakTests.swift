import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

/// Many mixed calls through a client with the full interceptor stack, against httpbin and
/// the fault server: every call ends as its kind says, and nothing is left behind.
///
/// The suite runs a small soak (1,000 calls, 16 at a time). `scripts/soak` runs the full one
/// (`HERON_SOAK_CALLS=10000 HERON_SOAK_CONCURRENCY=64`, alone) and sets `HERON_SOAK_STRICT`:
/// then resident memory at the end must be within 10% of what it was after the first tenth
/// of the calls, and the open file descriptors back to where they started. (Within the
/// whole suite, other tests open files and grow the heap meanwhile, so only the soak's own
/// leftovers are checked there.)
@Suite("Soak")
struct SoakTests {
    /// What one call does and how it must end.
    enum Kind: String, CaseIterable {
        case small, large, serverError, cancelled, download, retried
        /// Hostile servers: a head field past libcurl's limits (one of 200 KiB: a head of
        /// thousands of fields costs libcurl-based URLSession seconds each, see
        /// `HostileServerTests`), a reset inside the body, a stream that goes quiet past its
        /// idle timeout.
        case hugeHead, resetMidBody, quietStream
    }

    /// Counts what the observer and the logger saw, to show the stack ran.
    final class Tally: Sendable {
        let events = Locked(0)
        let lines = Locked(0)
    }

    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// Entries of the temporary directory (the soak's own folder, made after the count, is
    /// removed before the second count).
    static func temporaryEntries() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path).count) ?? 0
    }

    @Test(
        "mixed calls (small, 1 MiB, errors, cancels, downloads, retries, hostile heads, resets, quiet streams) end as expected and leave nothing behind"
    )
    func soak() async throws {
        let calls = SoakSettings.environment("HERON_SOAK_CALLS", 1_000)
        let concurrency = SoakSettings.environment("HERON_SOAK_CONCURRENCY", 16)
        let strict = ProcessInfo.processInfo.environment["HERON_SOAK_STRICT"] != nil
        // HERON_SOAK_KINDS=small,large narrows the mix, to find which kind of call grows memory.
        let kinds =
            ProcessInfo.processInfo.environment["HERON_SOAK_KINDS"].map {
                $0.split(separator: ",").compactMap { Kind(rawValue: String($0)) }
            } ?? Kind.allCases
        let httpbin = try TestServers.httpbin()
        let fault = try TestServers.faultServer()
        let downloads = FileManager.default.temporaryDirectory.appending(path: "heron-soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: downloads) }

        let tally = Tally()
        let descriptorsBefore = Self.openDescriptors()
        let temporaryBefore = Self.temporaryEntries()
        var residentAfterTenth = 0
        var residentAtEnd = 0
        var failures: [String] = []
        // The client lives in this block only: its session, and the connections it keeps
        // open for reuse, are closed when it ends.
        do {
            let client = Client(
                interceptors: [
                    DefaultHeaderFields(HTTPFields([try HTTPField(name: .userAgent, value: "heron-soak")])),
                    BearerAuth(token: "soak-token"),
                    Logging(.line) { _ in tally.lines.withLock { $0 += 1 } },
                    ResponseValidation(),
                ],
                observers: [EventObserver { _ in tally.events.withLock { $0 += 1 } }],
                retry: [.status([503], max: 2), .backoff(.constant(0.01), jitter: .none)],
                timeout: .seconds(60))

            func run(_ index: Int) async -> String? {
                let kind = kinds[index % kinds.count]
                do {
                    switch kind {
                    case .small:
                        let response = try await client.send(
                            HTTPRequest(method: .get, url: httpbin.appending(path: "get")))
                        return response.status == .ok && response.body.count > 0 ? nil : "small: \(response.status)"
                    case .large:
                        let response = try await client.send(
                            HTTPRequest(
                                method: .get,
                                url: fault.appending(path: "bytes").appending(queryItems: [
                                    .init(name: "n", value: "1048576")
                                ])))
                        return response.body.count == 1 << 20 && response.body[1000] == UInt8(1000 % 256)
                            ? nil : "large: \(response.body.count) bytes"
                    case .serverError:
                        do {
                            _ = try await client.send(
                                HTTPRequest(method: .get, url: httpbin.appending(path: "status/500")))
                            return "serverError: no error"
                        } catch let error as ClientError where error.code == .validationFailed {
                            return nil
                        }
                    case .cancelled:
                        let task = Task {
                            try await client.send(
                                HTTPRequest(
                                    method: .get,
                                    url: fault.appending(path: "delay").appending(queryItems: [
                                        .init(name: "seconds", value: "5")
                                    ])))
                        }
                        try await Task.sleep(for: .milliseconds(20))
                        task.cancel()
                        switch await task.result {
                        case .failure(let error as ClientError) where error.code == .cancelled: return nil
                        case let other: return "cancelled: \(other)"
                        }
                    case .download:
                        let destination = downloads.appending(path: "file-\(index)")
                        let response = try await client.download(
                            HTTPRequest(
                                method: .get,
                                url: fault.appending(path: "bytes").appending(queryItems: [
                                    .init(name: "n", value: "65536")
                                ])),
                            to: destination)
                        let size = try FileManager.default.attributesOfItem(atPath: response.body.path)[.size] as? Int
                        try FileManager.default.removeItem(at: destination)
                        return size == 65536 ? nil : "download: \(size ?? -1) bytes"
                    case .hugeHead:
                        do {
                            _ = try await client.send(
                                HTTPRequest(
                                    method: .get,
                                    url: fault.appending(path: "huge-head").appending(queryItems: [
                                        .init(name: "field_bytes", value: "204800")
                                    ])))
                            return "hugeHead: no error"
                        } catch let error as ClientError where error.code == .responseTooLarge {
                            return nil
                        }
                    case .resetMidBody:
                        do {
                            _ = try await client.send(
                                HTTPRequest(
                                    method: .get,
                                    url: fault.appending(path: "reset-mid-body").appending(queryItems: [
                                        .init(name: "declared", value: "100000"), .init(name: "send", value: "1000"),
                                    ])))
                            return "resetMidBody: no error"
                        } catch let error as ClientError where error.code == .truncatedBody {
                            return nil
                        }
                    case .quietStream:
                        let response = try await client.stream(
                            HTTPRequest(
                                method: .get,
                                url: fault.appending(path: "slow").appending(queryItems: [
                                    .init(name: "bytes", value: "2"), .init(name: "chunks", value: "2"),
                                    .init(name: "interval", value: "10"),
                                ])
                            ).idleTimeout(.milliseconds(200)))
                        do {
                            for try await _ in response.body {}
                            return "quietStream: no error"
                        } catch let error as ClientError where error.code == .timedOut {
                            return nil
                        }
                    case .retried:
                        let url = fault.appending(path: "flaky").appending(queryItems: [
                            .init(name: "key", value: "soak-\(UUID().uuidString)"), .init(name: "fail", value: "1"),
                        ])
                        let response = try await client.send(HTTPRequest(method: .get, url: url))
                        return response.metrics.attempts.count == 2
                            ? nil : "retried: \(response.metrics.attempts.count)"
                    }
                } catch {
                    return "\(kind): \(error)"
                }
            }

            var next = 0
            await withTaskGroup(of: String?.self) { group in
                for _ in 0..<min(concurrency, calls) {
                    let index = next
                    group.addTask { await run(index) }
                    next += 1
                }
                var done = 0
                for await failure in group {
                    done += 1
                    if let failure, failures.count < 20 { failures.append(failure) }
                    if done == calls / 10 { residentAfterTenth = SoakSettings.residentBytes() }
                    if next < calls {
                        let index = next
                        group.addTask { await run(index) }
                        next += 1
                    }
                }
            }
            residentAtEnd = SoakSettings.residentBytes()
        }
        // Let the session's connections and finished transfers close.
        try await Task.sleep(for: .seconds(2))
        let descriptorsAfter = Self.openDescriptors()
        let temporaryAfter = Self.temporaryEntries()
        print(
            "soak: \(calls) calls at concurrency \(concurrency): \(failures.count) unexpected; RSS after the first "
                + "tenth \(residentAfterTenth / 1024) KiB, at the end \(residentAtEnd / 1024) KiB "
                + "(\(String(format: "%.3f", Double(residentAtEnd) / Double(max(1, residentAfterTenth))))x); "
                + "descriptors \(descriptorsBefore) before, \(descriptorsAfter) after; temporary directory entries "
                + "\(temporaryBefore) before, \(temporaryAfter) after; "
                + "\(tally.lines.withLock { $0 }) log lines, \(tally.events.withLock { $0 }) observer events")

        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        // The downloads' folder holds no partial or leftover file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: downloads.path).isEmpty)
        #expect(tally.lines.withLock { $0 } >= calls)
        if strict {
            #expect(Double(residentAtEnd) <= 1.1 * Double(residentAfterTenth))
            #expect(descriptorsAfter <= descriptorsBefore + 2)
            #expect(temporaryAfter == temporaryBefore)
        }
    }
}
