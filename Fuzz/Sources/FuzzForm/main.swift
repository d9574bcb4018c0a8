import Foundation
import HTTPEncoding

/// The form decoder and encoder (`application/x-www-form-urlencoded`, with brackets): any
/// text decodes or is refused with a typed error, with no crash however deep its keys nest;
/// flat string pairs encode and decode back to themselves.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzForm(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    _ = try? FormDecoder().decode([String: String].self, from: text)
    _ = try? FormDecoder().decode([String: [String]].self, from: text)
    // Flat pairs: keys made of letters and digits only (brackets would nest by design).
    var pairs: [String: String] = [:]
    for piece in text.split(separator: "\u{1}", maxSplits: 8) {
        let parts = piece.split(separator: "\u{2}", maxSplits: 1, omittingEmptySubsequences: false)
        let key = String(parts[0].unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) })
        guard !key.isEmpty else { continue }
        pairs[key] = parts.count > 1 ? String(parts[1]) : ""
    }
    guard !pairs.isEmpty, let encoded = try? FormEncoder().encodeQuery(parameters: pairs) else { return 0 }
    guard let decoded = try? FormDecoder().decode([String: String].self, from: encoded), decoded == pairs else {
        fatalError("\(pairs) encoded as \(encoded.debugDescription) does not decode back")
    }
    return 0
}
