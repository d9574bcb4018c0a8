extension URITemplate {
    /// The value of a template variable: a string, a list of strings or an associative
    /// array of string pairs (RFC 6570 §2.3).
    ///
    /// Literals make each kind: a string literal a ``string(_:)``, an array literal a
    /// ``list(_:)``, a dictionary literal an ``associative(_:)`` whose pairs keep the order
    /// written.
    ///
    /// ```swift
    /// let values: [String: URITemplate.Value] = [
    ///     "owner": "apple",  // .string
    ///     "labels": ["bug", "help wanted"],  // .list
    ///     "sort": ["field": "created", "dir": "desc"],  // .associative, in this order
    /// ]
    /// ```
    ///
    /// A list or an associative array with no members is *undefined* (RFC 6570 §2.3): it
    /// expands to nothing, as a missing variable does. An empty string is defined.
    public enum Value: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
        ExpressibleByDictionaryLiteral, ExpressibleByIntegerLiteral
    {
        /// A single string; a prefix modifier such as `{name:3}` may shorten it.
        case string(String)
        /// An ordered list of strings, joined with commas, or one per separator when
        /// exploded (`{list*}`).
        case list([String])
        /// An ordered list of (key, value) pairs, expanded in this order as
        /// `key,value,key,value`, or `key=value` per separator when exploded (`{keys*}`).
        case associative([(key: String, value: String)])

        /// Creates a string value from a string literal.
        /// - Parameter value: The string.
        public init(stringLiteral value: String) {
            self = .string(value)
        }

        /// Creates a string value from an integer literal, in decimal: `15` is `"15"`.
        /// - Parameter value: The integer.
        public init(integerLiteral value: Int) {
            self = .string(String(value))
        }

        /// Creates a list value from an array literal of strings.
        /// - Parameter elements: The members, in order.
        public init(arrayLiteral elements: String...) {
            self = .list(elements)
        }

        /// Creates an associative array from a dictionary literal, keeping the pairs in the
        /// order written (duplicate keys are kept too).
        /// - Parameter elements: The (key, value) pairs, in order.
        public init(dictionaryLiteral elements: (String, String)...) {
            self = .associative(elements.map { (key: $0.0, value: $0.1) })
        }

        /// Whether two values are the same kind with the same members in the same order.
        /// - Parameters:
        ///   - lhs: A value.
        ///   - rhs: Another value.
        /// - Returns: `true` when both are equal strings, equal lists, or associative
        ///   arrays with equal pairs in the same order.
        public static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.string(let left), .string(let right)):
                return left == right
            case (.list(let left), .list(let right)):
                return left == right
            case (.associative(let left), .associative(let right)):
                return left.count == right.count
                    && zip(left, right).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            default:
                return false
            }
        }

        /// Hashes the kind and the members in order, consistently with ``==(_:_:)``.
        /// - Parameter hasher: The hasher to feed.
        public func hash(into hasher: inout Hasher) {
            switch self {
            case .string(let string):
                hasher.combine(0)
                hasher.combine(string)
            case .list(let list):
                hasher.combine(1)
                hasher.combine(list)
            case .associative(let pairs):
                hasher.combine(2)
                hasher.combine(pairs.count)
                for pair in pairs {
                    hasher.combine(pair.key)
                    hasher.combine(pair.value)
                }
            }
        }

        /// Whether RFC 6570 §2.3 counts the value as defined: every string is, a list or
        /// an associative array only with at least one member.
        var isDefined: Bool {
            switch self {
            case .string: return true
            case .list(let list): return !list.isEmpty
            case .associative(let pairs): return !pairs.isEmpty
            }
        }
    }
}
