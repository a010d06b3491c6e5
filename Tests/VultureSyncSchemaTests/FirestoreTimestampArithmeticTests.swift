import Testing
import VultureSchemaCore

/// `FirestoreTimestamp.adding(seconds:microseconds:)`: carries across the second, before the epoch,
/// exact up to the ends of Firestore's range, and clamps beyond them without an overflow trap.
struct FirestoreTimestampArithmeticTests {
    static func t(_ seconds: Int64, _ microseconds: Int32) -> FirestoreTimestamp {
        try! FirestoreTimestamp(seconds: seconds, microseconds: microseconds)
    }

    static let microsecondCases: [(FirestoreTimestamp, Int64, FirestoreTimestamp)] = [
        (t(10, 999_999), 1, t(11, 0)),
        (t(11, 0), -1, t(10, 999_999)),
        (t(-1, 0), -1, t(-2, 999_999)),
        (t(0, 500_000), -1_500_000, t(-1, 0)),
        (t(5, 1), 2_999_999, t(8, 0)),
        (FirestoreTimestamp.maximum, 1, FirestoreTimestamp.maximum),
        (FirestoreTimestamp.minimum, -1, FirestoreTimestamp.minimum),
        (t(0, 0), Int64.max, FirestoreTimestamp.maximum),
        (t(0, 999_999), Int64.min, FirestoreTimestamp.minimum),
    ]

    @Test(arguments: microsecondCases)
    func addingMicroseconds(_ start: FirestoreTimestamp, _ delta: Int64, _ expected: FirestoreTimestamp) {
        #expect(start.adding(microseconds: delta) == expected, "\(start) + \(delta) µs")
    }

    @Test func addingSecondsKeepsTheMicrosecondsAndClamps() {
        #expect(Self.t(10, 7).adding(seconds: -20) == Self.t(-10, 7))
        #expect(FirestoreTimestamp.maximum.adding(seconds: 1) == .maximum)
        #expect(FirestoreTimestamp.minimum.adding(seconds: -1) == .minimum)
    }

    static let combinedCases: [(FirestoreTimestamp, Int64, Int64, FirestoreTimestamp)] = [
        (t(10, 999_999), 1, 1, t(12, 0)),
        (t(10, 0), -1, -1, t(8, 999_999)),
        (t(10, 0), 1, -2_500_000, t(8, 500_000)),
        // Exact at the end of the range: one second on and one second back is no move.
        (FirestoreTimestamp.maximum, 1, -1_000_000, FirestoreTimestamp.maximum),
        (FirestoreTimestamp.maximum, 1, -1_000_001, t(253_402_300_799, 999_998)),
        (FirestoreTimestamp.minimum, -1, 1_000_000, FirestoreTimestamp.minimum),
        (FirestoreTimestamp.maximum, 1, -1, FirestoreTimestamp.maximum),
        // Deltas near Int64's ends: the sums overflow Int64, so they clamp.
        (t(5, 0), Int64.max, 0, FirestoreTimestamp.maximum),
        (t(-5, 0), Int64.min, 0, FirestoreTimestamp.minimum),
        (t(0, 0), Int64.max, Int64.max, FirestoreTimestamp.maximum),
        (t(0, 0), Int64.min, Int64.min, FirestoreTimestamp.minimum),
        (t(0, 0), Int64.max, Int64.min, FirestoreTimestamp.maximum),
        // The seconds land on Int64.min and the microsecond carry of -1 overflows once more.
        (FirestoreTimestamp.minimum, Int64.min + 62_135_596_800, -1, FirestoreTimestamp.minimum),
        (t(0, 999_999), Int64.max, 1, FirestoreTimestamp.maximum),
    ]

    @Test(arguments: combinedCases)
    func addingSecondsAndMicroseconds(
        _ start: FirestoreTimestamp, _ seconds: Int64, _ microseconds: Int64, _ expected: FirestoreTimestamp
    ) {
        #expect(
            start.adding(seconds: seconds, microseconds: microseconds) == expected,
            "\(start) + \(seconds) s \(microseconds) µs")
    }
}
