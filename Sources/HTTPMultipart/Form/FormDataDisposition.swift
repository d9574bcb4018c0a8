import HTTPCore

/// Writes the `Content-Disposition` value of a form-data part (RFC 7578 §4.2).
///
/// Names and filenames are escaped as the WHATWG HTML standard's multipart/form-data
/// encoding algorithm says, and as browsers do: `"` becomes `%22`, CR `%0D` and LF `%0A`,
/// so no name can close the quoted string, end the header or fake a part. A backslash
/// becomes `%5C` as well, which browsers leave as it is: the parsers most Python servers
/// run (Werkzeug for Flask, python-multipart for Starlette and FastAPI) read `\` as an
/// escape inside a quoted parameter, so a name ending in `\` would swallow the closing quote
/// and what follows (`name="up\"; filename="f.txt"` would become a text field there).
/// With `%5C` every parser splits the part the same way; the server sees `%5C` where the
/// name had `\`. Everything else, non-ASCII included, is sent as raw UTF-8 (RFC 7578 §4.2).
/// Other control characters cannot go in a header and are rejected.
enum FormDataDisposition {
    /// The escaped form of a name or filename.
    static func escape(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x22 || $0 == 0x0D || $0 == 0x0A || $0 == 0x5C }) else {
            return value
        }
        var out = ""
        out.reserveCapacity(value.utf8.count + 8)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "%22"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            case "\\": out += "%5C"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The header fields of a form-data part.
    static func fields(name: String, filename: String?, contentType: MediaType?) throws(MultipartError) -> HTTPFields {
        var value = "form-data; name=\"\(try checked(name, what: "field name"))\""
        if let filename {
            value += "; filename=\"\(try checked(filename, what: "filename"))\""
        }
        var fields = HTTPFields()
        do throws(HTTPCoreError) {
            try fields.append(name: .contentDisposition, value: value)
            if let contentType { try fields.append(name: .contentType, value: contentType.description) }
        } catch {
            throw MultipartError(.invalidHeader, value: error.value, reason: error.reason, underlyingError: error)
        }
        return fields
    }

    private static func checked(_ value: String, what: String) throws(MultipartError) -> String {
        for (offset, byte) in value.utf8.enumerated()
        where (byte < 0x20 && byte != 0x09 && byte != 0x0D && byte != 0x0A) || byte == 0x7F {
            throw MultipartError(
                .invalidName, value: value,
                reason: "\(what) holds control character 0x\(String(byte, radix: 16, uppercase: true)) at offset "
                    + "\(offset), which cannot be sent in a part header")
        }
        return escape(value)
    }
}
