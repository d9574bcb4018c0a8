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
        if kind == .disk {
            #expect(throws: ClientError.self) { try writer.commit() }
        } else {
            try writer.commit()
        }
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
