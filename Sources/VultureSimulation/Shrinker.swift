/// Shrinks a failing run: deletes chunks of its recorded decisions and lowers single decisions
/// toward 0 (the simplest choice), keeping every change after which the run still breaks the same
/// invariant — Hypothesis-style shrinking on the choice tape. Deterministic: the same failure
/// shrinks to the same run.
public enum Shrinker {
    /// The smallest failing run found within `budget` replays.
    public static func shrink(_ outcome: SimulationOutcome, budget: Int = 3_000) -> SimulationOutcome {
        guard let target = outcome.failure?.violation.invariant else { return outcome }
        var best = outcome
        var runs = 0
        func attempt(_ tape: [Int]) -> Bool {
            guard runs < budget else { return false }
            runs += 1
            let candidate = Simulation.run(best.options, tape: tape)
            guard candidate.failure?.violation.invariant == target else { return false }
            best = candidate
            best.choices = Array(tape.prefix(candidate.choices.count))
            return true
        }
        var improved = true
        while improved && runs < budget {
            improved = false
            // Delete chunks, large first.
            for size in [32, 16, 8, 4, 2, 1] {
                var start = 0
                while start < best.choices.count && runs < budget {
                    var tape = best.choices
                    tape.removeSubrange(start..<min(tape.count, start + size))
                    if attempt(tape) { improved = true } else { start += size }
                }
            }
            // Lower single decisions.
            var i = 0
            while i < best.choices.count && runs < budget {
                let value = best.choices[i]
                if value > 0 {
                    for lower in Set([0, value / 2, value - 1]).sorted() where lower < value {
                        var tape = best.choices
                        tape[i] = lower
                        if attempt(tape) {
                            improved = true
                            break
                        }
                    }
                }
                i += 1
            }
        }
        return best
    }
}
