import Foundation

// Timestamps ↔ Foundation's Date, for an app that keeps Dates (Core Data, the Firebase SDK's
// Timestamp.dateValue()). A Date is a Double of seconds since 2001-01-01T00:00:00Z: it holds every
// microsecond from 1870 through 2130, and the conversions below are exact both ways there.

extension FirestoreTimestamp {
    /// Seconds from the Unix epoch to Foundation's reference date, 2001-01-01T00:00:00Z.
    private static let referenceDateSeconds: Int64 = 978_307_200

    /// The seconds since the reference date nearest to `microseconds` since the reference date.
    private static func referenceInterval(_ microseconds: Int64) -> TimeInterval {
        Double(microseconds) / 1_000_000
    }

    /// The instant as a `Date` (the nearest one). From 1870 through 2130, ``init(date:)`` gives this
    /// timestamp back.
    public var date: Date {
        Date(
            timeIntervalSinceReferenceDate: Self.referenceInterval(
                microsecondsSinceEpoch - Self.referenceDateSeconds * 1_000_000))
    }

    /// The dates other code makes of this timestamp by arithmetic on seconds since 1970: seconds plus
    /// the fraction in microseconds or in nanoseconds (the Firebase SDK's `Timestamp.dateValue()`),
    /// and microseconds over 10⁶. Each may lie a unit in the last place below ``date``.
    private var datesFromSecondsSince1970: [Date] {
        [
            Date(timeIntervalSince1970: Double(seconds) + Double(microseconds) / 1_000_000),
            Date(timeIntervalSince1970: Double(seconds) + Double(Int64(microseconds) * 1000) / 1_000_000_000),
            Date(timeIntervalSince1970: Double(microsecondsSinceEpoch) / 1_000_000),
        ]
    }

    /// A timestamp from a `Date`, floored to the microsecond (Firestore keeps microseconds).
    ///
    /// The floor is exact: the last microsecond whose ``date`` is not after `date` — except that a
    /// date equal to one that `Date(timeIntervalSince1970:)` makes of the next microsecond (seconds
    /// plus a fraction, which rounds a unit in the last place low) is that microsecond, so a date
    /// built from `…07.003999` gives `…07.003999`, never `…07.003998`. From 1870 through 2130,
    /// `FirestoreTimestamp(date: t.date) == t` for every timestamp `t`. Further than 2³² s from 2001
    /// a `Date` is coarser than a microsecond and the timestamp is the floor of its value (whole
    /// seconds still come back exactly); `FirestoreTimestamp.maximum.date`, which the Double rounds
    /// up to 10000-01-01, reads as the maximum.
    /// - Throws: `SchemaInputError` (`value.timestamp-range`) for a date outside
    ///   0001-01-01 … 9999-12-31 UTC or one that is not finite.
    public init(date: Date) throws {
        let t = date.timeIntervalSinceReferenceDate
        // The last microsecond of 9999: its Date is rounded up to 10000-01-01T00:00:00Z.
        if date == FirestoreTimestamp.maximum.date {
            self = .maximum
            return
        }
        let first = Double(FirestoreTimestamp.minimum.seconds - Self.referenceDateSeconds)
        let last = Double(FirestoreTimestamp.maximum.seconds - Self.referenceDateSeconds) + 1
        guard t.isFinite, t >= first, t < last else {
            throw SchemaInputError(
                rule: .timestampRange, pointer: "",
                message: "the date \(t) s after 2001-01-01 is outside 0001-01-01 … 9999-12-31")
        }
        let toEpoch = Self.referenceDateSeconds * 1_000_000
        // Further than 2³² s from 2001 a Date is coarser than half a microsecond: floor its value.
        guard abs(t) < 4_294_967_296 else {
            let seconds = t.rounded(.down)
            let micros = Int64(seconds) * 1_000_000 + Int64(((t - seconds) * 1_000_000).rounded(.down))
            let floor = Self.fromEpoch(microseconds: micros + toEpoch)
            try self.init(seconds: floor.seconds, microseconds: floor.microseconds)
            return
        }
        // The last microsecond whose Date is not after `date` (each microsecond has its own Date here).
        var micros = Int64((t * 1_000_000).rounded(.down))
        while Self.referenceInterval(micros + 1) <= t { micros += 1 }
        while Self.referenceInterval(micros) > t { micros -= 1 }
        // Or the next one, when `date` is a Date that seconds-since-1970 arithmetic made of it.
        let next = Self.fromEpoch(microseconds: micros + 1 + toEpoch)
        let chosen =
            next.datesFromSecondsSince1970.contains(date) ? next : Self.fromEpoch(microseconds: micros + toEpoch)
        try self.init(seconds: chosen.seconds, microseconds: chosen.microseconds)
    }

    /// Seconds and microseconds (0 ..< 1,000,000) of microseconds since the epoch, not range-checked.
    private static func fromEpoch(microseconds: Int64) -> FirestoreTimestamp {
        let (q, r) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return FirestoreTimestamp(unchecked: r < 0 ? q - 1 : q, Int32(r < 0 ? r + 1_000_000 : r))
    }
}
