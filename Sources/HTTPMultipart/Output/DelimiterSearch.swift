import Foundation

/// Finds a boundary delimiter in part content with a Boyer–Moore–Horspool scan, which
/// skips up to the delimiter's length per step (Foundation's `range(of:)` is byte by byte).
struct DelimiterSearch {
    private let pattern: [UInt8]
    private let skip: [Int]

    init(_ pattern: [UInt8]) {
        precondition(!pattern.isEmpty)
        self.pattern = pattern
        var skip = [Int](repeating: pattern.count, count: 256)
        for (index, byte) in pattern.dropLast().enumerated() { skip[Int(byte)] = pattern.count - 1 - index }
        self.skip = skip
    }

    /// Whether `data` contains the pattern.
    func occurs(in data: Data) -> Bool {
        let count = pattern.count
        guard data.count >= count else { return false }
        return data.withUnsafeBytes { (haystack: UnsafeRawBufferPointer) -> Bool in
            pattern.withUnsafeBytes { (needle: UnsafeRawBufferPointer) -> Bool in
                skip.withUnsafeBufferPointer { (skip: UnsafeBufferPointer<Int>) -> Bool in
                    guard let base = haystack.baseAddress, let needleBase = needle.baseAddress,
                        let skipBase = skip.baseAddress
                    else { return false }
                    let bytes = base.assumingMemoryBound(to: UInt8.self)
                    let last = count - 1
                    let lastByte = needle[last]
                    let end = haystack.count - count
                    var position = 0
                    while position <= end {
                        let byte = bytes[position + last]
                        if byte == lastByte && memcmp(base + position, needleBase, last) == 0 { return true }
                        position += skipBase[Int(byte)]
                    }
                    return false
                }
            }
        }
    }
}
