/// A key for a value that interceptors share while one request runs.
///
/// Declare a key as a type; its ``Value`` is what the store holds for it.
///
/// ```swift
/// enum TraceID: RequestValueKey {
///     typealias Value = String
/// }
/// var options = RequestOptions()
/// options.values[TraceID.self] = "4bf92f35"
/// ```
public protocol RequestValueKey: Sendable {
    /// The type of the value stored under this key.
    associatedtype Value: Sendable
}

/// A typed store of per-request values, shared by the interceptors of one request.
///
/// A value type: the client copies the ``RequestOptions/values`` a caller sets into the
/// ``InterceptorContext`` of the request, and every interceptor then reads and writes
/// that one copy for all attempts of the request. Keys are types conforming to
/// ``RequestValueKey``, so a value always comes back with its declared type.
///
/// ```swift
/// enum Attempted: RequestValueKey { typealias Value = Bool }
/// var values = RequestValues()
/// values[Attempted.self] = true
/// print(values[Attempted.self] ?? false)  // true
/// ```
public struct RequestValues: Sendable {
    private var storage: [ObjectIdentifier: any Sendable] = [:]

    /// Creates an empty store.
    public init() {}

    /// The value stored under `key`, or `nil`; setting `nil` removes it.
    /// - Parameter key: The key type.
    public subscript<Key: RequestValueKey>(_ key: Key.Type) -> Key.Value? {
        get { storage[ObjectIdentifier(key)] as? Key.Value }
        set { storage[ObjectIdentifier(key)] = newValue }
    }

    /// Whether the store holds no value.
    public var isEmpty: Bool { storage.isEmpty }

    /// This store with the values of `other` added, `other`'s winning for a key both hold.
    /// - Parameter other: The values to lay over these.
    /// - Returns: The merged store.
    public func merging(_ other: RequestValues) -> RequestValues {
        if other.isEmpty { return self }
        if isEmpty { return other }
        var merged = self
        merged.storage.merge(other.storage) { _, new in new }
        return merged
    }
}
