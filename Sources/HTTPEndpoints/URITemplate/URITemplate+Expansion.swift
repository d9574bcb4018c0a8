extension URITemplate {
    /// Expands the template with values from a dictionary.
    ///
    /// Each expression is expanded as RFC 6570 §3.2 and Appendix A define: a variable
    /// that is missing from `variables`, or whose value is a list or associative array
    /// with no members, is undefined and contributes nothing; an expression whose
    /// variables are all undefined expands to nothing, not even its operator's leading
    /// character. An empty string is defined: `{?q}` with `q` set to `""` gives `?q=`.
    ///
    /// ```swift
    /// let template = try URITemplate("/users/{id}{?fields*}")
    /// let path = try template.expand(["id": "42", "fields": ["name", "email"]])
    /// // "/users/42?fields=name&fields=email"
    /// ```
    ///
    /// - Parameter variables: The values of the template's variables, by name as written
    ///   in the template (see ``variableNames``). Extra entries are ignored.
    /// - Returns: The expanded URI reference; its characters are all ASCII.
    /// - Throws: ``URITemplateError`` with the code
    ///   ``URITemplateError/Code-swift.struct/prefixOnComposite`` when a variable with a
    ///   prefix modifier (`{name:3}`) has a list or associative array value.
    public func expand(_ variables: [String: Value]) throws(URITemplateError) -> String {
        try render { name in variables[name] }
    }

    /// Expands the template with values from a function, called once per variable
    /// specification in template order.
    ///
    /// Use it when the values live somewhere other than a dictionary, or to fail on a
    /// variable you require. Expansion follows RFC 6570 §3.2 as in the dictionary
    /// variant: returning `nil`, an empty list or an empty associative array leaves the
    /// variable undefined.
    ///
    /// ```swift
    /// let template = try URITemplate("/repos{/owner,repo}")
    /// let path = try template.expand { name in name == "owner" ? "apple" : "swift" }
    /// // "/repos/apple/swift"
    /// ```
    ///
    /// - Parameter lookup: Returns the value of the variable named by its argument (the
    ///   name as written in the template), or `nil` when it is undefined.
    /// - Returns: The expanded URI reference; its characters are all ASCII.
    /// - Throws: Any error `lookup` throws, unchanged; ``URITemplateError`` with the code
    ///   ``URITemplateError/Code-swift.struct/prefixOnComposite`` when a variable with a
    ///   prefix modifier has a list or associative array value.
    public func expand(_ lookup: (String) throws(URITemplateError) -> Value?) throws(URITemplateError) -> String {
        try render(lookup)
    }

    /// Expansion in one pass over the steps: each variable is looked up once, checked,
    /// and written as UTF-8 bytes into stack memory (moved to the heap if it grows past
    /// it); the bytes become a string once, at the end.
    @inline(__always)
    private func render(_ lookup: (String) throws(URITemplateError) -> Value?) throws(URITemplateError) -> String {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.stackCapacity) {
            (stack) throws(URITemplateError) -> String in
            var output = Output(stack)
            defer { output.releaseHeapMemory() }
            try bytes.withUnsafeBufferPointer { (storage) throws(URITemplateError) in
                try write(storage.baseAddress!, to: &output, lookup)
            }
            return output.makeString()
        }
    }

    /// The bytes of stack memory an expansion starts in.
    private static var stackCapacity: Int { 512 }

    /// Writes the expansion (RFC 6570 Appendix A) of every step; `bytes` is the start of
    /// the template's literal and name bytes.
    @inline(__always)
    private func write(
        _ bytes: UnsafePointer<UInt8>, to output: inout Output, _ lookup: (String) throws(URITemplateError) -> Value?
    ) throws(URITemplateError) {
        var specIndex = 0
        var isFirst = true
        for step in steps {
            switch step.kind {
            case .literal:
                output.reserve(step.count)
                output.append(bytes + step.start, count: step.count)
            case .expression:
                isFirst = true
            case .variable:
                let value = try lookup(specNames[specIndex])
                specIndex += 1
                // RFC 6570 §2.3: a missing variable, an empty list and an empty
                // associative array are undefined and expand to nothing (§3.2.1).
                guard let value, value.isDefined else { continue }
                if step.prefix > 0 { try checkPrefix(on: value, step) }
                output.reserve(Self.lengthBound(of: value, nameLength: step.count))
                if isFirst {
                    isFirst = false
                    if step.first != 0 { output.append(step.first) }
                } else {
                    output.append(step.separator)
                }
                output.append(value, of: step, name: UnsafeBufferPointer(start: bytes + step.start, count: step.count))
            }
        }
    }

    /// RFC 6570 §2.4.1: "Prefix modifiers are not applicable to variables that have
    /// composite values."
    private func checkPrefix(on value: Value, _ step: Step) throws(URITemplateError) {
        let kind: String
        switch value {
        case .string: return
        case .list: kind = "a list"
        case .associative: kind = "an associative array"
        }
        let name = String(decoding: bytes[step.start..<step.start + step.count], as: UTF8.self)
        throw URITemplateError(
            .prefixOnComposite, template: text, offset: step.offset,
            reason: "prefix on a composite value: \"\(name)\" is \(kind), and the prefix modifier "
                + "\":\(step.prefix)\" applies only to strings (RFC 6570 §2.4.1)")
    }

    /// An upper bound of the bytes `value` adds to an expression: its `first` or `sep`,
    /// its name and `=`, and every byte of its members percent-encoded (3 bytes each).
    @inline(__always)
    private static func lengthBound(of value: Value, nameLength: Int) -> Int {
        let overhead = nameLength + 2
        switch value {
        case .string(let string):
            return overhead + 3 * string.utf8.count
        case .list(let list):
            var bound = overhead
            for item in list { bound += overhead + 3 * item.utf8.count }
            return bound
        case .associative(let pairs):
            var bound = overhead
            for pair in pairs { bound += overhead + 3 * (pair.key.utf8.count + pair.value.utf8.count) }
            return bound
        }
    }
}

extension URITemplate {
    /// Output bytes: a write position in memory that starts as the caller's stack buffer
    /// and moves to the heap when ``reserve(_:)`` finds it too small. Only `reserve`
    /// checks room: every append after it writes without checks, within the bound
    /// reserved.
    private struct Output {
        private var base: UnsafeMutablePointer<UInt8>
        private var cursor: UnsafeMutablePointer<UInt8>
        private var end: UnsafeMutablePointer<UInt8>
        private var isOnHeap = false

        init(_ stack: UnsafeMutableBufferPointer<UInt8>) {
            base = stack.baseAddress!
            cursor = base
            end = base + stack.count
        }

        /// Makes room for `count` more bytes.
        @inline(__always)
        mutating func reserve(_ count: Int) {
            if end - cursor < count { grow(count) }
        }

        @inline(never)
        private mutating func grow(_ count: Int) {
            let used = cursor - base
            let capacity = max(2 * (end - base), used + count)
            let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            memory.initialize(from: base, count: used)
            if isOnHeap { base.deallocate() }
            base = memory
            cursor = memory + used
            end = memory + capacity
            isOnHeap = true
        }

        /// Frees the heap memory the output moved to, if it did.
        func releaseHeapMemory() {
            if isOnHeap { base.deallocate() }
        }

        /// The bytes written, as a string (they are ASCII).
        func makeString() -> String {
            String(decoding: UnsafeBufferPointer(start: base, count: cursor - base), as: UTF8.self)
        }

        @inline(__always)
        mutating func append(_ byte: UInt8) {
            cursor.initialize(to: byte)
            cursor += 1
        }

        @inline(__always)
        mutating func append(_ bytes: UnsafePointer<UInt8>, count: Int) {
            cursor.initialize(from: bytes, count: count)
            cursor += count
        }

        @inline(__always)
        mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            append(bytes.baseAddress!, count: bytes.count)
        }

        /// Writes one defined value of a variable, after the expression's `first` or
        /// `sep` (RFC 6570 Appendix A, "if varspec has a value").
        @inline(__always)
        mutating func append(_ value: Value, of step: Step, name: UnsafeBufferPointer<UInt8>) {
            let reserved = step.allowsReserved
            switch value {
            case .string(let string):
                if step.isNamed {
                    append(name)
                    if string.isEmpty {
                        if step.writesEqualsWhenEmpty { append(UInt8(ascii: "=")) }
                        return
                    }
                    append(UInt8(ascii: "="))
                }
                appendEncoded(string, prefix: step.prefix, allowsReserved: reserved)
            case .list(let list) where step.explode:
                // Exploded list: one member per separator, each named for named operators.
                for (index, item) in list.enumerated() {
                    if index > 0 { append(step.separator) }
                    if step.isNamed {
                        append(name)
                        if item.isEmpty {
                            if step.writesEqualsWhenEmpty { append(UInt8(ascii: "=")) }
                            continue
                        }
                        append(UInt8(ascii: "="))
                    }
                    appendEncoded(item, prefix: 0, allowsReserved: reserved)
                }
            case .list(let list):
                // Unexploded list: the members joined with ",".
                if step.isNamed {
                    append(name)
                    append(UInt8(ascii: "="))
                }
                for (index, item) in list.enumerated() {
                    if index > 0 { append(UInt8(ascii: ",")) }
                    appendEncoded(item, prefix: 0, allowsReserved: reserved)
                }
            case .associative(let pairs) where step.explode:
                // Exploded associative array: `key=value` per separator; for named
                // operators an empty value takes the operator's "ifemp".
                for (index, pair) in pairs.enumerated() {
                    if index > 0 { append(step.separator) }
                    appendEncoded(pair.key, prefix: 0, allowsReserved: reserved)
                    if step.isNamed, pair.value.isEmpty {
                        if step.writesEqualsWhenEmpty { append(UInt8(ascii: "=")) }
                        continue
                    }
                    append(UInt8(ascii: "="))
                    appendEncoded(pair.value, prefix: 0, allowsReserved: reserved)
                }
            case .associative(let pairs):
                // Unexploded associative array: `key,value,key,value`.
                if step.isNamed {
                    append(name)
                    append(UInt8(ascii: "="))
                }
                for (index, pair) in pairs.enumerated() {
                    if index > 0 { append(UInt8(ascii: ",")) }
                    appendEncoded(pair.key, prefix: 0, allowsReserved: reserved)
                    append(UInt8(ascii: ","))
                    appendEncoded(pair.value, prefix: 0, allowsReserved: reserved)
                }
            }
        }

        /// Writes a string's first `prefix` Unicode scalars (all of it for 0),
        /// percent-encoded for the operator.
        @inline(__always)
        mutating func appendEncoded(_ string: String, prefix: Int, allowsReserved: Bool) {
            let written: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
                appendEncoded(bytes, prefix: prefix, allowsReserved: allowsReserved)
            }
            if written == nil {
                // A string without contiguous UTF-8 (a bridged NSString): copy it once.
                Array(string.utf8).withUnsafeBufferPointer { bytes in
                    appendEncoded(bytes, prefix: prefix, allowsReserved: allowsReserved)
                }
            }
        }

        /// RFC 6570 §3.2.1: characters of the allowed set are copied; every other byte of
        /// the UTF-8 form is written as a `%XX` triplet. With `allowsReserved` (U+R, the
        /// `+` and `#` operators), the allowed set adds the reserved characters and a
        /// `%XX` triplet already in the value is copied as is; a `%` that starts no triplet
        /// is encoded as `%25`.
        @inline(__always)
        mutating func appendEncoded(_ bytes: UnsafeBufferPointer<UInt8>, prefix: Int, allowsReserved: Bool) {
            guard let source = bytes.baseAddress else { return }
            let end = prefix > 0 ? PercentEncoding.prefixEnd(bytes, scalars: prefix) : bytes.count
            let allowed = allowsReserved ? ByteSet.unreservedAndReserved : ByteSet.unreserved
            var out = cursor
            var index = 0
            while index < end {
                let byte = source[index]
                if allowed.contains(byte) {
                    out.initialize(to: byte)
                    out += 1
                    index += 1
                    continue
                }
                if allowsReserved, byte == UInt8(ascii: "%"), index + 2 < end,
                    PercentEncoding.isHexDigit(source[index + 1]), PercentEncoding.isHexDigit(source[index + 2])
                {
                    out.initialize(from: source + index, count: 3)
                    out += 3
                    index += 3
                    continue
                }
                out[0] = UInt8(ascii: "%")
                out[1] = PercentEncoding.hexDigit(byte >> 4)
                out[2] = PercentEncoding.hexDigit(byte & 0x0F)
                out += 3
                index += 1
            }
            cursor = out
        }
    }
}
