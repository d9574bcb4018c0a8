import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import HTTPClient

@Suite("curl rendering")
struct CurlCommandTests {
    /// Runs `command` in /bin/sh with `curl` replaced by a function that prints each
    /// argument NUL-terminated, then the bytes it read from standard input after `--stdin--`.
    /// The shell runs off the cooperative pool (see ``ExternalProcess``).
    func shellArguments(_ command: String) async throws -> (arguments: [String], stdin: Data) {
        let script = """
            curl() { for a in "$@"; do printf '%s\\0' "$a"; done; printf -- '--stdin--'; case "$*" in *@-*) cat;; esac; }
            \(command)
            """
        let data = try await ExternalProcess.run("/bin/sh", ["-c", script]).standardOutput
        let marker = Data("--stdin--".utf8)
        let split = try #require(data.range(of: marker))
        let arguments = data[..<split.lowerBound].split(separator: 0, omittingEmptySubsequences: false).dropLast()
            .map { String(decoding: $0, as: UTF8.self) }
        return (arguments, Data(data[split.upperBound...]))
    }

    @Test("a simple GET is just the quoted URL")
    func simpleGet() {
        let request = HTTPRequest(url: URL(string: "https://example.com/a?b=c&d=e")!)
        #expect(request.curlCommand() == "curl 'https://example.com/a?b=c&d=e'")
    }

    @Test("hostile field values and bodies survive a real shell unchanged")
    func shellSafety() async throws {
        let evil = #"it's $(rm -rf /) `id` "q" \ ; & | > $HOME"#
        var request = HTTPRequest(method: .post, url: URL(string: "https://example.com/x?q=a'b")!)
        try request.headerFields.append(name: try HTTPFieldName("X-Evil"), value: evil)
        request.body = HTTPBody(evil + "\nsecond line")
        let (arguments, _) = try await shellArguments(request.curlCommand())
        #expect(
            arguments == [
                "-X", "POST", "https://example.com/x?q=a'b", "-H", "X-Evil: \(evil)", "--data-raw",
                evil + "\nsecond line",
            ])
    }

    @Test("a body starting with @ is sent literally, not read from a file")
    func atSign() async throws {
        var request = HTTPRequest(method: .post, url: URL(string: "https://example.com/")!)
        request.body = HTTPBody("@/etc/passwd")
        let (arguments, _) = try await shellArguments(request.curlCommand())
        #expect(arguments.suffix(2) == ["--data-raw", "@/etc/passwd"])
    }

    @Test("a binary body is piped from printf byte for byte")
    func binaryBody() async throws {
        let bytes = Data((0...255).map { UInt8($0) })
        var request = HTTPRequest(method: .put, url: URL(string: "https://example.com/bin")!)
        request.body = HTTPBody(bytes)
        let (arguments, stdin) = try await shellArguments(request.curlCommand())
        #expect(arguments.suffix(2) == ["--data-binary", "@-"])
        #expect(stdin == bytes)
    }

    @Test("credentials are redacted by default and kept on request")
    func redaction() throws {
        var request = HTTPRequest(url: URL(string: "https://example.com/")!)
        try request.headerFields.set(.authorization, "Bearer t0k")
        #expect(request.curlCommand() == "curl 'https://example.com/' -H 'Authorization: <redacted>'")
        #expect(request.curlCommand(redacting: []) == "curl 'https://example.com/' -H 'Authorization: Bearer t0k'")
    }

    @Test("HEAD uses --head, an empty field value uses Name;")
    func headAndEmptyValue() throws {
        var request = HTTPRequest(method: .head, url: URL(string: "https://example.com/")!)
        try request.headerFields.append(name: try HTTPFieldName("X-Empty"), value: "")
        #expect(request.curlCommand() == "curl --head 'https://example.com/' -H 'X-Empty;'")
    }

    @Test("a file body is read by curl from its path; a stream body is announced, not read")
    func fileAndStream() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heron curl 'x'.bin")
        try Data("abc".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var request = HTTPRequest(method: .post, url: URL(string: "https://example.com/")!)
        request.body = try HTTPBody(fileAt: file)
        let (arguments, _) = try await shellArguments(request.curlCommand())
        #expect(arguments.suffix(2) == ["--data-binary", "@" + file.path])
        request.body = Fixtures.oneShotBody("never")
        let command = request.curlCommand()
        #expect(command.hasPrefix("# the request body is a stream"))
        #expect(!command.contains("never"))
    }
}
