import Testing
import VultureFirestoreTesting
import VultureSchemaCore

/// `ManualClock`, the injected time of the simulation and of the in-memory server: it moves only
/// when told, carries across the second, and stops at the ends of Firestore's range.
struct ManualClockTests {
    static func t(_ seconds: Int64, _ microseconds: Int32) -> FirestoreTimestamp {
        try! FirestoreTimestamp(seconds: seconds, microseconds: microseconds)
    }

    @Test func advanceCarriesAcrossTheSecondBothWays() {
        let clock = ManualClock(Self.t(10, 999_999))
        clock.advance(seconds: 0, microseconds: 1)
        #expect(clock.now == Self.t(11, 0))
        clock.advance(seconds: -12, microseconds: -1)
        #expect(clock.now == Self.t(-2, 999_999))
        #expect(clock.source() == Self.t(-2, 999_999))
    }

    /// A move past the range stops at its end, however large (no overflow trap).
    @Test func aMovePastTheRangeStopsAtItsEnd() {
        let clock = ManualClock(Self.t(253_402_300_799, 0))
        clock.advance(seconds: 1)
        #expect(clock.now == .maximum)
        clock.advance(seconds: Int64.min, microseconds: Int64.min)
        #expect(clock.now == .minimum)
        clock.advance(seconds: Int64.max)
        #expect(clock.now == .maximum)
    }
}
