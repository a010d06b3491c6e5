import Foundation
import VultureSchemaCore

/// What a flight document takes from an IGC file without analysing the track: the six header
/// fields the apps let a pilot edit, the flight date and the first and last fix times
/// (schema §2 flights: pilotName … competitionClass; summary.takeoffAt, landingAt, duration).
///
/// IGC records read: `HxDTE` (date, `HFDTEddmmyy` or `HFDTEDATE:ddmmyy,nn`), `HxPLT` (pilot),
/// `HxCM2` (passenger), `HxGTY` (glider type), `HxGID` (registration), `HxCID` (competition id),
/// `HxCCL` (competition class), and `B` fixes (`BHHMMSS…`). A header value is the text after the
/// first `:` (or after the code), trimmed; empty and `NIL` values count as absent. Text that is not
/// UTF-8 is read as ISO-8859-1, as loggers that write Latin-1 intend.
public struct IGCHeader: Sendable, Hashable {
    /// The pilot (`HxPLT`); of several records the first non-empty one wins, as for the five below.
    public var pilotName: String?
    /// The passenger or second pilot (`HxCM2`).
    public var passengerName: String?
    /// The glider type (`HxGTY`).
    public var gliderType: String?
    /// The glider registration (`HxGID`).
    public var gliderRegistration: String?
    /// The competition id (`HxCID`).
    public var competitionIdentification: String?
    /// The competition class (`HxCCL`).
    public var competitionClass: String?
    /// The UTC date of the flight (`HFDTE`), as days since 1970-01-01.
    public var dateDays: Int64?
    /// The first fix, UTC: the earliest fix time, so that a record out of order (a logger's stray
    /// fix) never puts it after ``lastFix``.
    public var firstFix: FirestoreTimestamp?
    /// The last fix, UTC: the latest fix time, past midnight of the first fix's day when the clock wrapped.
    public var lastFix: FirestoreTimestamp?
    /// Number of `B` records.
    public var fixCount: Int

    /// Reads an IGC file's bytes. Never fails: what cannot be read stays nil.
    public init(igcBytes: Data) {
        let text = String(data: igcBytes, encoding: .utf8) ?? String(data: igcBytes, encoding: .isoLatin1) ?? ""
        var header = IGCHeader.empty
        var first: Int64? = nil
        var last: Int64? = nil
        var previous: Int64? = nil
        var dayOffset: Int64 = 0
        for rawLine in text.split(
            omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        {
            let line = Substring(rawLine)
            if line.hasPrefix("B"), let secs = Self.fixSeconds(line) {
                header.fixCount += 1
                if let p = previous, secs + dayOffset < p - 12 * 3600 { dayOffset += 86_400 }
                let t = secs + dayOffset
                previous = t
                first = min(first ?? t, t)
                last = max(last ?? t, t)
                continue
            }
            guard line.hasPrefix("H"), line.count >= 5 else { continue }
            let code = line.dropFirst(2).prefix(3).uppercased()
            let rest = line.dropFirst(5)
            let value: String
            if let colon = rest.firstIndex(of: ":") {
                value = String(rest[rest.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            } else {
                value = String(rest).trimmingCharacters(in: .whitespaces)
            }
            let present: String? = value.isEmpty || value.uppercased() == "NIL" ? nil : value
            switch code {
            case "DTE": header.dateDays = Self.dateDays(value)
            case "PLT": header.pilotName = header.pilotName ?? present
            case "CM2": header.passengerName = header.passengerName ?? present
            case "GTY": header.gliderType = header.gliderType ?? present
            case "GID": header.gliderRegistration = header.gliderRegistration ?? present
            case "CID": header.competitionIdentification = header.competitionIdentification ?? present
            case "CCL": header.competitionClass = header.competitionClass ?? present
            default: break
            }
        }
        if let day = header.dateDays {
            if let f = first { header.firstFix = try? FirestoreTimestamp(seconds: day * 86_400 + f) }
            if let l = last { header.lastFix = try? FirestoreTimestamp(seconds: day * 86_400 + l) }
        }
        self = header
    }

    static let empty = IGCHeader(
        pilotName: nil, passengerName: nil, gliderType: nil, gliderRegistration: nil, competitionIdentification: nil,
        competitionClass: nil, dateDays: nil, firstFix: nil, lastFix: nil, fixCount: 0)

    init(
        pilotName: String?, passengerName: String?, gliderType: String?, gliderRegistration: String?,
        competitionIdentification: String?, competitionClass: String?, dateDays: Int64?, firstFix: FirestoreTimestamp?,
        lastFix: FirestoreTimestamp?, fixCount: Int
    ) {
        self.pilotName = pilotName
        self.passengerName = passengerName
        self.gliderType = gliderType
        self.gliderRegistration = gliderRegistration
        self.competitionIdentification = competitionIdentification
        self.competitionClass = competitionClass
        self.dateDays = dateDays
        self.firstFix = firstFix
        self.lastFix = lastFix
        self.fixCount = fixCount
    }

    /// Seconds of the day of a `BHHMMSS…` record, or nil.
    static func fixSeconds(_ line: Substring) -> Int64? {
        let digits = Array(line.utf8.dropFirst().prefix(6))
        guard digits.count == 6, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let n = digits.map { Int64($0 - 0x30) }
        let h = n[0] * 10 + n[1]
        let m = n[2] * 10 + n[3]
        let s = n[4] * 10 + n[5]
        guard h < 24, m < 60, s < 60 else { return nil }
        return h * 3600 + m * 60 + s
    }

    /// Days since 1970 of `ddmmyy` (after an optional `DATE:`), years 1980–2079.
    static func dateDays(_ value: String) -> Int64? {
        var v = Substring(value)
        if v.uppercased().hasPrefix("DATE:") { v = v.dropFirst(5) }
        let digits = Array(v.utf8.prefix(6))
        guard digits.count == 6, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let n = digits.map { Int64($0 - 0x30) }
        let d = n[0] * 10 + n[1]
        let m = n[2] * 10 + n[3]
        let yy = n[4] * 10 + n[5]
        let y = yy >= 80 ? 1900 + yy : 2000 + yy
        guard (1...12).contains(m), d >= 1, d <= CivilCalendar.daysInMonth(year: y, month: m) else { return nil }
        return CivilCalendar.days(fromCivil: y, m, d)
    }
}
