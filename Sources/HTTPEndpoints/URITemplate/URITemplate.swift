/// A URI template as defined by RFC 6570, levels 1 to 4: a string with `{...}`
/// expressions that expand into a URI or part of one.
///
/// The template is parsed once, when it is created, into literal bytes (already
/// percent-encoded where RFC 6570 §3.1 asks) and expressions whose operator and variable
/// specifications are split and ready; expanding it walks that form and writes UTF-8
/// bytes, so a template is cheap to keep in a `static let` and expand per request.
///
/// Every operator of RFC 6570 §3.2 is supported: simple `{var}`, reserved `{+var}`,
/// fragment `{#var}`, label `{.var}`, path segment `{/var}`, path parameter `{;var}`,
/// query `{?var}` and query continuation `{&var}`, with the prefix (`{var:3}`) and
/// explode (`{var*}`) modifiers. Values are strings, lists or associative arrays
/// (``Value``); a variable that is missing, or a list or associative array with no
/// members, is undefined and expands to nothing.
///
/// ```swift
/// let issues = try URITemplate("/repos{/owner,repo}/issues{?state,labels*,page}")
/// let path = try issues.expand([
///     "owner": "apple",
///     "repo": "swift",
///     "state": "open",
///     "labels": ["bug", "good first issue"],
/// ])
/// // "/repos/apple/swift/issues?state=open&labels=bug&labels=good%20first%20issue"
/// ```
///
/// Values are percent-encoded so that they cannot change the shape of the URI: in
/// `/users/{id}`, the id `../admin` becomes `/users/..%2Fadmin`. Only the reserved
/// (`{+path}`) and fragment (`{#frag}`) operators let reserved characters such as `/`
/// through, as RFC 6570 §3.2.3 defines.
public struct URITemplate: Sendable, Hashable, CustomStringConvertible {
    /// The template text, as given.
    let text: String
    /// The parsed template as a flat program of trivial steps, expanded in order.
    let steps: [Step]
    /// The literal bytes (already expanded) and the variable names' bytes the steps
    /// point into.
    let bytes: [UInt8]
    /// The name of each variable step, in template order: the keys expansion looks up.
    let specNames: [String]
    /// The variable names, in order of first appearance, without repeats.
    let names: [String]

    /// Parses a URI template.
    ///
    /// The whole template is checked against the grammar of RFC 6570 §2: literals
    /// (§2.1), expressions and their operators (§2.2), variable names (§2.3) and value
    /// modifiers (§2.4). Operators reserved for future extensions (`=`, `,`, `!`, `@`,
    /// `|`) are rejected.
    ///
    /// - Parameter template: The template text, such as `"/users/{id}{?fields*}"`.
    /// - Throws: ``URITemplateError`` when the text is not a valid template; its
    ///   ``URITemplateError/offset`` points at the problem.
    public init(_ template: String) throws(URITemplateError) {
        var parser = Parser(template)
        try parser.parse()
        var seen: Set<String> = []
        self.text = template
        self.steps = parser.steps
        self.bytes = parser.bytes
        self.specNames = parser.specNames
        self.names = parser.specNames.filter { seen.insert($0).inserted }
    }

    /// The template text, exactly as given to ``init(_:)``.
    public var description: String { text }

    /// The names of the template's variables, in order of first appearance, each once.
    ///
    /// For `"{/owner,repo}/issues{?state,owner}"` this is `["owner", "repo", "state"]`.
    /// A name is the text written in the template: `{Some%20Thing}` has the name
    /// `"Some%20Thing"`.
    public var variableNames: [String] { names }

    /// Whether two templates have the same text.
    /// - Parameters:
    ///   - lhs: A template.
    ///   - rhs: Another template.
    /// - Returns: `true` when both were created from equal strings.
    public static func == (lhs: URITemplate, rhs: URITemplate) -> Bool {
        lhs.text == rhs.text
    }

    /// Hashes the template text, consistently with ``==(_:_:)``.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(text)
    }
}

// MARK: - Parsed form

extension URITemplate {
    /// An expression operator (RFC 6570 §2.2), with the expansion behaviour the table of
    /// RFC 6570 Appendix A gives it.
    enum Operator: Sendable, Hashable, CaseIterable {
        /// No operator: `{var}` (§3.2.2).
        case simple
        /// `+`: `{+var}` (§3.2.3).
        case reserved
        /// `#`: `{#var}` (§3.2.4).
        case fragment
        /// `.`: `{.var}` (§3.2.5).
        case label
        /// `/`: `{/var}` (§3.2.6).
        case pathSegment
        /// `;`: `{;var}` (§3.2.7).
        case pathParameter
        /// `?`: `{?var}` (§3.2.8).
        case query
        /// `&`: `{&var}` (§3.2.9).
        case queryContinuation

        /// The operator written as `scalar` right after `{`, or `nil` if it is not one.
        init?(_ scalar: Unicode.Scalar) {
            switch scalar {
            case "+": self = .reserved
            case "#": self = .fragment
            case ".": self = .label
            case "/": self = .pathSegment
            case ";": self = .pathParameter
            case "?": self = .query
            case "&": self = .queryContinuation
            default: return nil
            }
        }

        /// The operator's character in a template, `nil` for ``simple``.
        var symbol: Character? {
            switch self {
            case .simple: return nil
            case .reserved: return "+"
            case .fragment: return "#"
            case .label: return "."
            case .pathSegment: return "/"
            case .pathParameter: return ";"
            case .query: return "?"
            case .queryContinuation: return "&"
            }
        }

        /// Appendix A "first": the byte written before the first defined value, 0 for none.
        var first: UInt8 {
            switch self {
            case .simple, .reserved: return 0
            case .fragment: return UInt8(ascii: "#")
            case .label: return UInt8(ascii: ".")
            case .pathSegment: return UInt8(ascii: "/")
            case .pathParameter: return UInt8(ascii: ";")
            case .query: return UInt8(ascii: "?")
            case .queryContinuation: return UInt8(ascii: "&")
            }
        }

        /// Appendix A "sep": the byte written between defined values.
        var separator: UInt8 {
            switch self {
            case .simple, .reserved, .fragment: return UInt8(ascii: ",")
            case .label: return UInt8(ascii: ".")
            case .pathSegment: return UInt8(ascii: "/")
            case .pathParameter: return UInt8(ascii: ";")
            case .query, .queryContinuation: return UInt8(ascii: "&")
            }
        }

        /// Appendix A "named": whether each value is written as `name=value`.
        var isNamed: Bool {
            switch self {
            case .pathParameter, .query, .queryContinuation: return true
            default: return false
            }
        }

        /// Appendix A "ifemp": whether a named empty value is written `name=` (`true`)
        /// or just `name` (`false`).
        var writesEqualsWhenEmpty: Bool {
            self == .query || self == .queryContinuation
        }

        /// Appendix A "allow": whether reserved characters and `%XX` triplets pass
        /// through unencoded (U+R), rather than only unreserved characters (U).
        var allowsReserved: Bool {
            self == .reserved || self == .fragment
        }
    }

    /// One variable specification of an expression, as written in the template.
    struct VariableUse: Sendable, Hashable {
        /// The variable name as written, such as `"per_page"` or `"Some%20Thing"`.
        let name: String
        /// The operator of the expression the variable is in.
        let `operator`: Operator
        /// The prefix length of `{name:n}` (1...9999), or `nil`.
        let prefix: Int?
        /// Whether the variable has the explode modifier, `{name*}`.
        let explode: Bool
        /// Whether the expression stands after a literal `?` or `#` of the template, so that
        /// its value lands in the query or the fragment, not the path.
        let afterLiteralQuery: Bool
    }

    /// Every variable specification of the template, in template order; a variable used
    /// in two expressions appears twice.
    var variableUses: [VariableUse] {
        var uses: [VariableUse] = []
        var names = specNames.makeIterator()
        var afterQuery = false
        for step in steps {
            switch step.kind {
            case .literal: if literal(of: step).contains(where: Self.isQueryDelimiter) { afterQuery = true }
            case .expression: continue
            case .variable:
                guard let name = names.next() else { continue }
                uses.append(
                    VariableUse(
                        name: name, operator: step.operator, prefix: step.prefix == 0 ? nil : step.prefix,
                        explode: step.explode, afterLiteralQuery: afterQuery))
            }
        }
        return uses
    }

    /// Whether the template's own path (its literals before any `?` or `#`, an expression
    /// standing for a segment of its own) has a `.` or `..` segment.
    var literalPathHasDotSegment: Bool {
        var path: [UInt8] = []
        for step in steps {
            switch step.kind {
            case .literal:
                let bytes = literal(of: step)
                if let end = bytes.firstIndex(where: Self.isQueryDelimiter) {
                    path += bytes[..<end]
                    return Self.hasDotSegment(path)
                }
                path += bytes
            case .expression: path.append(UInt8(ascii: "x"))
            case .variable: continue
            }
        }
        return Self.hasDotSegment(path)
    }

    /// Whether the template starts with a literal scheme, such as `https:`.
    var startsWithScheme: Bool {
        guard let first = steps.first, first.kind == .literal else { return false }
        let bytes = literal(of: first)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > bytes.startIndex else { return false }
        return bytes[..<colon].allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    /// For a template that starts with `scheme://` and an authority in its own text
    /// (`https://cdn.example.com{+path}`), that text up to the authority's end, and whether
    /// the text itself ends the authority (with `/`, `?` or `#`); `nil` when the template is
    /// relative or an expression writes the authority (`https://{host}/x`).
    var literalOrigin: (prefix: String, isClosed: Bool)? {
        guard startsWithScheme, let first = steps.first else { return nil }
        let text = literal(of: first)
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")),
            text[(colon + 1)...].starts(with: "//".utf8)
        else { return nil }
        let authorityStart = colon + 3
        let isDelimiter = { (byte: UInt8) in
            byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
        }
        if let end = text[authorityStart...].firstIndex(where: isDelimiter) {
            return (String(decoding: text[..<end], as: UTF8.self), true)
        }
        guard text.endIndex > authorityStart else { return nil }
        return (String(decoding: text, as: UTF8.self), false)
    }

    private func literal(of step: Step) -> ArraySlice<UInt8> { bytes[step.start..<step.start + step.count] }

    private static func isQueryDelimiter(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    private static func hasDotSegment(_ path: [UInt8]) -> Bool {
        path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains {
            $0.elementsEqual([UInt8(ascii: ".")]) || $0.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")])
        }
    }

    /// One step of a parsed template. Steps hold only trivial values, so walking them
    /// costs no reference counting.
    ///
    /// A template is a sequence of literal steps and expressions; an expression is an
    /// expression step followed by one variable step per variable specification. Each
    /// variable step carries its operator's Appendix A behaviour (RFC 6570), copied out
    /// so that expansion reads plain stored fields.
    struct Step: Sendable {
        enum Kind: UInt8, Sendable {
            /// `bytes[start..<start + count]` is literal output.
            case literal
            /// An expression starts; `first` is written before its first defined value.
            case expression
            /// A variable specification; `bytes[start..<start + count]` is its name.
            case variable
        }

        let kind: Kind
        /// The operator of the expression (not meaningful for literals).
        let `operator`: Operator
        /// Appendix A "first": the byte written before the first defined value, 0 for none.
        let first: UInt8
        /// Appendix A "sep": the byte written between defined values.
        let separator: UInt8
        /// Appendix A "named": whether values are written as `name=value`.
        let isNamed: Bool
        /// Appendix A "ifemp": whether an empty named value is written `name=` rather than `name`.
        let writesEqualsWhenEmpty: Bool
        /// Appendix A "allow": whether reserved characters and `%XX` triplets in values are kept.
        let allowsReserved: Bool
        /// Whether the variable has the explode modifier.
        let explode: Bool
        /// The variable's prefix length, 0 for none.
        let prefix: Int
        /// Where the literal or the name starts in the template's bytes.
        let start: Int
        /// The byte count of the literal or the name.
        let count: Int
        /// The offset of the expression's `{` in Unicode scalars, for errors.
        let offset: Int

        private init(
            kind: Kind, operator: Operator, explode: Bool = false, prefix: Int = 0, start: Int, count: Int,
            offset: Int
        ) {
            self.kind = kind
            self.operator = `operator`
            self.first = `operator`.first
            self.separator = `operator`.separator
            self.isNamed = `operator`.isNamed
            self.writesEqualsWhenEmpty = `operator`.writesEqualsWhenEmpty
            self.allowsReserved = `operator`.allowsReserved
            self.explode = explode
            self.prefix = prefix
            self.start = start
            self.count = count
            self.offset = offset
        }

        static func literal(start: Int, count: Int) -> Step {
            Step(kind: .literal, operator: .simple, start: start, count: count, offset: 0)
        }

        static func expression(_ operator: Operator, offset: Int) -> Step {
            Step(kind: .expression, operator: `operator`, start: 0, count: 0, offset: offset)
        }

        static func variable(
            _ operator: Operator, nameStart: Int, nameCount: Int, prefix: Int, explode: Bool, offset: Int
        ) -> Step {
            Step(
                kind: .variable, operator: `operator`, explode: explode, prefix: prefix, start: nameStart,
                count: nameCount, offset: offset)
        }
    }
}
