// VultureSimulation — a deterministic multi-device world with faults: seeded runs of random user
// actions, syncs and failures against the reference engine, invariants checked after every step,
// failing runs shrunk to a minimal replayable one and written out as a scenario.
import VultureFirestore

/// Every random decision of a run, drawn in order: recorded from a seed, or replayed from a tape
/// (the shrinker's edited copy). One seed replays everything; nothing else is random.
public struct ChoiceTape: Sendable {
    private var generator: SplitMix64
    private let replay: [Int]?
    /// The decisions made so far, each in `0 ..< bound` of its draw.
    public private(set) var recorded: [Int] = []

    /// A tape recording draws from `seed`.
    public init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
        replay = nil
    }

    /// A tape replaying `choices`; a draw past its end is 0 (the simplest choice).
    public init(replaying choices: [Int]) {
        generator = SplitMix64(seed: 0)
        replay = choices
    }

    /// A decision in `0 ..< bound` (0 when bound ≤ 1).
    public mutating func below(_ bound: Int) -> Int {
        guard bound > 1 else {
            recorded.append(0)
            return 0
        }
        let value: Int
        if let replay {
            value = recorded.count < replay.count ? min(max(replay[recorded.count], 0), bound - 1) : 0
        } else {
            value = generator.below(bound)
        }
        recorded.append(value)
        return value
    }

    /// Whether a replayed tape has no decision left (a recording tape never is): a shrunk run stops
    /// its random steps there and goes to the quiet end.
    public var isExhausted: Bool { replay.map { recorded.count >= $0.count } ?? false }

    /// True with probability `percent` %.
    public mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// One element of a non-empty array.
    public mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    /// An index by weights: `weights[i]` out of their sum.
    public mutating func weighted(_ weights: [Int]) -> Int {
        var roll = below(weights.reduce(0, +))
        for (i, w) in weights.enumerated() {
            if roll < w { return i }
            roll -= w
        }
        return weights.count - 1
    }
}
