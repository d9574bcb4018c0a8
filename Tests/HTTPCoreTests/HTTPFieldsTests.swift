import HTTPCore
import Testing

@Suite("HTTPFields")
struct HTTPFieldsTests {
    @Test("keeps fields in insertion order with their spelling")
    func keepsOrderAndSpelling() throws {
        let fields = try HTTPFields(["x-b": "2", "X-A": "1", "x-B": "3", "Accept": "*/*"])
        #expect(fields.map(\.name.rawName) == ["x-b", "X-A", "x-B", "Accept"])
        #expect(fields.map(\.value) == ["2", "1", "3", "*/*"])
        #expect(fields.count == 4)
    }

    @Test("reserving capacity keeps the fields and leaves a copy untouched by later appends")
    func reserveCapacity() throws {
        let original = try HTTPFields(["X-A": "1"])
        var fields = original
        fields.reserveCapacity(8)
        #expect(fields == original)
        try fields.append(name: .accept, value: "*/*")
        #expect(fields.map(\.name.rawName) == ["X-A", "Accept"])
        #expect(original.map(\.name.rawName) == ["X-A"])
    }

    @Test("looks names up case-insensitively")
    func caseInsensitiveLookup() throws {
        let fields = try HTTPFields(["content-TYPE": "text/plain"])
        #expect(fields[.contentType] == "text/plain")
        #expect(fields[try HTTPFieldName("CONTENT-type")] == "text/plain")
        #expect(fields.contains(.contentType))
        #expect(!fields.contains(.accept))
        #expect(fields[.accept] == nil)
        #expect(fields[values: .accept].isEmpty)
    }

    @Test("keeps repeated fields as separate entries")
    func keepsRepeatedFields() throws {
        var fields = HTTPFields()
        try fields.append(name: .accept, value: "text/html")
        try fields.append(name: try HTTPFieldName("ACCEPT"), value: "application/json")
        #expect(fields.count == 2)
        #expect(fields[values: .accept] == ["text/html", "application/json"])
        #expect(fields[fields: .accept].map(\.name.rawName) == ["Accept", "ACCEPT"])
    }

    @Test("combines repeated values with a comma in order (RFC 9110 §5.3)")
    func combinesWithComma() throws {
        let fields = try HTTPFields([
            "Cache-Control": "no-cache", "Accept": "a", "cache-control": "no-store", "CACHE-CONTROL": "max-age=0",
        ])
        #expect(fields[.cacheControl] == "no-cache, no-store, max-age=0")
    }

    @Test("a single field's value is returned as is")
    func singleValueUnchanged() throws {
        let fields = try HTTPFields(["Date": "Sun, 06 Nov 1994 08:49:37 GMT"])
        #expect(fields[.date] == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test("never combines Set-Cookie (RFC 9110 §5.3)")
    func setCookieNotCombined() throws {
        let cookies = ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2; Path=/"]
        let fields = try HTTPFields(["Set-Cookie": cookies[0], "set-cookie": cookies[1]])
        #expect(fields[.setCookie] == cookies[0])
        #expect(fields[values: .setCookie] == cookies)
        #expect(fields.count == 2)
    }

    @Test("combines Cookie values with a semicolon (RFC 6265 §5.4)")
    func cookieCombinedWithSemicolon() throws {
        let fields = try HTTPFields(["Cookie": "a=1", "cookie": "b=2; c=3"])
        #expect(fields[.cookie] == "a=1; b=2; c=3")
    }

    @Test("init from pairs reports the first bad name")
    func pairsRejectBadName() {
        let error = #expect(throws: HTTPCoreError.self) {
            try HTTPFields(["Good": "1", "Bad Name": "2", "Also\rBad": "3"])
        }
        #expect(error?.code == .invalidFieldName)
        #expect(error?.value == "Bad Name")
    }

    @Test("init from pairs rejects a header injection in a value")
    func pairsRejectInjection() {
        let error = #expect(throws: HTTPCoreError.self) {
            try HTTPFields(["X-User": "bob\r\nX-Admin: true"])
        }
        #expect(error?.code == .invalidFieldValue)
        #expect(error?.value == "bob\r\nX-Admin: true")
    }

    @Test("a rejected append leaves the list unchanged")
    func failedAppendLeavesListUnchanged() throws {
        var fields = try HTTPFields(["Accept": "a"])
        let before = fields
        #expect(throws: HTTPCoreError.self) { try fields.append(name: .accept, value: "b\nc") }
        #expect(fields == before)
    }

    @Test("a rejected set leaves the list unchanged")
    func failedSetLeavesListUnchanged() throws {
        var fields = try HTTPFields(["Accept": "a", "Accept": "b"])
        let before = fields
        let error = #expect(throws: HTTPCoreError.self) { try fields.set(.accept, "c\0") }
        #expect(error?.code == .invalidFieldValue)
        #expect(fields == before)
    }

    @Test("set replaces every field of the name at the first one's position")
    func setReplacesAll() throws {
        var fields = try HTTPFields(["A": "1", "X": "2", "a": "3", "B": "4", "A": "5"])
        try fields.set(try HTTPFieldName("a"), "new")
        #expect(fields.map(\.description) == ["a: new", "X: 2", "B: 4"])
    }

    @Test("set appends when the name is absent")
    func setAppends() throws {
        var fields = try HTTPFields(["A": "1"])
        try fields.set(.accept, "x")
        #expect(fields.map(\.description) == ["A: 1", "Accept: x"])
    }

    @Test("setIfAbsent adds only a missing name")
    func setIfAbsent() throws {
        var fields = try HTTPFields(["user-agent": "mine"])
        #expect(!fields.setIfAbsent(try HTTPField(name: .userAgent, value: "default")))
        #expect(fields.setIfAbsent(try HTTPField(name: .accept, value: "*/*")))
        #expect(fields[.userAgent] == "mine")
        #expect(fields[.accept] == "*/*")
    }

    @Test("remove drops every field of the name, whatever its case")
    func removeAll() throws {
        var fields = try HTTPFields(["A": "1", "B": "2", "a": "3"])
        fields.remove(try HTTPFieldName("A"))
        #expect(fields.map(\.description) == ["B: 2"])
        fields.remove(.accept)
        #expect(fields.count == 1)
    }

    @Test("append of a field keeps others of the same name")
    func appendField() throws {
        var fields: HTTPFields = [try HTTPField(name: .vary, value: "Accept")]
        fields.append(try HTTPField(name: .vary, value: "Origin"))
        #expect(fields[.vary] == "Accept, Origin")
    }

    @Test("equality depends on order")
    func equalityIsOrdered() throws {
        let one = try HTTPFields(["A": "1", "B": "2"])
        let same = try HTTPFields(["a": "1", "b": "2"])
        let swapped = try HTTPFields(["B": "2", "A": "1"])
        #expect(one == same)
        #expect(one != swapped)
    }

    @Test("init from fields and array literal keep order")
    func initFromFields() throws {
        let list = [try HTTPField(name: "A", value: "1"), try HTTPField(name: "B", value: "2")]
        #expect(Array(HTTPFields(list)) == list)
        let literal: HTTPFields = [list[0], list[1]]
        #expect(Array(literal) == list)
        #expect(HTTPFields().isEmpty)
    }

    @Test("description is one CRLF-separated line per field")
    func description() throws {
        let fields = try HTTPFields(["Accept": "a", "X-Y": "b"])
        #expect(fields.description == "Accept: a\r\nX-Y: b")
    }

    // MARK: Setting by subscript

    @Test("setting a value replaces every field of the name at the position of the first")
    func subscriptSetReplaces() throws {
        var fields = try HTTPFields(["accept": "a", "X-A": "1", "ACCEPT": "b", "X-B": "2"])
        fields[.accept] = "c"
        #expect(fields.map(\.name.rawName) == ["Accept", "X-A", "X-B"])
        #expect(fields.map(\.value) == ["c", "1", "2"])
    }

    @Test("setting a value for an absent name appends it")
    func subscriptSetAppends() throws {
        var fields = try HTTPFields(["X-A": "1"])
        fields[.userAgent] = "heron/1.0"
        #expect(fields.description == "X-A: 1\r\nUser-Agent: heron/1.0")
    }

    @Test("setting nil removes every field of the name and nothing else")
    func subscriptSetNilRemoves() throws {
        var fields = try HTTPFields(["Vary": "a", "X-A": "1", "vary": "b"])
        fields[.vary] = nil
        #expect(fields.description == "X-A: 1")
        fields[.accept] = nil
        #expect(fields.description == "X-A: 1")
    }

    @Test(
        "setting a value with CR, LF, NUL or another forbidden character replaces each by a space (RFC 9110 §5.5)",
        arguments: [
            ("heron\r\nX-Admin: 1", "heron  X-Admin: 1"), ("a\u{0}b", "a b"), ("a\rb\nc", "a b c"),
            ("\r\nx\r\n", "x"), ("bell\u{7}del\u{7F}", "bell del"), ("é\r\n日本", "é  日本"), ("\r\n", ""),
        ])
    func subscriptSetReplacesForbiddenCharacters(value: String, stored: String) throws {
        var fields = HTTPFields()
        fields[.userAgent] = value
        #expect(fields[.userAgent] == stored)
        #expect(fields.count == 1)
        #expect(!fields.description.utf8.contains { $0 < 0x20 && $0 != 0x09 })
        #expect(throws: HTTPCoreError.self) { try HTTPField(name: .userAgent, value: value) }
    }

    @Test("setting a value trims surrounding spaces and tabs and keeps a tab inside")
    func subscriptSetTrims() {
        var fields = HTTPFields()
        fields[.accept] = " \ttext/html;\tq=1 \t"
        #expect(fields[.accept] == "text/html;\tq=1")
    }

    @Test("set(_:_:) still refuses what the subscript replaces, leaving the fields unchanged")
    func setThrowsWhereSubscriptReplaces() throws {
        var fields = try HTTPFields(["Accept": "a"])
        let error = #expect(throws: HTTPCoreError.self) { try fields.set(.accept, "b\r\nX-Evil: 1") }
        #expect(error?.code == .invalidFieldValue)
        #expect(fields[.accept] == "a")
    }

    @Test("a credential value set by subscript is kept with its forbidden characters replaced")
    func subscriptSetCredential() {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer abc\n"
        #expect(fields[.authorization] == "Bearer abc")
    }

    // MARK: Reading by a name as text

    @Test("a name as text reads the combined value, ignoring case")
    func stringSubscriptReads() throws {
        let fields = try HTTPFields(["X-Request-ID": "1", "Accept": "a", "x-request-id": "2"])
        #expect(fields["x-request-id"] == "1, 2")
        #expect(fields["ACCEPT"] == "a")
        #expect(fields["X-Missing"] == nil)
    }

    @Test("a name as text that is not a field name reads nil", arguments: ["", "Bad Name", "X-A:", "X\r\nY", "é"])
    func stringSubscriptInvalidName(name: String) throws {
        let fields = try HTTPFields(["X-A": "1"])
        #expect(fields[name] == nil)
    }

    @Test("the text, typed and position subscripts resolve side by side")
    func subscriptsResolve() throws {
        let fields = try HTTPFields(["Cookie": "a=1", "cookie": "b=2"])
        let name = "Cookie"
        #expect(fields[name] == "a=1; b=2")
        #expect(fields[.cookie] == "a=1; b=2")
        #expect(fields[1].value == "b=2")
        #expect(fields[values: .cookie] == ["a=1", "b=2"])
    }
}
