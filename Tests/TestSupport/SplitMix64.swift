/// A small deterministic random number generator (SplitMix64): the same numbers for the same
/// seed on every machine, for tests that draw seeded random cases.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// A generator whose numbers follow from `seed`.
    /// - Parameter seed: The seed.
    public init(seed: UInt64) { state = seed }

    /// The next number.
    /// - Returns: 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
