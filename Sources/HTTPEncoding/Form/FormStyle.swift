/// The shape of an `application/x-www-form-urlencoded` form or query: how arrays,
/// bools, nested objects and `nil` are written, which characters stay bare, and the
/// order of keys.
///
/// ``FormEncoder`` writes this shape and ``FormDecoder`` reads it, so one style value
/// shared by a client and a server describes the wire format on both sides. Every
/// option's default is the most widely read spelling (PHP, Rack and Rails read it).
///
/// ```swift
/// var style = FormStyle()
/// style.arrays = .indexed     // tags[0]=a&tags[1]=b
/// style.bools = .literal      // on=true
/// style.nesting = .dots       // user.name=x
/// style.brackets = .literal   // [ and ] of the key syntax unescaped
/// let encoder = FormEncoder(style: style)
/// ```
public struct FormStyle: Hashable, Sendable {
    /// How array elements are keyed.
    public struct Arrays: Hashable, Sendable {
        enum Kind: Hashable, Sendable {
            case brackets
            case noBrackets
            case indexed
        }

        let kind: Kind

        /// `key[]=a&key[]=b`: the default, read by PHP, Rack and Rails.
        public static let brackets = Arrays(kind: .brackets)
        /// `key=a&key=b`: the key repeated, as HTML forms send multiple selections.
        /// Arrays holding arrays or objects cannot be written this way and throw.
        public static let noBrackets = Arrays(kind: .noBrackets)
        /// `key[0]=a&key[1]=b`: explicit positions, needed for arrays of objects read by PHP.
        public static let indexed = Arrays(kind: .indexed)
    }

    /// How `Bool` values are written.
    public struct Bools: Hashable, Sendable {
        let literal: Bool

        /// `1` and `0`: the default.
        public static let numeric = Bools(literal: false)
        /// `true` and `false`.
        public static let literal = Bools(literal: true)
    }

    /// How the keys of nested objects are joined.
    public struct Nesting: Hashable, Sendable {
        let dots: Bool

        /// `user[address][city]=x`: the default.
        public static let brackets = Nesting(dots: false)
        /// `user.address.city=x`, as Spring and ASP.NET bind forms. Array keys still use
        /// brackets (`user.tags[0]=a`).
        public static let dots = Nesting(dots: true)
    }

    /// How `nil` (an absent optional, `NSNull`) is written.
    public struct Nils: Hashable, Sendable {
        enum Kind: Hashable, Sendable {
            case omit
            case emptyValue
            case keyOnly
        }

        let kind: Kind

        /// Left out entirely: the default. A decoder reads the missing key as `nil`.
        public static let omit = Nils(kind: .omit)
        /// `key=`: an empty value. A decoder reads an empty value as `nil` for an optional.
        public static let emptyValue = Nils(kind: .emptyValue)
        /// `key` without `=`. A decoder reads a key without `=` as `nil`.
        public static let keyOnly = Nils(kind: .keyOnly)
    }

    /// How a space is written.
    public struct Spaces: Hashable, Sendable {
        enum Kind: Hashable, Sendable {
            case automatic
            case percent20
            case plus
        }

        let kind: Kind

        /// `+` in form bodies (the WHATWG URL Standard's application/x-www-form-urlencoded
        /// serializer) and `%20` in query strings (RFC 3986 §2.1): the default.
        public static let automatic = Spaces(kind: .automatic)
        /// Always `%20`.
        public static let percent20 = Spaces(kind: .percent20)
        /// Always `+`. A literal `+` is always written `%2B`, so this stays unambiguous.
        public static let plus = Spaces(kind: .plus)
    }

    /// The order in which the keys of an object are written.
    public struct KeyOrder: Hashable, Sendable {
        let sorted: Bool

        /// Sorted by the bytes of each key as written (percent-encoded) at every level: the
        /// default, so the same value always gives the same bytes (stable signatures,
        /// cacheable URLs), whatever order a dictionary yields its keys in and however its
        /// strings are normalised. Array elements always keep their order.
        public static let sorted = KeyOrder(sorted: true)
        /// In the order the value encoded them (a Swift `Dictionary` has no stable order).
        public static let asEncoded = KeyOrder(sorted: false)
    }

    /// How the `[` and `]` of the key syntax are written.
    public struct Brackets: Hashable, Sendable {
        let literal: Bool

        /// `%5B` and `%5D`: the default, since RFC 3986 §3.4 leaves them out of a query's
        /// allowed characters. Servers decode them before reading the key.
        public static let percentEncoded = Brackets(literal: false)
        /// `[` and `]` as they are, which many servers and people find easier to read.
        public static let literal = Brackets(literal: true)
    }

    /// The deepest a form nests: a pair's key has at most this many parts (`a[b][]` has
    /// three). ``FormEncoder`` refuses deeper values and ``FormDecoder`` deeper keys, so
    /// neither can exhaust the stack on hostile or runaway input.
    ///
    /// Encoding and decoding recurse once per level, through `Codable`'s containers: about
    /// 3.4 KiB of stack a level in a debug build, so 512 levels (the former limit) overflowed
    /// a thread with a 512 KiB stack, the size of many server and dispatch threads, at about
    /// 150. At 64 (PHP's default `max_input_nesting_level`) such a thread keeps most of its
    /// stack; the tests run both directions at this depth on one.
    public static let maximumDepth = 64

    /// How array elements are keyed; ``Arrays-swift.struct/brackets`` by default.
    public var arrays: Arrays
    /// How bools are written; ``Bools-swift.struct/numeric`` by default.
    public var bools: Bools
    /// How nested object keys are joined; ``Nesting-swift.struct/brackets`` by default.
    public var nesting: Nesting
    /// How `nil` is written; ``Nils-swift.struct/omit`` by default.
    public var nils: Nils
    /// How spaces are written; ``Spaces-swift.struct/automatic`` by default.
    public var spaces: Spaces
    /// The order of keys; ``KeyOrder-swift.struct/sorted`` by default.
    public var keyOrder: KeyOrder
    /// How the key syntax's brackets are written; ``Brackets-swift.struct/percentEncoded`` by default.
    public var brackets: Brackets

    /// Creates a style; every argument defaults to the most widely read spelling.
    /// - Parameters:
    ///   - arrays: How array elements are keyed.
    ///   - bools: How bools are written.
    ///   - nesting: How nested object keys are joined.
    ///   - nils: How `nil` is written.
    ///   - spaces: How spaces are written.
    ///   - keyOrder: The order of keys.
    ///   - brackets: How the key syntax's brackets are written.
    public init(
        arrays: Arrays = .brackets, bools: Bools = .numeric, nesting: Nesting = .brackets, nils: Nils = .omit,
        spaces: Spaces = .automatic, keyOrder: KeyOrder = .sorted, brackets: Brackets = .percentEncoded
    ) {
        self.arrays = arrays
        self.bools = bools
        self.nesting = nesting
        self.nils = nils
        self.spaces = spaces
        self.keyOrder = keyOrder
        self.brackets = brackets
    }
}
