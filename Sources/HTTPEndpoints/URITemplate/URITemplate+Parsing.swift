extension URITemplate {
    /// Reads a template into ``Step``s, checking it against the grammar of RFC 6570 §2.
    ///
    /// The template is read as an array of Unicode scalars, so a position in it is the
    /// ``URITemplateError/offset`` an error reports.
    struct Parser {
        /// The steps read so far.
        private(set) var steps: [Step] = []
        /// The literal and name bytes the steps point into.
        private(set) var bytes: [UInt8] = []
        /// The name of each variable step so far.
        private(set) var specNames: [String] = []
        private let template: String
        private let scalars: [Unicode.Scalar]
        /// Where the literal being read starts in `bytes`.
        private var literalStart = 0

        init(_ template: String) {
            self.template = template
            self.scalars = Array(template.unicodeScalars)
        }

        /// Parses the whole template into ``steps``, ``bytes`` and ``specNames``.
        mutating func parse() throws(URITemplateError) {
            var index = 0
            while index < scalars.count {
                let scalar = scalars[index]
                switch scalar {
                case "{":
                    flushLiteral()
                    index = try parseExpression(open: index)
                case "}":
                    throw failure(
                        .unexpectedClosingBrace, at: index,
                        "unexpected closing brace: no expression is open here (write a literal \"}\" as %7D)")
                case "%":
                    // RFC 6570 §2.1: a "%" in a literal must start a pct-encoded triplet,
                    // which §3.1 copies as is.
                    guard isHexTriplet(at: index) else {
                        throw failure(
                            .invalidLiteral, at: index,
                            "invalid literal: \"%\" does not start a %XX escape (write a percent sign as %25)")
                    }
                    for offset in 0..<3 { bytes.append(UInt8(scalars[index + offset].value)) }
                    index += 3
                default:
                    try appendLiteral(scalar, at: index)
                    index += 1
                }
            }
            flushLiteral()
        }

        // MARK: Literals (RFC 6570 §2.1, §3.1)

        /// Appends one literal character in its expanded form: characters allowed in a
        /// URI are copied, other allowed characters (`ucschar`, `iprivate`) are written
        /// as the pct-encoded octets of their UTF-8 form (§3.1).
        private mutating func appendLiteral(_ scalar: Unicode.Scalar, at index: Int) throws(URITemplateError) {
            let value = scalar.value
            if value < 0x80 {
                // The ASCII characters §2.1 allows in literals are exactly the unreserved
                // and reserved characters of RFC 3986, which §3.1 copies as they are; "'"
                // (which the §2.1 ABNF omits, though §1.5 counts it as reserved and the
                // spec's own examples use it) is one of them.
                guard ByteSet.unreservedAndReserved.contains(UInt8(value)) else {
                    throw failure(
                        .invalidLiteral, at: index,
                        "invalid literal: \(Self.describe(scalar)) is not allowed in a URI template outside an "
                            + "expression (RFC 6570 §2.1); write it percent-encoded")
                }
                bytes.append(UInt8(value))
                return
            }
            guard Self.isUCSCharOrPrivate(value) else {
                throw failure(
                    .invalidLiteral, at: index,
                    "invalid literal: \(Self.describe(scalar)) is not allowed in a URI template (RFC 6570 §2.1); "
                        + "write it percent-encoded")
            }
            for byte in String(Character(scalar)).utf8 {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(PercentEncoding.hexDigit(byte >> 4))
                bytes.append(PercentEncoding.hexDigit(byte & 0x0F))
            }
        }

        private mutating func flushLiteral() {
            guard bytes.count > literalStart else { return }
            steps.append(.literal(start: literalStart, count: bytes.count - literalStart))
            literalStart = bytes.count
        }

        /// RFC 6570 §1.5 `ucschar` and `iprivate`: the non-ASCII code points a literal may hold.
        private static func isUCSCharOrPrivate(_ value: UInt32) -> Bool {
            switch value {
            case 0xA0...0xD7FF, 0xE000...0xFDCF, 0xFDF0...0xFFEF:
                return true
            case 0x10000...0x10FFFF:
                // Every plane but the last two code points of each (xxFFFE, xxFFFF), and
                // not the start of plane 14 (E0000-E0FFF).
                return value & 0xFFFF <= 0xFFFD && !(0xE0000...0xE0FFF).contains(value)
            default:
                return false
            }
        }

        // MARK: Expressions (RFC 6570 §2.2-§2.4)

        /// Parses the expression whose `{` is at `open` into steps; returns the index after its `}`.
        private mutating func parseExpression(open: Int) throws(URITemplateError) -> Int {
            var index = open + 1
            guard index < scalars.count else { throw unclosed(open) }
            var expressionOperator = Operator.simple
            let head = scalars[index]
            if head == "}" {
                throw failure(
                    .emptyExpression, at: open,
                    "empty expression: \"{}\" names no variable (write literal braces as %7B%7D)")
            }
            if let parsed = Operator(head) {
                expressionOperator = parsed
                index += 1
            } else if Self.reservedOperators.contains(head) {
                throw failure(
                    .invalidOperator, at: index,
                    "invalid operator: \(Self.describe(head)) is not an RFC 6570 operator "
                        + "(use one of + # . / ; ? & or none)")
            }
            var variables: [Variable] = []
            while true {
                let (variable, next) = try parseVariable(at: index, open: open)
                variables.append(variable)
                // parseVariable stops only at "," or "}".
                index = next + 1
                if scalars[next] == "}" { break }
            }
            steps.append(.expression(expressionOperator, offset: open))
            for variable in variables {
                let nameStart = bytes.count
                bytes.append(contentsOf: variable.name.utf8)
                steps.append(
                    .variable(
                        expressionOperator, nameStart: nameStart, nameCount: bytes.count - nameStart,
                        prefix: variable.prefix, explode: variable.explode, offset: open))
                specNames.append(variable.name)
            }
            literalStart = bytes.count
            return index
        }

        /// A variable specification as read, before it becomes a step.
        private struct Variable {
            let name: String
            let prefix: Int
            let explode: Bool
        }

        /// Parses `varname [ ":" max-length / "*" ]` at `start`; returns it and the index
        /// of the "," or "}" after it.
        private func parseVariable(at start: Int, open: Int) throws(URITemplateError) -> (Variable, Int) {
            var index = start
            var endsWithDot = false
            // varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded
            scan: while index < scalars.count {
                let scalar = scalars[index]
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_":
                    index += 1
                case "%":
                    for offset in 1...2 {
                        guard index + offset < scalars.count else { throw unclosed(open) }
                        guard Self.isHexDigit(scalars[index + offset]) else {
                            throw failure(
                                .invalidVariableName, at: index,
                                "invalid variable name: \"%\" does not start a %XX escape")
                        }
                    }
                    index += 3
                case ".":
                    if index == start {
                        throw failure(
                            .invalidVariableName, at: index, "invalid variable name: a name cannot start with \".\"")
                    }
                    if endsWithDot {
                        throw failure(
                            .invalidVariableName, at: index, "invalid variable name: a name cannot contain \"..\"")
                    }
                    endsWithDot = true
                    index += 1
                    continue scan
                default:
                    break scan
                }
                endsWithDot = false
            }
            guard index < scalars.count else { throw unclosed(open) }
            if index == start {
                let scalar = scalars[index]
                if scalar == "{" { throw unclosed(open, nested: index) }
                if scalar == "}" || scalar == "," {
                    throw failure(.invalidVariableName, at: index, "invalid variable name: the name is empty")
                }
                throw failure(
                    .invalidVariableName, at: index,
                    "invalid variable name: \(Self.describe(scalar)) cannot start a variable name "
                        + "(names are letters, digits, \"_\", \".\" and %XX escapes)")
            }
            if endsWithDot {
                throw failure(
                    .invalidVariableName, at: index - 1, "invalid variable name: a name cannot end with \".\"")
            }
            var nameScalars = String.UnicodeScalarView()
            nameScalars.append(contentsOf: scalars[start..<index])
            let name = String(nameScalars)
            var prefix = 0
            var explode = false
            switch scalars[index] {
            case ":":
                (prefix, index) = try parsePrefix(at: index + 1, open: open)
            case "*":
                explode = true
                index += 1
            default:
                break
            }
            guard index < scalars.count else { throw unclosed(open) }
            let scalar = scalars[index]
            switch scalar {
            case ",", "}":
                return (Variable(name: name, prefix: prefix, explode: explode), index)
            case "{":
                throw unclosed(open, nested: index)
            default:
                if prefix > 0 {
                    throw failure(
                        .invalidPrefix, at: index,
                        "invalid prefix: \(Self.describe(scalar)) is not a digit (write \"{\(name):3}\")")
                }
                let after = explode ? "after the explode modifier \"*\" of" : "in"
                throw failure(
                    .invalidVariableName, at: index,
                    "invalid variable name: \(Self.describe(scalar)) is not allowed \(after) \"\(name)\" "
                        + "(names are letters, digits, \"_\", \".\" and %XX escapes)")
            }
        }

        /// Parses the `max-length` of a prefix modifier starting at `start` (after ":"):
        /// `%x31-39 0*3DIGIT`, 1 to 9999 (RFC 6570 §2.4.1). Returns it and the index after it.
        private func parsePrefix(at start: Int, open: Int) throws(URITemplateError) -> (Int, Int) {
            var index = start
            var length = 0
            while index < scalars.count, Self.isDigit(scalars[index]) {
                if index - start < 5 { length = length * 10 + Int(scalars[index].value - 0x30) }
                index += 1
            }
            guard index > start else {
                guard index < scalars.count else { throw unclosed(open) }
                throw failure(
                    .invalidPrefix, at: index,
                    "invalid prefix: \":\" must be followed by a length from 1 to 9999, not "
                        + Self.describe(scalars[index]))
            }
            if scalars[start] == "0" {
                let reason =
                    index - start == 1
                    ? "invalid prefix: the length must be from 1 to 9999, not 0"
                    : "invalid prefix: the length cannot start with a zero"
                throw failure(.invalidPrefix, at: start, reason)
            }
            if index - start > 4 {
                throw failure(
                    .prefixTooLarge, at: start, "prefix too large: the length must be at most 9999 (RFC 6570 §2.4.1)")
            }
            if index < scalars.count, scalars[index] == "*" {
                throw failure(
                    .invalidPrefix, at: index,
                    "invalid prefix: a variable cannot have both a prefix and the explode modifier \"*\"")
            }
            return (length, index)
        }

        // MARK: Helpers

        /// Characters that cannot start an expression: the operators RFC 6570 §2.2 reserves
        /// (`op-reserve`) and the other RFC 3986 reserved characters that are neither an
        /// operator nor a variable name character.
        private static let reservedOperators: Set<Unicode.Scalar> = [
            "=", ",", "!", "@", "|", "$", "(", ")", "*", ":", "'", "[", "]",
        ]

        private func isHexTriplet(at index: Int) -> Bool {
            index + 2 < scalars.count && Self.isHexDigit(scalars[index + 1]) && Self.isHexDigit(scalars[index + 2])
        }

        private static func isHexDigit(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar {
            case "0"..."9", "a"..."f", "A"..."F": return true
            default: return false
            }
        }

        private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
            ("0"..."9").contains(scalar)
        }

        /// A character as an error message shows it: quoted when printable ASCII,
        /// otherwise by code point.
        static func describe(_ scalar: Unicode.Scalar) -> String {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            switch scalar.value {
            case 0x20: return "a space (U+0020)"
            case 0x21...0x7E: return "\"\(scalar)\""
            case 0x00...0x1F, 0x7F...0x9F: return "the control character \(code)"
            default: return "\"\(scalar)\" (\(code))"
            }
        }

        private func unclosed(_ open: Int, nested: Int? = nil) -> URITemplateError {
            let reason =
                if let nested {
                    "unclosed expression: the \"{\" has no matching \"}\" before the \"{\" at offset \(nested)"
                } else {
                    "unclosed expression: the \"{\" has no matching \"}\""
                }
            return failure(.unclosedExpression, at: open, reason)
        }

        private func failure(_ code: URITemplateError.Code, at offset: Int, _ reason: String) -> URITemplateError {
            URITemplateError(code, template: template, offset: offset, reason: reason)
        }
    }
}
