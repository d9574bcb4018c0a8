import Foundation
import HTTPCore

extension HTTPRequest {
    /// A `curl` command that sends this request, every argument shell-quoted.
    ///
    /// Values of `redacting` fields are replaced by `<redacted>` (credentials by default;
    /// pass `[]` to keep them). A text body is inlined; a binary body is piped in from
    /// `printf` with octal escapes; a file body is read by curl from its path; a stream
    /// body is not rendered (the command reads it from standard input, and a comment says
    /// so). The output is safe to paste into a POSIX shell: nothing in a URL, field or body
    /// can end the quoting.
    ///
    /// ```swift
    /// var request = HTTPRequest(method: .post, url: URL(string: "https://example.com/notes")!)
    /// request.body = HTTPBody("it's")
    /// print(request.curlCommand())
    /// // curl -X 'POST' 'https://example.com/notes' --data-raw 'it'\''s'
    /// ```
    /// The URL's password and secret query values (`URLRedaction.hiddenQueryNames`) are
    /// hidden too unless `revealingURL` is `true`.
    /// - Parameters:
    ///   - redacting: Field names whose values are hidden.
    ///   - revealingURL: Whether to print the URL with its password and secret query values.
    /// - Returns: The command, on one line, preceded by a comment line for a stream body.
    public func curlCommand(
        redacting: Set<HTTPFieldName> = Logging.redactedFields, revealingURL: Bool = false
    ) -> String {
        var prefix = ""
        var arguments = ["curl"]
        if method == .head {
            arguments.append("--head")
        } else if method != .get || body != nil {
            arguments += ["-X", Self.shellQuoted(method.rawValue)]
        }
        arguments.append(Self.shellQuoted(revealingURL ? url.absoluteString : URLRedaction.display(url)))
        for field in headerFields {
            let value = redacting.contains(field.name) ? "<redacted>" : field.value
            // curl drops `Name:` with an empty value; `Name;` sends it empty.
            let header = value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(value)"
            arguments += ["-H", Self.shellQuoted(header)]
        }
        if let body {
            switch body.source {
            case .data(let data):
                if let text = String(data: data, encoding: .utf8), !text.contains("\0") {
                    // --data-raw never reads a file, even for text starting with `@`.
                    arguments += ["--data-raw", Self.shellQuoted(text)]
                } else {
                    prefix = "printf \(Self.shellQuoted(Self.octalEscaped(data))) | "
                    arguments += ["--data-binary", "@-"]
                }
            case .file(let url):
                arguments += ["--data-binary", "@" + Self.shellQuoted(url.path)]
            case .stream:
                prefix = "# the request body is a stream and is not shown: pipe it into this command\n"
                arguments += ["--data-binary", "@-"]
            }
        }
        return prefix + arguments.joined(separator: " ")
    }

    /// `text` in single quotes, each `'` written as `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// A `printf` format that prints `data` exactly: every byte as a `\ooo` escape.
    static func octalEscaped(_ data: Data) -> String {
        var out = ""
        out.reserveCapacity(data.count * 4)
        for byte in data {
            let octal = String(byte, radix: 8)
            out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
        }
        return out
    }
}
