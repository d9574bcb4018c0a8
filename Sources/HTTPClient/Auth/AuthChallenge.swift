import HTTPCore

/// One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1): a scheme and its parameters.
///
/// A field may hold several challenges, and a response several fields: `Basic realm="a",
/// Digest realm="b", nonce="c"` is two. Parameter names are compared without case; a value is a
/// token or a quoted string, unescaped here (RFC 9110 §5.6.4).
struct AuthChallenge: Equatable {
    /// The scheme, in lower case (`digest`, `basic`).
    var scheme: String
    /// The parameters in the order given, names in lower case.
    var parameters: [Parameter]
    /// A `token68` instead of parameters (`Negotiate abc==`), if one was given.
    var token68: String?

    /// A parameter: `name=value`.
    struct Parameter: Equatable {
        var name: String
        var value: String
    }

    /// The value of the first parameter named `name` (in lower case).
    subscript(_ name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// The challenges of `response`'s `WWW-Authenticate` fields, in order; a challenge that does
    /// not parse ends its field's list (the ones before it are kept).
    static func challenges(in response: HTTPResponse) -> [AuthChallenge] {
        response.headerFields[values: .wwwAuthenticate].flatMap { parse($0) }
    }

    /// The challenges of one field value (RFC 9110 §11.2):
    /// `challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ]`, in a comma-separated list.
    static func parse(_ value: String) -> [AuthChallenge] {
        var reader = Reader(Array(value.utf8))
        var challenges: [AuthChallenge] = []
        while true {
            reader.skip { $0 == UInt8(ascii: ",") || Reader.isSpace($0) }
            guard !reader.atEnd, let scheme = reader.token() else { break }
            var challenge = AuthChallenge(scheme: scheme.lowercased(), parameters: [], token68: nil)
            reader.skip(Reader.isSpace)
            // A token68 (letters, digits and -._~+/ then any number of '='), alone.
            if let token68 = reader.token68() {
                challenge.token68 = token68
                challenges.append(challenge)
                continue
            }
            // auth-params: `name = value`, separated by commas. A token not followed by '='
            // begins the next challenge.
            while true {
                let mark = reader.position
                reader.skip { $0 == UInt8(ascii: ",") || Reader.isSpace($0) }
                guard let name = reader.token() else {
                    reader.position = mark
                    break
                }
                reader.skip(Reader.isSpace)
                guard reader.take(UInt8(ascii: "=")) else {
                    reader.position = mark
                    break
                }
                reader.skip(Reader.isSpace)
                guard let parameter = reader.quoted() ?? reader.token() else { return challenges + [challenge] }
                challenge.parameters.append(Parameter(name: name.lowercased(), value: parameter))
            }
            challenges.append(challenge)
        }
        return challenges
    }

    /// Reads a field value byte by byte.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { position >= bytes.count }

        static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

        mutating func skip(_ predicate: (UInt8) -> Bool) {
            while position < bytes.count, predicate(bytes[position]) { position += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        mutating func token() -> String? {
            let start = position
            skip(HTTPToken.isTokenByte)
            return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
        }

        /// A token68 followed by the end or a comma: anything else is not one (it is the first
        /// parameter's name, or nothing).
        mutating func token68() -> String? {
            let start = position
            skip { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default: return Array("-._~+/".utf8).contains(byte)
                }
            }
            guard position > start else { return nil }
            skip { $0 == UInt8(ascii: "=") }
            let end = position
            skip(Self.isSpace)
            // `name=value` has its '=' followed by more: a parameter, not a token68.
            if atEnd || bytes[position] == UInt8(ascii: ",") {
                return String(decoding: bytes[start..<end], as: UTF8.self)
            }
            position = start
            return nil
        }

        /// A quoted-string, its escapes undone (RFC 9110 §5.6.4); `nil` when none starts here or
        /// it is not closed.
        mutating func quoted() -> String? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
            var index = position + 1
            var text: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    position = index + 1
                    return String(decoding: text, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                    index += 1
                }
                text.append(bytes[index])
                index += 1
            }
            return nil
        }
    }
}
