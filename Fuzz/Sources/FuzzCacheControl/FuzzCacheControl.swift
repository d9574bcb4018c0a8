import Foundation
import FuzzSupport
import HTTPCache
import HTTPClient
import HTTPCore

/// `Cache-Control` on outside input. The input's first part is the value of the response's
/// `Cache-Control`, the second the request's. A `CachingTransport` over an origin sending that
/// response answers the request three times: nothing may crash, a response whose directives
/// include `no-store` (and not `must-understand`, which overrides it for a status the cache
/// knows) is never a hit, nor is any response the request asked `no-store` for, and every
/// hit carries an `Age` of digits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheControl(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let (responseValue, requestValue) = halves(data, size)
    guard let responseField = try? HTTPField(name: .cacheControl, value: String(responseValue)) else { return 0 }
    let requestField = try? HTTPField(name: .cacheControl, value: String(requestValue))
    let head = HTTPResponse(
        status: .ok, headerFields: [responseField, try! HTTPField(name: .eTag, value: #""v1""#)])
    let neverHit =
        directives(String(responseValue)).contains("no-store")
        && !directives(String(responseValue)).contains("must-understand")
        || directives(String(requestValue)).contains("no-store") && requestField != nil
    reused.reset { request in
        // The head, or `304` to a conditional request.
        if request.headerFields.contains(.ifNoneMatch) {
            return TransportResponse(
                head: HTTPResponse(status: .notModified, headerFields: head.headerFields), body: nil)
        }
        return TransportResponse(head: head, body: HTTPBody("cache-control"))
    }
    runBlocking {
        let client = reused.client
        var get = HTTPRequest.get("a")
        if let requestField { get.headerFields.append(requestField) }
        for _ in 0..<3 {
            guard let response = try? await client.send(get) else { continue }
            guard response.cacheOutcome == .hit else { continue }
            if neverHit { fatalError("a hit for Cache-Control \(responseValue.prefix(80))") }
            let age = response.headerFields[.age] ?? ""
            if age.isEmpty || !age.allSatisfy(\.isNumber) { fatalError("a hit with the Age \(age.debugDescription)") }
        }
    }
    return 0
}

/// The directive names of a `Cache-Control` value, lowercased: what a reader of RFC 9111 §5.2
/// would take them to be, to check the cache against. Members are split at commas outside a
/// quoted string (RFC 9110 §5.6.4); a quote that is never closed is a plain character, and so
/// is every quote after it, so the members after it still count.
func directives(_ value: String) -> Set<String> {
    var members: [String] = []
    var current = ""
    var characters = Array(value)[...]
    var quotesAreText = false
    while let character = characters.popFirst() {
        if character == "\"", !quotesAreText,
            let close = closingQuote(in: characters)
                ?? {
                    quotesAreText = true
                    return nil
                }()
        {
            current.append(character)
            current += String(characters[..<close])
            current.append("\"")
            characters = characters[(close + 1)...]
        } else if character == "," {
            members.append(current)
            current = ""
        } else {
            current.append(character)
        }
    }
    members.append(current)
    return Set(
        members.compactMap { member in
            let name = member.split(separator: "=", maxSplits: 1).first ?? ""
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            return trimmed.isEmpty ? nil : trimmed
        })
}

/// The index of the quote that closes a quoted string whose text starts `text`, skipping
/// backslash escapes; `nil` when none does.
func closingQuote(in text: ArraySlice<Character>) -> Int? {
    var index = text.startIndex
    while index < text.endIndex {
        if text[index] == "\\" {
            index += 2
            continue
        }
        if text[index] == "\"" { return index }
        index += 1
    }
    return nil
}

/// The client and cache every input uses.
let reused = ReusedCacheClient()
