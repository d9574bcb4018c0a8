import Foundation
import HTTPCore
import HTTPEncoding

/// Encodes any `Encodable` value as a multipart form.
///
/// Each leaf value becomes a part named by its key path in bracket style: nested keys as
/// `user[address][city]`, array elements as `tags[]` (and `items[0][name]` when the
/// elements are themselves keyed or arrays, so their fields stay together). Strings,
/// numbers and bools become text parts; dates go through ``dateEncodingStrategy``;
/// ``MultipartFile`` values become file parts; `Data` becomes a binary part, or text when
/// a ``dataEncodingStrategy`` is set. `nil` values are left out. Keys go through
/// ``keyEncodingStrategy``. The key, date and data strategies are HTTPEncoding's, shared with
/// its form encoder.
///
/// ```swift
/// struct Profile: Encodable {
///     struct Address: Encodable { var city: String }
///     var name: String
///     var address: Address
///     var tags: [String]
///     var avatar: MultipartFile
/// }
/// let profile = Profile(
///     name: "Ada", address: .init(city: "London"), tags: ["math", "code"],
///     avatar: MultipartFile(data: Data([0x89, 0x50]), filename: "ada.png"))
/// let form = try MultipartFormEncoder().encode(profile)
/// // address[city]=London, avatar (ada.png, image/png), name=Ada, tags[]=math, tags[]=code
/// let encoded = form.streamingBody()
/// ```
public struct MultipartFormEncoder: Sendable {
    /// How coding keys and dictionary keys are written; as written by default.
    public var keyEncodingStrategy: KeyEncodingStrategy
    /// How dates are written; ISO 8601 by default.
    public var dateEncodingStrategy: DateEncodingStrategy
    /// How `Data` is written as text; `nil` (the default) sends it as a binary part.
    public var dataEncodingStrategy: DataEncodingStrategy?
    /// How arrays are named: `tags[]` (`FormStyle.Arrays.brackets`, the default),
    /// `tags` repeated (`FormStyle.Arrays.noBrackets`) or `tags[0]`
    /// (`FormStyle.Arrays.indexed`), HTTPEncoding's spellings. Elements that are keyed
    /// values or arrays are always indexed, so their fields stay together.
    public var arrays: FormStyle.Arrays
    /// Whether the keys of each keyed container are sorted (the default, for deterministic
    /// output whatever the dictionary order), or kept in encoding order.
    public var sortsKeys: Bool
    /// Makes the boundary of each form; a fresh random one by default.
    public var makeBoundary: @Sendable () -> MultipartBoundary

    /// Creates an encoder.
    /// - Parameters:
    ///   - keyEncodingStrategy: How keys are written.
    ///   - dateEncodingStrategy: How dates are written.
    ///   - dataEncodingStrategy: How `Data` is written as text; `nil` for a binary part.
    ///   - arrays: How arrays are named.
    ///   - sortsKeys: Whether keys are sorted within each container.
    ///   - makeBoundary: Makes each form's boundary.
    public init(
        keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys,
        dateEncodingStrategy: DateEncodingStrategy = .iso8601,
        dataEncodingStrategy: DataEncodingStrategy? = nil,
        arrays: FormStyle.Arrays = .brackets,
        sortsKeys: Bool = true,
        makeBoundary: @escaping @Sendable () -> MultipartBoundary = { .random() }
    ) {
        self.keyEncodingStrategy = keyEncodingStrategy
        self.dateEncodingStrategy = dateEncodingStrategy
        self.dataEncodingStrategy = dataEncodingStrategy
        self.arrays = arrays
        self.sortsKeys = sortsKeys
        self.makeBoundary = makeBoundary
    }

    /// Encodes `value` as a form.
    /// - Parameter value: A value that encodes a keyed container (a struct or a dictionary).
    /// - Returns: The form, ready to encode in memory, to disk or as a stream.
    /// - Throws: ``MultipartError`` with code ``MultipartError/Code/unsupportedValue`` naming
    ///   the key path of a value a form cannot carry (a top-level scalar or array) or whose
    ///   `encode(to:)` or strategy threw; ``MultipartError/Code/unreadableFile`` naming a
    ///   ``MultipartFile`` path that cannot be read.
    public func encode(_ value: some Encodable) throws(MultipartError) -> MultipartForm {
        let root = MultipartNode()
        let encoder = MultipartValueEncoder(node: root, codingPath: [], options: self)
        do {
            try encoder.encodeValue(value)
        } catch let error as MultipartError {
            throw error
        } catch let error as EncodingError {
            throw Self.wrap(error)
        } catch {
            throw MultipartError(
                .unsupportedValue, value: "", reason: "encoding failed: \(error)", underlyingError: error)
        }
        guard case .keyed = root.kind else {
            throw MultipartError(
                .unsupportedValue, value: "\(type(of: value))",
                reason: "a form is made from a keyed value (a struct or a dictionary), not a single value or an array")
        }
        var form = MultipartForm(boundary: makeBoundary())
        try root.appendParts(to: &form, name: nil, options: self)
        return form
    }

    private static func wrap(_ error: EncodingError) -> MultipartError {
        switch error {
        case .invalidValue(_, let context):
            let path = MultipartNode.name(for: context.codingPath)
            return MultipartError(
                .unsupportedValue, value: path, reason: context.debugDescription, underlyingError: error)
        @unknown default:
            return MultipartError(.unsupportedValue, value: "", reason: "\(error)", underlyingError: error)
        }
    }
}
