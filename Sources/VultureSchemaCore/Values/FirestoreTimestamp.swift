/// A Firestore timestamp: whole seconds since 1970-01-01T00:00:00Z plus microseconds, UTC.
///
/// Firestore keeps microsecond precision; the range is 0001-01-01T00:00:00Z …
/// 9999-12-31T23:59:59.999999Z (Goldens/FORMAT.md). The initialisers reject anything outside with
/// `InputRule.timestampRange`. Ordered by time.
public struct FirestoreTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since the Unix epoch (may be negative).
    public let seconds: Int64
    /// Microseconds within the second, 0 ..< 1,000,000.
    public let microseconds: Int32

    /// The earliest timestamp Firestore stores: 0001-01-01T00:00:00Z.
    public static let minimum = FirestoreTimestamp(unchecked: -62_135_596_800, 0)
    /// The latest timestamp Firestore stores: 9999-12-31T23:59:59.999999Z.
    public static let maximum = FirestoreTimestamp(unchecked: 253_402_300_799, 999_999)

    package init(unchecked seconds: Int64, _ microseconds: Int32) {
        self.seconds = seconds
        self.microseconds = microseconds
    }

    /// A timestamp from seconds and microseconds since the epoch.
    /// - Throws: `SchemaInputError` (`value.timestamp-range`) when microseconds are outside
    ///   0 ..< 1,000,000 or the instant is outside Firestore's range.
    public init(seconds: Int64, microseconds: Int32 = 0) throws {
        guard (0..<1_000_000).contains(microseconds) else {
            throw SchemaInputError(
                rule: .timestampRange, pointer: "", message: "microseconds \(microseconds) outside 0..<1000000")
        }
        let t = FirestoreTimestamp(unchecked: seconds, microseconds)
        guard t >= .minimum, t <= .maximum else {
            throw SchemaInputError(
                rule: .timestampRange, pointer: "",
                message: "\(seconds) s since 1970 is outside 0001-01-01 … 9999-12-31")
        }
        self = t
    }

    /// Microseconds since the epoch.
    public var microsecondsSinceEpoch: Int64 { seconds * 1_000_000 + Int64(microseconds) }

    /// A timestamp from epoch milliseconds (the settings `t` clock, schema §2 settings/synced).
    /// - Throws: `SchemaInputError` (`value.timestamp-range`) outside Firestore's range.
    public init(epochMilliseconds ms: Int64) throws {
        let (q, r) = ms.quotientAndRemainder(dividingBy: 1000)
        let (s, m) = r < 0 ? (q - 1, r + 1000) : (q, r)
        try self.init(seconds: s, microseconds: Int32(m * 1000))
    }

    /// Earlier instants first.
    public static func < (a: FirestoreTimestamp, b: FirestoreTimestamp) -> Bool {
        (a.seconds, a.microseconds) < (b.seconds, b.microseconds)
    }

    /// RFC 3339 in UTC with `Z` and the shortest exact fraction of 0, 3 or 6 digits
    /// (`2026-10-20T14:03:07Z`, `…07.120Z`, `…07.123456Z`) — the canonical form (Goldens/FORMAT.md).
    public var description: String { rfc3339 }

    /// See ``description``.
    public var rfc3339: String {
        var (d, secOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        if secOfDay < 0 {
            secOfDay += 86_400
            d -= 1
        }
        let (y, m, dd) = CivilCalendar.civil(fromDays: d)
        var s = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(dd, 2) + "T"
        s += pad(secOfDay / 3600, 2) + ":" + pad(secOfDay / 60 % 60, 2) + ":" + pad(secOfDay % 60, 2)
        if microseconds != 0 {
            if microseconds % 1000 == 0 {
                s += "." + pad(Int64(microseconds / 1000), 3)
            } else {
                s += "." + pad(Int64(microseconds), 6)
            }
        }
        return s + "Z"
    }

    private func pad(_ v: Int64, _ width: Int) -> String {
        let digits = String(v)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// Parses RFC 3339.
    ///
    /// - Parameters:
    ///   - text: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    ///   - allowedFractionDigits: which fraction lengths are accepted (`[0, 3, 6]` for canonical
    ///     JSON, `0...9` for REST). Digits past the sixth are dropped: rounded down to the
    ///     microsecond, as Firestore stores them.
    ///   - allowOffset: whether `±HH:MM` is accepted besides `Z`.
    /// - Returns: nil when the text is malformed (the caller names the rule); throws when the
    ///   instant is well-formed but outside Firestore's range.
    /// - Throws: `SchemaInputError` (`value.timestamp-range`).
    public static func parseRFC3339(
        _ text: String, allowedFractionDigits: Set<Int>, allowOffset: Bool
    ) throws -> FirestoreTimestamp? {
        var text = text
        return try text.withUTF8 { b throws(SchemaInputError) in
            try parseRFC3339(utf8: b, allowOffset: allowOffset) { allowedFractionDigits.contains($0) }
        }
    }

    /// ``parseRFC3339(_:allowedFractionDigits:allowOffset:)`` with the canonical rules
    /// (Goldens/FORMAT.md): 0, 3 or 6 fraction digits, `Z` only; nil when malformed or out of range.
    package static func parseCanonical(utf8 b: UnsafeBufferPointer<UInt8>) -> FirestoreTimestamp? {
        try? parseRFC3339(utf8: b, allowOffset: false) { $0 == 0 || $0 == 3 || $0 == 6 }
    }

    /// ``parseRFC3339(_:allowedFractionDigits:allowOffset:)`` on UTF-8 bytes; `allowedFractionDigits`
    /// says which fraction lengths are accepted.
    @inline(__always)
    static func parseRFC3339(
        utf8 b: UnsafeBufferPointer<UInt8>, allowOffset: Bool, allowedFractionDigits: (Int) -> Bool
    ) throws(SchemaInputError) -> FirestoreTimestamp? {
        func digits(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= b.count else { return nil }
            var v: Int64 = 0
            for i in from..<(from + count) {
                let c = b[i]
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int64(c - 0x30)
            }
            return v
        }
        guard b.count >= 20, let year = digits(0, 4), b[4] == 0x2D, let month = digits(5, 2), b[7] == 0x2D,
            let day = digits(8, 2), b[10] == 0x54, let hour = digits(11, 2), b[13] == 0x3A,
            let minute = digits(14, 2), b[16] == 0x3A, let second = digits(17, 2)
        else { return nil }
        var i = 19
        var micros: Int64 = 0
        var fractionDigits = 0
        if i < b.count, b[i] == 0x2E {
            i += 1
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            fractionDigits = i - start
            guard fractionDigits > 0 else { return nil }
            for k in 0..<6 {
                micros = micros * 10 + (k < fractionDigits ? Int64(b[start + k] - 0x30) : 0)
            }
        }
        guard allowedFractionDigits(fractionDigits) else { return nil }
        var offsetSeconds: Int64 = 0
        guard i < b.count else { return nil }
        if b[i] == 0x5A {
            i += 1
        } else if allowOffset, b[i] == 0x2B || b[i] == 0x2D, let oh = digits(i + 1, 2), i + 3 < b.count,
            b[i + 3] == 0x3A, let om = digits(i + 4, 2), oh < 24, om < 60
        {
            offsetSeconds = (oh * 3600 + om * 60) * (b[i] == 0x2D ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        guard year >= 1, (1...12).contains(month), day >= 1,
            day <= CivilCalendar.daysInMonth(year: year, month: month), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = CivilCalendar.days(fromCivil: year, month, day)
        let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        let t = FirestoreTimestamp(unchecked: secs, Int32(micros))
        guard t >= .minimum, t <= .maximum else {
            let text = String(decoding: b, as: UTF8.self)
            throw SchemaInputError(
                rule: .timestampRange, pointer: "", message: "\(text) is outside 0001-01-01 … 9999-12-31 UTC")
        }
        return t
    }
}

/// The proleptic Gregorian calendar's day arithmetic (days since 1970-01-01), after H. Hinnant's
/// public-domain `days_from_civil` / `civil_from_days` algorithms.
/// Days ↔ proleptic Gregorian civil dates (year, month 1–12, day 1–31), days counted from 1970-01-01;
/// shared inside this package (timestamps, `date-string` fields, IGC header dates).
package enum CivilCalendar {
    package static func isLeap(_ y: Int64) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    package static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    package static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    package static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }
}

extension FirestoreTimestamp {
    /// The instant `seconds` and `microseconds` later (earlier when negative), exact within Firestore's
    /// range and clamped to it beyond, however large the deltas (no overflow traps).
    public func adding(seconds deltaSeconds: Int64 = 0, microseconds deltaMicroseconds: Int64 = 0)
        -> FirestoreTimestamp
    {
        // Whole seconds of the microsecond delta join the seconds; the rest (under one second each
        // way) lands in 0..<1_000_000 with a carry of -1, 0 or 1.
        let (wholeSeconds, rest) = deltaMicroseconds.quotientAndRemainder(dividingBy: 1_000_000)
        let within = Int64(microseconds) + rest
        let carry: Int64 = within < 0 ? -1 : within >= 1_000_000 ? 1 : 0
        let (partial, overflowed) = seconds.addingReportingOverflow(deltaSeconds)
        if overflowed { return deltaSeconds < 0 ? .minimum : .maximum }
        let (total, overflowedAgain) = partial.addingReportingOverflow(wholeSeconds + carry)
        if overflowedAgain { return wholeSeconds + carry < 0 ? .minimum : .maximum }
        return (try? FirestoreTimestamp(seconds: total, microseconds: Int32(within - carry * 1_000_000)))
            ?? (total < 0 ? .minimum : .maximum)
    }
}
