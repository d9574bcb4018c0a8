import HTTPEndpoints
import Testing

/// Every `URITemplateError.Code`, with the offset it reports and a description that names
/// the problem.
@Suite("URITemplateError")
struct URITemplateErrorTests {
    /// A template that must fail, the code and offset it must fail with.
    struct Rejection: Sendable, CustomTestStringConvertible {
        let template: String
        let code: URITemplateError.Code
        let offset: Int
        var variables: [String: URITemplate.Value] = [:]

        var testDescription: String { "\(template.debugDescription) → \(code) at \(offset)" }
    }

    /// The words each code's reason starts with.
    static let phrases: [URITemplateError.Code: String] = [
        .unclosedExpression: "unclosed expression",
        .unexpectedClosingBrace: "unexpected closing brace",
        .invalidOperator: "invalid operator",
        .invalidVariableName: "invalid variable name",
        .invalidPrefix: "invalid prefix",
        .prefixTooLarge: "prefix too large",
        .invalidLiteral: "invalid literal",
        .prefixOnComposite: "prefix on a composite value",
        .emptyExpression: "empty expression",
    ]

    /// Fails `rejection.template` and returns the error, checking the code, offset,
    /// template and description.
    @discardableResult
    static func check(_ rejection: Rejection, sourceLocation: SourceLocation = #_sourceLocation) -> URITemplateError? {
        let error = #expect(throws: URITemplateError.self, sourceLocation: sourceLocation) {
            try URITemplate(rejection.template).expand(rejection.variables)
        }
        guard let error else { return nil }
        #expect(error.code == rejection.code, sourceLocation: sourceLocation)
        #expect(error.offset == rejection.offset, "\(error)", sourceLocation: sourceLocation)
        #expect(error.template == rejection.template, sourceLocation: sourceLocation)
        #expect(error.description.contains(" at offset \(error.offset): "), sourceLocation: sourceLocation)
        let phrase = phrases[error.code] ?? "?"
        #expect(error.reason.hasPrefix(phrase), "\(error.reason)", sourceLocation: sourceLocation)
        #expect(error.description.hasSuffix(": " + error.reason), sourceLocation: sourceLocation)
        return error
    }

    // MARK: One test per code

    @Test("unclosedExpression points at the unclosed brace")
    func unclosedExpression() {
        let error = Self.check(Rejection(template: "/users/{id", code: .unclosedExpression, offset: 7))
        #expect(
            error?.description
                == #"invalid URI template "/users/{id" at offset 7: unclosed expression: the "{" has no matching "}""#)
        Self.check(Rejection(template: "{/id*", code: .unclosedExpression, offset: 0))
        Self.check(Rejection(template: "a{b{c}", code: .unclosedExpression, offset: 1))
        Self.check(Rejection(template: "{var:12", code: .unclosedExpression, offset: 0))
    }

    @Test("unexpectedClosingBrace points at the brace")
    func unexpectedClosingBrace() {
        Self.check(Rejection(template: "/id*}", code: .unexpectedClosingBrace, offset: 4))
        Self.check(Rejection(template: "{a}}", code: .unexpectedClosingBrace, offset: 3))
    }

    @Test(
        "invalidOperator points at a reserved operator",
        arguments: ["=", ",", "!", "@", "|", "$", "(", ")", "*", ":", "'", "[", "]"])
    func invalidOperator(_ symbol: String) {
        let error = Self.check(Rejection(template: "x{\(symbol)var}", code: .invalidOperator, offset: 2))
        #expect(error?.reason.contains("\"\(symbol)\"") == true)
    }

    @Test(
        "invalidVariableName points at the offending character",
        arguments: [
            Rejection(template: "{with space}", code: .invalidVariableName, offset: 5),
            Rejection(template: "{~thing}", code: .invalidVariableName, offset: 1),
            Rejection(template: "{a-b}", code: .invalidVariableName, offset: 2),
            Rejection(template: "{%2x}", code: .invalidVariableName, offset: 1),
            Rejection(template: "{x.}", code: .invalidVariableName, offset: 2),
            Rejection(template: "{x..y}", code: .invalidVariableName, offset: 3),
            Rejection(template: "{.x.}", code: .invalidVariableName, offset: 3),
            Rejection(template: "{..x}", code: .invalidVariableName, offset: 2),
            Rejection(template: "{x,}", code: .invalidVariableName, offset: 3),
            Rejection(template: "{+}", code: .invalidVariableName, offset: 2),
            Rejection(template: "{x*y}", code: .invalidVariableName, offset: 3),
            Rejection(template: "{caf\u{E9}}", code: .invalidVariableName, offset: 4),
        ])
    func invalidVariableName(_ rejection: Rejection) {
        Self.check(rejection)
    }

    @Test(
        "invalidPrefix points at the offending character",
        arguments: [
            Rejection(template: "{var:0}", code: .invalidPrefix, offset: 5),
            Rejection(template: "{var:01}", code: .invalidPrefix, offset: 5),
            Rejection(template: "{var:}", code: .invalidPrefix, offset: 5),
            Rejection(template: "{var:prefix}", code: .invalidPrefix, offset: 5),
            Rejection(template: "{var:3x}", code: .invalidPrefix, offset: 6),
            Rejection(template: "{var:2*}", code: .invalidPrefix, offset: 6),
            Rejection(template: "{var:-1}", code: .invalidPrefix, offset: 5),
        ])
    func invalidPrefix(_ rejection: Rejection) {
        Self.check(rejection)
    }

    @Test("prefixTooLarge points at the length; 9999 is the largest")
    func prefixTooLarge() throws {
        Self.check(Rejection(template: "{var:10000}", code: .prefixTooLarge, offset: 5))
        Self.check(Rejection(template: "{/a,var:123456789012345678901234567890}", code: .prefixTooLarge, offset: 8))
        #expect(try URITemplate("{var:9999}").expand(["var": "value"]) == "value")
    }

    @Test(
        "invalidLiteral points at the character RFC 6570 §2.1 excludes",
        arguments: [
            Rejection(template: "/a b", code: .invalidLiteral, offset: 2),
            Rejection(template: "<x>", code: .invalidLiteral, offset: 0),
            Rejection(template: "x>", code: .invalidLiteral, offset: 1),
            Rejection(template: "say\"", code: .invalidLiteral, offset: 3),
            Rejection(template: "a^b", code: .invalidLiteral, offset: 1),
            Rejection(template: "a`b", code: .invalidLiteral, offset: 1),
            Rejection(template: "a\\b", code: .invalidLiteral, offset: 1),
            Rejection(template: "a|b", code: .invalidLiteral, offset: 1),
            Rejection(template: "50%", code: .invalidLiteral, offset: 2),
            Rejection(template: "%2", code: .invalidLiteral, offset: 0),
            Rejection(template: "a%zz", code: .invalidLiteral, offset: 1),
            Rejection(template: "a\nb", code: .invalidLiteral, offset: 1),
            Rejection(template: "a\u{7F}", code: .invalidLiteral, offset: 1),
            Rejection(template: "a\u{85}", code: .invalidLiteral, offset: 1),
            Rejection(template: "a\u{FFFE}", code: .invalidLiteral, offset: 1),
            // Offsets count Unicode scalars: "é" is 1 (2 UTF-8 bytes), "e\u{301}" is 2 (1 Character).
            Rejection(template: "caf\u{E9} {x}", code: .invalidLiteral, offset: 4),
            Rejection(template: "cafe\u{301} {x}", code: .invalidLiteral, offset: 5),
        ])
    func invalidLiteral(_ rejection: Rejection) {
        Self.check(rejection)
    }

    @Test("prefixOnComposite is thrown by expand, at the expression's brace")
    func prefixOnComposite() throws {
        let list = try URITemplate("/a{?x,keys:2}")
        let error = Self.check(
            Rejection(template: "/a{?x,keys:2}", code: .prefixOnComposite, offset: 2, variables: ["keys": ["a", "b"]]))
        #expect(error?.description.hasPrefix("cannot expand URI template") == true)
        Self.check(
            Rejection(template: "{+keys:1}", code: .prefixOnComposite, offset: 0, variables: ["keys": ["k": "v"]]))
        // An undefined composite (no members) expands to nothing, so the prefix does not matter.
        #expect(try list.expand(["keys": [], "x": "1"]) == "/a?x=1")
        #expect(try list.expand(["keys": "abc"]) == "/a?keys=ab")
    }

    @Test("emptyExpression points at the brace")
    func emptyExpression() {
        Self.check(Rejection(template: "a{}", code: .emptyExpression, offset: 1))
    }

    // MARK: The negative suite, code by code

    @Test(
        "each failure of negative-tests.json has its code and offset",
        arguments: [
            Rejection(template: "{/id*", code: .unclosedExpression, offset: 0),
            Rejection(template: "/id*}", code: .unexpectedClosingBrace, offset: 4),
            Rejection(template: "{/?id}", code: .invalidVariableName, offset: 2),
            Rejection(template: "{var:prefix}", code: .invalidPrefix, offset: 5),
            Rejection(template: "{hello:2*}", code: .invalidPrefix, offset: 8),
            Rejection(template: "{??hello}", code: .invalidVariableName, offset: 2),
            Rejection(template: "{!hello}", code: .invalidOperator, offset: 1),
            Rejection(template: "{with space}", code: .invalidVariableName, offset: 5),
            Rejection(template: "{ leading_space}", code: .invalidVariableName, offset: 1),
            Rejection(template: "{trailing_space }", code: .invalidVariableName, offset: 15),
            Rejection(template: "{=path}", code: .invalidOperator, offset: 1),
            Rejection(template: "{$var}", code: .invalidOperator, offset: 1),
            Rejection(template: "{|var*}", code: .invalidOperator, offset: 1),
            Rejection(template: "{*keys?}", code: .invalidOperator, offset: 1),
            Rejection(template: "{?empty=default,var}", code: .invalidVariableName, offset: 7),
            Rejection(template: "{var}{-prefix|/-/|var}", code: .invalidVariableName, offset: 6),
            Rejection(template: "?q={searchTerms}&amp;c={example:color?}", code: .invalidPrefix, offset: 32),
            Rejection(template: "x{?empty|foo=none}", code: .invalidVariableName, offset: 8),
            Rejection(template: "/h{#hello+}", code: .invalidVariableName, offset: 9),
            Rejection(template: "/h#{hello+}", code: .invalidVariableName, offset: 9),
            Rejection(template: "{keys:1}", code: .prefixOnComposite, offset: 0, variables: ["keys": ["semi": ";"]]),
            Rejection(template: "{+keys:1}", code: .prefixOnComposite, offset: 0, variables: ["keys": ["semi": ";"]]),
            Rejection(template: "{;keys:1*}", code: .invalidPrefix, offset: 8),
            Rejection(template: "?{-join|&|var,list}", code: .invalidVariableName, offset: 2),
            Rejection(template: "/people/{~thing}", code: .invalidVariableName, offset: 9),
            Rejection(template: "/{default-graph-uri}", code: .invalidVariableName, offset: 9),
            Rejection(template: "/sparql{?query,default-graph-uri}", code: .invalidVariableName, offset: 22),
            Rejection(template: "/sparql{?query){&default-graph-uri*}", code: .invalidVariableName, offset: 14),
            Rejection(template: "/resolution{?x, y}", code: .invalidVariableName, offset: 15),
            Rejection(template: "{var:0}", code: .invalidPrefix, offset: 5),
            Rejection(template: "{var:01}", code: .invalidPrefix, offset: 5),
            Rejection(template: "{var:10000}", code: .prefixTooLarge, offset: 5),
            Rejection(template: "{var:}", code: .invalidPrefix, offset: 5),
            Rejection(template: "{x.}", code: .invalidVariableName, offset: 2),
            Rejection(template: "{x..y}", code: .invalidVariableName, offset: 3),
            Rejection(template: "{%2x}", code: .invalidVariableName, offset: 1),
        ])
    func negativeSuite(_ rejection: Rejection) {
        Self.check(rejection)
    }

    // MARK: The error type

    @Test("a lookup's own error passes through expand unchanged")
    func lookupErrorPassesThrough() throws {
        let template = try URITemplate("/users/{id}")
        let own = #expect(throws: URITemplateError.self) { try URITemplate("{") }
        let thrown = #expect(throws: URITemplateError.self) {
            try template.expand { _ throws(URITemplateError) in throw own! }
        }
        #expect(thrown == own)
    }

    @Test("the description quotes the template on one line, escaping control characters")
    func descriptionEscapes() {
        let error = #expect(throws: URITemplateError.self) { try URITemplate("a\u{85}\n\"\\{") }
        #expect(
            error?.description
                == #"invalid URI template "a\u{85}\n\"\\{" at offset 1: invalid literal: the control character "#
                + "U+0085 is not allowed in a URI template (RFC 6570 §2.1); write it percent-encoded")
    }

    @Test("codes compare by identifier and describe themselves by it")
    func codes() {
        #expect(URITemplateError.Code("invalidPrefix") == .invalidPrefix)
        #expect(URITemplateError.Code.prefixTooLarge.description == "prefixTooLarge")
        #expect(Set(Self.phrases.keys.map(\.rawValue)).count == 9)
    }

    @Test("a template is validated once, at init: a valid one never throws a parse error at expansion")
    func parsesOnce() throws {
        let template = try URITemplate("{/owner,repo}/issues{?state,labels*,page}{&per_page}")
        #expect(try template.expand([:]) == "/issues")
        #expect(template.description == "{/owner,repo}/issues{?state,labels*,page}{&per_page}")
    }
}
