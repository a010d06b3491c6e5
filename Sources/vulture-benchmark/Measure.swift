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
    let line = String(
        format: "%-28@ ours %8.1f MB/s   %@ %8.1f MB/s   ratio %.2fx", what as NSString, mb / ours,
        referenceName as NSString, mb / reference, reference / ours)
    print(line)
}
