import Foundation

/// Encodes a form into one `Data` of exactly the layout's length, allocated once.
///
/// The buffer is allocated uninitialized (a `Data(count:)` would zero it first) and handed
/// to the `Data` without a copy once full.
enum MemoryOutput {
    static func encode(_ layout: FormLayout) async throws(MultipartError) -> Data {
        guard layout.length <= Int64(Int.max) else {
            throw MultipartError(
                .invalidLength, value: String(layout.length), reason: "the form is too large to encode in memory")
        }
        let count = Int(layout.length)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        var handedOver = false
        defer { if !handedOver { buffer.deallocate() } }
        var position = 0
        for segment in layout.segments {
            var reader = try SegmentReader(segment, chunkSize: MultipartForm.defaultChunkSize)
            while reader.remaining > 0 {
                try await reader.prepare()
                position += try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[position..<count]))
            }
            try await reader.finish()
        }
        guard position == count, let base = buffer.baseAddress else {
            throw MultipartError(
                .lengthMismatch, value: String(position), reason: "the form produced \(position) of \(count) bytes")
        }
        handedOver = true
        return Data(bytesNoCopy: base, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }
}
