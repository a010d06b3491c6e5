import Foundation

/// The best wall-clock time of `repetitions` runs of `body`, in seconds.
func bestTime(repetitions: Int = 5, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    let clock = ContinuousClock()
    for _ in 0..<repetitions {
        let elapsed = try clock.measure(body)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        best = min(best, seconds)
    }
    return best
}

/// One benchmark line: what, our throughput, the reference's, and their ratio (ours / reference).
func report(_ what: String, bytes: Int, ours: Double, reference: Double, referenceName: String) {
    let mb = Double(bytes) / 1_000_000
    let label = what.padding(toLength: max(28, what.count), withPad: " ", startingAt: 0)
    let line =
        label
        + String(format: " ours %8.1f MB/s   ", mb / ours) + referenceName
        + String(format: " %8.1f MB/s   ratio %.2fx", mb / reference, reference / ours)
    print(line)
}
