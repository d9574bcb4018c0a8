import HTTPClient
import HeronTracing
import Testing

@Suite("HTTPFieldsInjector")
struct HTTPFieldsInjectorTests {
    @Test("A value replaces every field of its name, whatever the name's case")
    func replaces() throws {
        var fields = try HTTPFields(["TraceParent": "old", "traceparent": "older", "Accept": "*/*"])
        HTTPFieldsInjector().inject("00-abc-def-01", forKey: "traceparent", into: &fields)

        #expect(fields[values: try HTTPFieldName("traceparent")] == ["00-abc-def-01"])
        #expect(fields[.accept] == "*/*")
    }

    @Test("A name or value that is not a valid field is left out")
    func invalidIsLeftOut() throws {
        var fields = HTTPFields()
        HTTPFieldsInjector().inject("v", forKey: "bad name", into: &fields)
        HTTPFieldsInjector().inject("line\r\nInjected: 1", forKey: "tracestate", into: &fields)

        #expect(fields.isEmpty)
    }
}
