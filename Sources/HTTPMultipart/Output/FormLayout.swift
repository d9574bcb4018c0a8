import Foundation

/// A form flattened into the byte segments of its body, in order, with the total length.
///
/// Every output (memory, disk, stream) walks the same layout, so they write the same bytes.
/// The body follows RFC 2046 §5.1.1: each part opens with `--boundary` CRLF and its
/// header fields, a blank line and the content; a CRLF ends the content; the body
/// closes with `--boundary--` CRLF.
struct FormLayout: Sendable {
    enum Segment: Sendable {
        /// Delimiters and header fields.
        case bytes(Data)
        /// A part's content.
        case content(MultipartPart)

        var length: Int64 {
            switch self {
            case .bytes(let data): return Int64(data.count)
            case .content(let part): return part.contentLength
            }
        }
    }

    let segments: [Segment]
    let length: Int64
    let isReplayable: Bool

    init(parts: [MultipartPart], boundary: MultipartBoundary) {
        let open = Data("--\(boundary.value)\r\n".utf8)
        var segments: [Segment] = []
        segments.reserveCapacity(parts.count * 2 + 1)
        var pending = Data()
        for part in parts {
            pending.append(open)
            pending.append(part.headerBytes())
            segments.append(.bytes(pending))
            segments.append(.content(part))
            pending = Data()
            pending.append(contentsOf: [0x0D, 0x0A])
        }
        pending.append(Data("--\(boundary.value)--\r\n".utf8))
        segments.append(.bytes(pending))
        self.segments = segments
        self.length = segments.reduce(0) { $0 + $1.length }
        self.isReplayable = parts.allSatisfy(\.isReplayable)
    }
}
