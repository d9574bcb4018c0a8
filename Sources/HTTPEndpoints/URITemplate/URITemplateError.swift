/// The error a ``URITemplate`` throws: a template that RFC 6570 does not allow, or a
/// value that cannot be expanded into it.
///
/// Parsing errors come from ``URITemplate/init(_:)``; the only expansion error,
/// ``Code-swift.struct/prefixOnComposite``, comes from `URITemplate.expand(_:)`.
/// Every error names the template, where in it the problem is and what the problem is:
///
/// ```swift
/// do {
///     _ = try URITemplate("/users/{id")
/// } catch {
///     print(error)  // invalid URI template "/users/{id" at offset 7: unclosed expression: ...
///     print(error.code == .unclosedExpression, error.offset)  // true 7
/// }
/// ```
public struct URITemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is. New codes may be added: switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable identifier of the code, such as `"unclosedExpression"`.
        public let rawValue: String

        /// Creates a code from its identifier.
        /// - Parameter rawValue: A stable identifier.
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// An expression opened with `{` is not closed by `}` before the template ends or
        /// before the next `{` (RFC 6570 §2.2).
        public static let unclosedExpression = Code("unclosedExpression")
        /// A `}` outside any expression (RFC 6570 §2.1: `}` is not a literal).
        public static let unexpectedClosingBrace = Code("unexpectedClosingBrace")
        /// The expression starts with a character reserved for future operators
        /// (`=`, `,`, `!`, `@`, `|`, RFC 6570 §2.2) or another reserved character that is
        /// neither an operator nor a variable name character (`$`, `(`, `)`, `*`, `:`, …).
        public static let invalidOperator = Code("invalidOperator")
        /// A variable name is empty or is not `varchar *( ["."] varchar )`, where a
        /// varchar is a letter, a digit, `_` or a valid `%XX` triplet (RFC 6570 §2.3).
        public static let invalidVariableName = Code("invalidVariableName")
        /// A prefix modifier is not `:` followed by 1 to 4 digits without a leading zero,
        /// or is combined with the explode modifier (RFC 6570 §2.4).
        public static let invalidPrefix = Code("invalidPrefix")
        /// A prefix modifier's length is larger than 9999 (RFC 6570 §2.4.1).
        public static let prefixTooLarge = Code("prefixTooLarge")
        /// A character outside expressions that RFC 6570 §2.1 does not allow as a literal
        /// (a space, a control character, `"`, `<`, `>`, `\`, `^`, a backquote, `|`), or a `%`
        /// that does not start a `%XX` triplet.
        public static let invalidLiteral = Code("invalidLiteral")
        /// A prefix modifier applied to a list or an associative array at expansion
        /// (RFC 6570 §2.4.1: prefixes apply to string values only).
        public static let prefixOnComposite = Code("prefixOnComposite")
        /// An expression with nothing between its braces, `{}` (RFC 6570 §2.2).
        public static let emptyExpression = Code("emptyExpression")

        /// The identifier.
        public var description: String { rawValue }
    }

    /// What kind of problem this is.
    public let code: Code
    /// The template text, as given to ``URITemplate/init(_:)``.
    public let template: String
    /// Where the problem is: the number of Unicode scalars (not characters, not UTF-8
    /// bytes) from the start of ``template`` to the offending character, or to the `{`
    /// of the offending expression for ``Code-swift.struct/unclosedExpression``,
    /// ``Code-swift.struct/emptyExpression`` and
    /// ``Code-swift.struct/prefixOnComposite``.
    ///
    /// `template.unicodeScalars.index(template.unicodeScalars.startIndex, offsetBy: offset)`
    /// is the position; it equals `template.unicodeScalars.count` for a problem at the end.
    public let offset: Int
    /// A sentence that names the problem, such as
    /// `unclosed expression: the "{" has no matching "}"`.
    public let reason: String

    init(_ code: Code, template: String, offset: Int, reason: String) {
        self.code = code
        self.template = template
        self.offset = offset
        self.reason = reason
    }

    /// The template, the offset and the reason, in one line a person can act on, such as
    /// `invalid URI template "{/id*" at offset 0: unclosed expression: ...`.
    public var description: String {
        let verb = code == .prefixOnComposite ? "cannot expand URI template" : "invalid URI template"
        return "\(verb) \(Self.quoted(template)) at offset \(offset): \(reason)"
    }

    /// `text` in double quotes, with quotes, backslashes and control characters escaped
    /// as in a Swift string literal, so that the description stays on one line.
    static func quoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\r": quoted += "\\r"
            case "\t": quoted += "\\t"
            case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}":
                quoted += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }
}
