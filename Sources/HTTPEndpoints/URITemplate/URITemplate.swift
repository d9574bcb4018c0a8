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
    /// The parsed template: literals and expressions in order.
    let parts: [Part]
    /// The variable names, in order of first appearance, without repeats.
    let names: [String]
    /// The number of variable specifications in all expressions.
    let variableCount: Int
    /// The number of bytes the literals expand to.
    let literalByteCount: Int

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
        let parts = try parser.parse()
        var names: [String] = []
        var seen: Set<String> = []
        var variableCount = 0
        var literalByteCount = 0
        for part in parts {
            switch part {
            case .literal(let bytes):
                literalByteCount += bytes.count
            case .expression(let expression):
                variableCount += expression.variables.count
                for variable in expression.variables where seen.insert(variable.name).inserted {
                    names.append(variable.name)
                }
            }
        }
        self.text = template
        self.parts = parts
        self.names = names
        self.variableCount = variableCount
        self.literalByteCount = literalByteCount
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
    }

    /// Every variable specification of the template, in template order; a variable used
    /// in two expressions appears twice.
    var variableUses: [VariableUse] {
        var uses: [VariableUse] = []
        uses.reserveCapacity(variableCount)
        for case .expression(let expression) in parts {
            for variable in expression.variables {
                uses.append(
                    VariableUse(
                        name: variable.name,
                        operator: expression.operator,
                        prefix: variable.prefix == 0 ? nil : variable.prefix,
                        explode: variable.explode))
            }
        }
        return uses
    }

    /// A piece of a parsed template.
    enum Part: Sendable {
        /// Literal text, already in its expanded form (RFC 6570 §3.1): ASCII bytes.
        case literal([UInt8])
        /// An expression.
        case expression(Expression)
    }

    /// A parsed expression, with its operator's Appendix A behaviour copied out so that
    /// expansion reads plain stored fields.
    struct Expression: Sendable {
        /// The operator.
        let `operator`: Operator
        /// The offset of the `{` in Unicode scalars, for errors.
        let offset: Int
        /// The byte written before the first defined value, 0 for none.
        let first: UInt8
        /// The byte written between defined values.
        let separator: UInt8
        /// Whether values are written as `name=value`.
        let isNamed: Bool
        /// Whether an empty named value is written as `name=` rather than `name`.
        let writesEqualsWhenEmpty: Bool
        /// Whether reserved characters and `%XX` triplets in values are kept.
        let allowsReserved: Bool
        /// The variable specifications, in order.
        let variables: [Variable]

        init(operator: Operator, offset: Int, variables: [Variable]) {
            self.operator = `operator`
            self.offset = offset
            self.first = `operator`.first
            self.separator = `operator`.separator
            self.isNamed = `operator`.isNamed
            self.writesEqualsWhenEmpty = `operator`.writesEqualsWhenEmpty
            self.allowsReserved = `operator`.allowsReserved
            self.variables = variables
        }
    }

    /// A parsed variable specification (RFC 6570 §2.3, §2.4).
    struct Variable: Sendable {
        /// The name as written.
        let name: String
        /// The name's UTF-8 bytes, written as is by named operators (the grammar makes
        /// them ASCII: letters, digits, `_`, `.` and `%XX` triplets).
        let nameBytes: [UInt8]
        /// The prefix length, 0 for none.
        let prefix: Int
        /// Whether the explode modifier is present.
        let explode: Bool

        init(name: String, prefix: Int, explode: Bool) {
            self.name = name
            self.nameBytes = Array(name.utf8)
            self.prefix = prefix
            self.explode = explode
        }
    }
}
