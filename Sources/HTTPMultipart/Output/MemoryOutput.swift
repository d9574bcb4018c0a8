import Foundation

/// Encodes a form into one `Data` of exactly the layout's length, allocated once.
enum MemoryOutput {
    static func encode(_ layout: FormLayout) async throws(MultipartError) -> Data {
        guard layout.length <= Int64(Int.max) else {
            throw MultipartError(
                .invalidLength, value: String(layout.length), reason: "the form is too large to encode in memory")
        }
        var output = Data(count: Int(layout.length))
        var position = 0
        for segment in layout.segments {
            var reader = try SegmentReader(segment)
            while reader.remaining > 0 {
                try await reader.prepare()
                let start = position
                let result: Result<Int, MultipartError> = output.withUnsafeMutableBytes { buffer in
                    do throws(MultipartError) {
                        return .success(
                            try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[start...])))
                    } catch {
                        return .failure(error)
                    }
                }
                position += try result.get()
            }
            try await reader.finish()
        }
        return output
    }
}
