import Foundation

/// The settings of one encoding run, shared by reference between every nested encoder
/// so that creating a child encoder costs one retain, not a copy of the strategies.
final class FormEncodingContext {
    let keys: KeyEncodingStrategy
    let dates: DateEncodingStrategy
    let data: DataEncodingStrategy
    let keysAreIdentity: Bool
    let encodesNils: Bool

    init(_ encoder: FormEncoder) {
        keys = encoder.keyEncodingStrategy
        dates = encoder.dateEncodingStrategy
        data = encoder.dataEncodingStrategy
        keysAreIdentity = encoder.keyEncodingStrategy.isIdentity
        encodesNils = encoder.style.nils != .omit
    }

    /// The written form of a coding key.
    @inline(__always)
    func name(_ key: String) -> String {
        keysAreIdentity ? key : keys.encode(key)
    }
}

/// A coding key for array positions and for keys made at run time.
struct FormCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    static let superKey = FormCodingKey(stringValue: "super")
}

extension [any CodingKey] {
    /// The keys as strings, for an error's key path.
    var formKeyPath: [String] { map(\.stringValue) }
}
