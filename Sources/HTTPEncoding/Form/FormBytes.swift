import Foundation

/// A growable byte buffer in one `malloc` block, for the arena and the output of a form.
///
/// It grows with `realloc`, which moves large blocks by remapping pages instead of
/// copying them, writes percent-encoded text with one capacity check per string instead
/// of one per byte, and hands its memory to `Data` without a copy. It is a plain struct
/// around a pointer: its single owner calls ``takeData()`` or ``free()`` exactly once.
struct FormBytes {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    /// An empty buffer with room for `capacity` bytes.
    init(capacity: Int) {
        self.capacity = max(64, capacity)
        guard let memory = malloc(self.capacity) else {
            fatalError("out of memory allocating \(self.capacity) bytes for a form")
        }
        base = memory.assumingMemoryBound(to: UInt8.self)
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    /// Appends the UTF-8 of `string` percent-encoded per RFC 3986 §2.1: only the
    /// unreserved characters of §2.3 stay bare; a space is `+` when `plusForSpace`, else `%20`.
    @inline(__always)
    mutating func appendPercentEncoded(_ string: String, plusForSpace: Bool) {
        var string = string
        string.withUTF8 { bytes in
            if count + bytes.count * 3 > capacity { grow(to: count + bytes.count * 3) }
            var index = count
            for byte in bytes {
                if PercentEncoding.isUnreserved(byte) {
                    base[index] = byte
                    index += 1
                } else if byte == 0x20 && plusForSpace {
                    base[index] = UInt8(ascii: "+")
                    index += 1
                } else {
                    base[index] = UInt8(ascii: "%")
                    base[index + 1] = PercentEncoding.hexDigit(byte >> 4)
                    base[index + 2] = PercentEncoding.hexDigit(byte & 0x0F)
                    index += 3
                }
            }
            count = index
        }
    }

    /// Appends the decimal digits of `value`.
    @inline(__always)
    mutating func appendDigits(_ value: UInt64) {
        if count + 20 > capacity { grow(to: count + 20) }
        if value < 10 {
            base[count] = UInt8(truncatingIfNeeded: value) + UInt8(ascii: "0")
            count += 1
            return
        }
        var width = 1
        var probe = value
        while probe >= 10 {
            probe /= 10
            width += 1
        }
        var rest = value
        var index = count + width - 1
        while rest > 0 {
            base[index] = UInt8(truncatingIfNeeded: rest % 10) + UInt8(ascii: "0")
            rest /= 10
            index -= 1
        }
        count += width
    }

    /// Appends a bracket of the key syntax: `[` or `]` when `literal`, else `%5B` or `%5D`.
    @inline(__always)
    mutating func appendBracket(open: Bool, literal: Bool) {
        if literal {
            append(open ? UInt8(ascii: "[") : UInt8(ascii: "]"))
        } else {
            append(UInt8(ascii: "%"))
            append(UInt8(ascii: "5"))
            append(open ? UInt8(ascii: "B") : UInt8(ascii: "D"))
        }
    }

    /// Appends the key suffix of the array element at `index`: `[]`, `[index]`, or nothing.
    @inline(__always)
    mutating func appendArraySuffix(_ index: Int, style: FormStyle) {
        switch style.arrays.kind {
        case .brackets:
            appendBracket(open: true, literal: style.brackets.literal)
            appendBracket(open: false, literal: style.brackets.literal)
        case .indexed:
            appendBracket(open: true, literal: style.brackets.literal)
            appendDigits(UInt64(index))
            appendBracket(open: false, literal: style.brackets.literal)
        case .noBrackets:
            return
        }
    }

    /// Drops the bytes from `newCount` on.
    mutating func truncate(to newCount: Int) {
        count = min(count, max(0, newCount))
    }

    /// Calls `body` with the bytes written so far; the pointer is valid only inside `body`.
    @inline(__always)
    func withUnsafeBufferPointer<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The bytes as `Data`, which takes over the memory.
    func takeData() -> Data {
        Data(bytesNoCopy: base, count: count, deallocator: .free)
    }

    /// Frees the memory.
    func free() {
        Foundation.free(base)
    }

    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        guard let grown = realloc(base, newCapacity) else {
            fatalError("out of memory growing a form to \(newCapacity) bytes")
        }
        base = grown.assumingMemoryBound(to: UInt8.self)
        capacity = newCapacity
    }
}
