/// A seeded pseudo-random generator (SplitMix64, Steele, Lea and Flood 2014): the same seed gives
/// the same sequence on every platform, so a generated case replays from its seed. For tests and
/// the deterministic simulation; not for secrets.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state; the next value is derived from it.
    public private(set) var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0 ..< bound` (bound > 0), without modulo bias.
    public mutating func below(_ bound: Int) -> Int {
        Int(next(upperBound: UInt64(max(bound, 1))))
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        Double(next() >> 11) * 0x1p-53 < p
    }

    /// One element of a non-empty array.
    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[below(choices.count)]
    }

    /// The seed of the `index`-th case derived from a base seed, so cases are independent.
    public static func derive(_ base: UInt64, _ index: Int) -> UInt64 {
        var g = SplitMix64(seed: base ^ (UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03))
        return g.next()
    }
}
