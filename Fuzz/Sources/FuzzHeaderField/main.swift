import HTTPCore

/// Header field validation (RFC 9110 §5.1, §5.5): a name and value either make a field or
/// are refused with a typed error; a field that is made can never end the header section
/// early (no CR, LF or NUL) and its value has no surrounding whitespace.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaderField(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let split = bytes.firstIndex(of: 0x3A) ?? size / 2
    let name = String(decoding: bytes[..<split], as: UTF8.self)
    let value = String(decoding: bytes[min(split + 1, size)...], as: UTF8.self)
    guard let field = try? HTTPField(name: name, value: value) else { return 0 }
    let forbidden: Set<UInt8> = [0x0D, 0x0A, 0x00]
    if field.value.utf8.contains(where: forbidden.contains)
        || field.name.rawName.utf8.contains(where: forbidden.contains)
    {
        fatalError("a field carries CR, LF or NUL: \(name.debugDescription): \(value.debugDescription)")
    }
    let whitespace: Set<UInt8> = [0x20, 0x09]
    if let first = field.value.utf8.first, whitespace.contains(first) {
        fatalError("a field value keeps leading whitespace: \(field.value.debugDescription)")
    }
    if let last = field.value.utf8.last, whitespace.contains(last) {
        fatalError("a field value keeps trailing whitespace: \(field.value.debugDescription)")
    }
    var fields = HTTPFields()
    fields.append(field)
    _ = fields[field.name]
    return 0
}
