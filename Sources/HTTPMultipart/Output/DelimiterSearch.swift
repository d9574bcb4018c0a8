import Foundation

/// Finds a boundary delimiter in part content with a Boyer–Moore–Horspool scan, which
/// skips up to the delimiter's length per step (Foundation's `range(of:)` is byte by byte).
struct DelimiterSearch {
    private let pattern: [UInt8]
    private var skip = [Int](repeating: 0, count: 256)

    init(_ pattern: [UInt8]) {
        precondition(!pattern.isEmpty)
        self.pattern = pattern
        for index in 0..<256 { skip[index] = pattern.count }
        for (index, byte) in pattern.dropLast().enumerated() { skip[Int(byte)] = pattern.count - 1 - index }
    }

    /// Whether `data` contains the pattern.
    func occurs(in data: Data) -> Bool {
        let count = pattern.count
        guard data.count >= count else { return false }
        return data.withUnsafeBytes { (haystack: UnsafeRawBufferPointer) -> Bool in
            pattern.withUnsafeBytes { (needle: UnsafeRawBufferPointer) -> Bool in
                guard let base = haystack.baseAddress, let needleBase = needle.baseAddress else { return false }
                let last = count - 1
                let lastByte = needle[last]
                var position = 0
                while position <= haystack.count - count {
                    let byte = haystack[position + last]
                    if byte == lastByte && memcmp(base + position, needleBase, last) == 0 { return true }
                    position += skip[Int(byte)]
                }
                return false
            }
        }
    }
}
