import Testing
import VultureSchemaCore

/// `FirestoreTimestamp.adding(seconds:)` and `adding(microseconds:)`: carries across the second,
/// before the epoch, and clamps at Firestore's range.
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
}
