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
    /// try template.expand(["id": "42", "fields": ["name", "email"]])
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

    /// Expansion in two passes: the first looks every variable up once, checks it and
    /// bounds the output's length; the second writes the bytes into a string of that
    /// capacity, with no further checks.
    @inline(__always)
    private func render(_ lookup: (String) throws(URITemplateError) -> Value?) throws(URITemplateError) -> String {
        guard variableCount > 0 else {
            // Literals only: the template expands to its literals, whatever the values.
            return String(decoding: parts.lazy.flatMap(\.literalBytes), as: UTF8.self)
        }
        return try withUnsafeTemporaryAllocation(of: Value?.self, capacity: variableCount) {
            (values) throws(URITemplateError) -> String in
            var resolved = 0
            defer { values.baseAddress!.deinitialize(count: resolved) }
            var capacity = literalByteCount
            for case .expression(let expression) in parts {
                capacity += 1
                for variable in expression.variables {
                    let value = try lookup(variable.name)
                    if let value {
                        try check(value, for: variable, in: expression)
                        capacity += Self.lengthBound(of: value, nameLength: variable.nameBytes.count)
                    }
                    values.initializeElement(at: resolved, to: value)
                    resolved += 1
                }
            }
            let input = UnsafeBufferPointer(values)
            guard capacity > Self.largeExpansion else {
                return String(unsafeUninitializedCapacity: capacity) { buffer in
                    write(input, to: buffer.baseAddress!)
                }
            }
            // A long expansion: write it into scratch memory and copy it into a string of
            // the exact length rather than keep the up to 3× over-allocation.
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity)
            defer { buffer.deallocate() }
            let count = write(input, to: buffer.baseAddress!)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
    }

    /// Above this many bytes of bound, the output is copied to a string of exact length.
    private static var largeExpansion: Int { 4096 }

    /// RFC 6570 §2.4.1: "Prefix modifiers are not applicable to variables that have
    /// composite values."
    private func check(_ value: Value, for variable: Variable, in expression: Expression) throws(URITemplateError) {
        guard variable.prefix > 0, value.isDefined else { return }
        let kind: String
        switch value {
        case .string: return
        case .list: kind = "a list"
        case .associative: kind = "an associative array"
        }
        throw URITemplateError(
            .prefixOnComposite, template: text, offset: expression.offset,
            reason: "prefix on a composite value: \"\(variable.name)\" is \(kind), and the prefix modifier "
                + "\":\(variable.prefix)\" applies only to strings (RFC 6570 §2.4.1)")
    }

    /// An upper bound of the bytes `value` adds to an expression: its separator, its
    /// name and `=`, and every byte of its members percent-encoded (3 bytes each).
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

    /// Writes the expansion (RFC 6570 Appendix A) from the values looked up in template
    /// order; returns the number of bytes written.
    private func write(_ values: UnsafeBufferPointer<Value?>, to start: UnsafeMutablePointer<UInt8>) -> Int {
        var output = Output(start)
        var valueIndex = 0
        for part in parts {
            switch part {
            case .literal(let bytes):
                output.append(bytes)
            case .expression(let expression):
                var isFirst = true
                for variable in expression.variables {
                    let value = values[valueIndex]
                    valueIndex += 1
                    guard let value, value.isDefined else { continue }
                    if isFirst {
                        isFirst = false
                        if expression.first != 0 { output.append(expression.first) }
                    } else {
                        output.append(expression.separator)
                    }
                    output.append(value, of: variable, in: expression)
                }
            }
        }
        return output.cursor - start
    }
}

extension URITemplate.Part {
    /// The bytes of a literal, none for an expression.
    fileprivate var literalBytes: [UInt8] {
        if case .literal(let bytes) = self { return bytes }
        return []
    }
}

extension URITemplate {
    /// A write position in memory that the caller sized with
    /// `URITemplate.lengthBound(of:nameLength:)`; nothing is checked.
    private struct Output {
        var cursor: UnsafeMutablePointer<UInt8>

        init(_ start: UnsafeMutablePointer<UInt8>) { cursor = start }

        @inline(__always)
        mutating func append(_ byte: UInt8) {
            cursor.initialize(to: byte)
            cursor += 1
        }

        @inline(__always)
        mutating func append(_ bytes: [UInt8]) {
            bytes.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                cursor.initialize(from: base, count: buffer.count)
                cursor += buffer.count
            }
        }

        /// Writes one defined value of a variable, after the expression's `first` or
        /// `sep` (RFC 6570 Appendix A, "if varspec has a value").
        @inline(__always)
        mutating func append(_ value: Value, of variable: Variable, in expression: Expression) {
            let reserved = expression.allowsReserved
            switch value {
            case .string(let string):
                if expression.isNamed {
                    append(variable.nameBytes)
                    if string.isEmpty {
                        if expression.writesEqualsWhenEmpty { append(UInt8(ascii: "=")) }
                        return
                    }
                    append(UInt8(ascii: "="))
                }
                appendEncoded(string, prefix: variable.prefix, allowsReserved: reserved)
            case .list(let list) where variable.explode:
                // Exploded list: one member per separator, each named for named operators.
                for (index, item) in list.enumerated() {
                    if index > 0 { append(expression.separator) }
                    if expression.isNamed {
                        append(variable.nameBytes)
                        if item.isEmpty {
                            if expression.writesEqualsWhenEmpty { append(UInt8(ascii: "=")) }
                            continue
                        }
                        append(UInt8(ascii: "="))
                    }
                    appendEncoded(item, prefix: 0, allowsReserved: reserved)
                }
            case .list(let list):
                // Unexploded list: the members joined with ",".
                if expression.isNamed {
                    append(variable.nameBytes)
                    append(UInt8(ascii: "="))
                }
                for (index, item) in list.enumerated() {
                    if index > 0 { append(UInt8(ascii: ",")) }
                    appendEncoded(item, prefix: 0, allowsReserved: reserved)
                }
            case .associative(let pairs) where variable.explode:
                // Exploded associative array: `key=value` per separator; for named
                // operators an empty value takes the operator's "ifemp".
                for (index, pair) in pairs.enumerated() {
                    if index > 0 { append(expression.separator) }
                    appendEncoded(pair.key, prefix: 0, allowsReserved: reserved)
                    if expression.isNamed, pair.value.isEmpty {
                        if expression.writesEqualsWhenEmpty { append(UInt8(ascii: "=")) }
                        continue
                    }
                    append(UInt8(ascii: "="))
                    appendEncoded(pair.value, prefix: 0, allowsReserved: reserved)
                }
            case .associative(let pairs):
                // Unexploded associative array: `key,value,key,value`.
                if expression.isNamed {
                    append(variable.nameBytes)
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
