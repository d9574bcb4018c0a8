import Foundation

/// The inputs of the benchmark, made here, the same in every run.
enum Corpus {
    /// Printable ASCII (no CR, no LF) that event payloads are cut from, fixed by a seed.
    static let pool: [UInt8] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<8192).map { _ in
            // SplitMix64.
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            mixed ^= mixed >> 31
            return UInt8(0x20 + mixed % 95)
        }
    }()

    /// The data of event `index` (from 1): its number, a colon, then 900 to 1,099 bytes of
    /// printable ASCII, so events fall at no fixed place in the 16 KiB chunks.
    static func payload(_ index: Int) -> [UInt8] {
        let length = 900 + (index &* 7919) % 200
        let offset = (index &* 104_729) % (pool.count - 1100)
        return Array("\(index):".utf8) + pool[offset..<(offset + length)]
    }

    /// A `text/event-stream` body of events `id: i`, `data: <payload(i)>`, each ended by a
    /// blank line, from event 1 until the body holds at least `bytes` bytes.
    struct EventStreamBody {
        /// The body.
        var bytes: [UInt8]
        /// How many events it holds.
        var events: Int
        /// The bytes of all their data together.
        var dataBytes: Int
    }

    /// The event stream of at least `bytes` bytes (a whole number of events).
    static func eventStream(bytes target: Int) -> EventStreamBody {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(target + 2048)
        var events = 0
        var dataBytes = 0
        while bytes.count < target {
            events += 1
            bytes += "id: \(events)\ndata: ".utf8
            let payload = payload(events)
            bytes += payload
            dataBytes += payload.count
            bytes += [0x0A, 0x0A]
        }
        return EventStreamBody(bytes: bytes, events: events, dataBytes: dataBytes)
    }

    /// `bytes` cut into chunks of `size` bytes (the last one shorter), each a `Data` of its
    /// own, as they would come off a connection.
    static func chunks(_ bytes: [UInt8], size: Int = 16 << 10) -> [Data] {
        stride(from: 0, to: bytes.count, by: size).map { Data(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    /// One JSON Lines record.
    struct Record: Decodable, Sendable, Equatable {
        var id: Int
        var name: String
        var active: Bool
    }

    /// What a reader of the JSON Lines saw, to check two readers saw the same.
    struct LinesSummary: Equatable, CustomStringConvertible {
        var count = 0
        var idSum = 0
        var active = 0
        var nameBytes = 0

        mutating func add(_ record: Record) {
            count += 1
            idSum &+= record.id
            if record.active { active += 1 }
            nameBytes += record.name.utf8.count
        }

        var description: String { "\(count) records, id sum \(idSum), \(active) active, \(nameBytes) name bytes" }
    }

    /// `count` lines such as `{"id":123,"name":"abc123","active":true}`, each ended by LF,
    /// and the summary of their records.
    static func jsonLines(count: Int) -> (bytes: [UInt8], summary: LinesSummary) {
        let names = ["abc", "delta", "kilo", "tango", "zulu", "echo", "xy"]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 48)
        var summary = LinesSummary()
        for index in 0..<count {
            let record = Record(
                id: index, name: names[index % names.count] + String(index % 1000), active: index % 3 == 0)
            bytes += #"{"id":\#(record.id),"name":"\#(record.name)","active":\#(record.active)}"#.utf8
            bytes.append(0x0A)
            summary.add(record)
        }
        return (bytes, summary)
    }
}
