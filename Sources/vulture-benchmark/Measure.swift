import Foundation

/// The best wall-clock time of `repetitions` runs of `body`, in seconds.
func bestTime(repetitions: Int = 5, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<repetitions {
        // A monotonic clock on every supported macOS (ContinuousClock needs macOS 13).
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9)
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
