import Foundation
import HTTPCore
import Testing

@testable import HTTPCache
@testable import HTTPClient

@Suite("CacheStorage: removals win over writers and updates begun before them")
struct CacheStorageTests {
    enum Kind: String, CaseIterable {
        case memory, disk
    }

    static let time = Date(timeIntervalSince1970: 1_800_000_000)

    /// A storage of `kind`, and its directory for a disk one.
    func makeStorage(_ kind: Kind) throws -> (any CacheStorage, URL?) {
        switch kind {
        case .memory: return (MemoryCacheStorage(), nil)
        case .disk:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "heron-cache-\(UUID().uuidString)")
            return (try DiskCacheStorage(directory: directory), directory)
        }
    }

    func entry(_ uri: String, partition: String = "") -> CacheEntry {
        CacheEntry(
            key: CacheKey(partition: partition, uri: uri), head: HTTPResponse(status: .ok), requestTime: Self.time,
            responseTime: Self.time)
    }

    /// Stores `entry` with `body` at once.
    func put(_ entry: CacheEntry, _ storage: any CacheStorage, body: String = "body") throws {
        let writer = try storage.makeWriter(for: entry, replacing: [])
        try writer.write(Data(body.utf8))
        try writer.commit()
    }

    func files(_ directory: URL?) throws -> [String] {
        guard let directory else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
    }

    @Test(
        "a writer begun before remove(_:for:) or removeAll(partition:) does not bring the entry back",
        arguments: Kind.allCases, ["remove", "partition", "all"])
    func writerAfterRemoval(_ kind: Kind, _ removal: String) throws {
        let (storage, directory) = try makeStorage(kind)
        defer { directory.map { try? FileManager.default.removeItem(at: $0) } }
        let new = entry("https://a.example/x", partition: "p")
        let writer = try storage.makeWriter(for: new, replacing: [])
        try writer.write(Data("late".utf8))
        switch removal {
        case "remove": try storage.remove([], for: new.key)
        case "partition": try storage.removeAll(partition: "p")
        default: try storage.removeAll(partition: nil)
        }
        // The commit says that it stored nothing, in memory as on disk.
        #expect(throws: ClientError.self) { try writer.commit() }
        #expect(try storage.entries(for: new.key).isEmpty)
        #expect(try files(directory).isEmpty)
        // A writer begun after the removal stores as usual.
        try put(entry("https://a.example/x", partition: "p"), storage)
        #expect(try storage.entries(for: new.key).count == 1)
    }

    @Test("removeAll(uri:) drops the URI in every partition, and a writer begun before it", arguments: Kind.allCases)
    func removeURI(_ kind: Kind) throws {
        let (storage, directory) = try makeStorage(kind)
        defer { directory.map { try? FileManager.default.removeItem(at: $0) } }
        for partition in ["", "p", "q"] {
            try put(entry("https://a.example/x", partition: partition), storage)
            try put(entry("https://a.example/y", partition: partition), storage)
        }
        let late = try storage.makeWriter(for: entry("https://a.example/x", partition: "r"), replacing: [])
        #expect(try storage.removeAll(uri: "https://a.example/x") == 3)
        try? late.commit()
        for partition in ["", "p", "q", "r"] {
            #expect(try storage.entries(for: CacheKey(partition: partition, uri: "https://a.example/x")).isEmpty)
        }
        #expect(try storage.entries(for: CacheKey(partition: "q", uri: "https://a.example/y")).count == 1)
        if let directory { #expect(try files(directory).count == 3) }
    }

    @Test(
        "removeAll(keepingPartition:) drops every other partition, and writers begun before", arguments: Kind.allCases)
    func removeAllButOne(_ kind: Kind) throws {
        let (storage, directory) = try makeStorage(kind)
        defer { directory.map { try? FileManager.default.removeItem(at: $0) } }
        for partition in ["", "auth-1", "auth-2"] {
            try put(entry("https://a.example/x", partition: partition), storage)
        }
        let late = try storage.makeWriter(for: entry("https://a.example/y", partition: "auth-2"), replacing: [])
        try storage.removeAll(keepingPartition: "")
        try? late.commit()
        #expect(try storage.entries(for: CacheKey(partition: "", uri: "https://a.example/x")).count == 1)
        for partition in ["auth-1", "auth-2"] {
            #expect(try storage.entries(for: CacheKey(partition: partition, uri: "https://a.example/x")).isEmpty)
        }
        #expect(try storage.entries(for: CacheKey(partition: "auth-2", uri: "https://a.example/y")).isEmpty)
        if let directory { #expect(try files(directory).count == 1) }
    }

    @Test("an update of an entry removed meanwhile leaves it removed", arguments: Kind.allCases)
    func updateAfterRemoval(_ kind: Kind) throws {
        let (storage, directory) = try makeStorage(kind)
        defer { directory.map { try? FileManager.default.removeItem(at: $0) } }
        let stored = entry("https://a.example/x")
        try put(stored, storage)
        let found = try #require(try storage.entries(for: stored.key).first)
        try storage.remove([found.id], for: stored.key)
        var updated = found
        updated.head.headerFields.append(try HTTPField(name: .eTag, value: "\"2\""))
        try storage.update(updated)
        #expect(try storage.entries(for: stored.key).isEmpty)
        #expect(try files(directory).isEmpty)
    }

    @Test("removing another partition or key leaves a writer alone", arguments: Kind.allCases)
    func unrelatedRemoval(_ kind: Kind) throws {
        let (storage, directory) = try makeStorage(kind)
        defer { directory.map { try? FileManager.default.removeItem(at: $0) } }
        let new = entry("https://a.example/x", partition: "p")
        let writer = try storage.makeWriter(for: new, replacing: [])
        try storage.removeAll(partition: "q")
        try storage.remove([], for: CacheKey(partition: "p", uri: "https://a.example/y"))
        try writer.commit()
        #expect(try storage.entries(for: new.key).count == 1)
    }
}

@Suite("CachingTransport: concurrent misses for one URL")
struct ConcurrentMissTests {
    @Test(
        "sixteen concurrent misses leave one entry per variant, within variantLimit",
        arguments: CacheStorageTests.Kind.allCases)
    func concurrentMisses(_ kind: CacheStorageTests.Kind) async throws {
        let (storage, directory) = try CacheStorageTests().makeStorage(kind)
        defer { if let directory { try? FileManager.default.removeItem(at: directory) } }
        let clock = ManualClock()
        // Each answer varies on X-Variant; the misses all arrive before the first is stored.
        let origin = ScriptedOrigin(delay: .milliseconds(200)) { _, number in
            ScriptedOrigin.response(
                .ok, ["Cache-Control": "max-age=60", "Vary": "X-Variant"], body: "answer \(number)", date: clock.now)
        }
        var configuration = CacheConfiguration()
        configuration.clock = clock.cacheClock
        configuration.variantLimit = 3
        let client = Client(
            baseURL: URL(string: "https://api.example.com")!,
            transport: CachingTransport(wrapping: origin, storage: storage, configuration: configuration),
            retry: .none)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    _ = try await client.send(.get("a").header("X-Variant", index < 12 ? "same" : "v\(index)"))
                }
            }
            try await group.waitForAll()
        }
        #expect(origin.count == 16)
        let key = CacheKey(url: URL(string: "https://api.example.com/a")!, partition: "")
        let stored = try storage.entries(for: key)
        // One entry for the twelve alike, and the newest others up to three variants in all.
        #expect(stored.count == 3)
        #expect(Set(stored.map(\.varyValues)).count == 3)
    }
}

@Suite("CacheStorage: the capacity bounds bodies in flight too")
struct InFlightCapacityTests {
    @Test(
        "bodies written at once never hold more than the capacity; one that would is refused and not stored",
        arguments: CacheStorageTests.Kind.allCases)
    func boundedWhileArriving(_ kind: CacheStorageTests.Kind) throws {
        let capacity: Int64 = (4 << 20) + 65_536  // four bodies of a MiB and their heads
        let storage: any CacheStorage
        let totals: () -> (cost: Int64, count: Int)
        var directory: URL?
        switch kind {
        case .memory:
            let memory = MemoryCacheStorage(capacity: capacity)
            (storage, totals) = (memory, { (memory.totalCost, memory.count) })
        case .disk:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "heron-cache-\(UUID().uuidString)")
            directory = folder
            let disk = try DiskCacheStorage(directory: folder, capacity: capacity)
            (storage, totals) = (disk, { (disk.totalCost, disk.count) })
        }
        defer { if let directory { try? FileManager.default.removeItem(at: directory) } }
        let chunk = Data(count: 1 << 20)
        let writers = try (0..<6).map { index in
            try storage.makeWriter(for: CacheStorageTests().entry("https://api.example.com/\(index)"), replacing: [])
        }
        // Each body grows a MiB at a time, side by side: six of 1.5 MiB would be 9 MiB at once.
        var refused = 0
        var alive = Array(writers.indices)
        for _ in 0..<2 {
            for index in alive {
                do {
                    try writers[index].write(chunk.prefix(index.isMultiple(of: 2) ? 1 << 20 : 1 << 19))
                } catch let error as ClientError {
                    #expect(error.code == .cacheStorageFailed)
                    refused += 1
                    alive.removeAll { $0 == index }
                }
            }
            if let directory {
                // What the temporary files hold on disk stays within the capacity too.
                let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                let bytes = try names.reduce(Int64(0)) { total, name in
                    let path = directory.appendingPathComponent(name).path
                    return total + ((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0)
                }
                #expect(bytes <= capacity + 64 * 1024)  // headers of the files aside
            }
        }
        #expect(refused > 0)
        for index in alive { try writers[index].commit() }
        #expect(totals().cost <= capacity)
        #expect(totals().count == alive.count)
        // Room is given back: a refused or committed body frees what it held.
        let later = try storage.makeWriter(
            for: CacheStorageTests().entry("https://api.example.com/later"), replacing: [])
        try later.write(Data(count: 3 << 20))
        try later.commit()
        #expect(totals().cost <= capacity)
    }
}
