import Foundation

/// The fields of a flight the R4 duplicate check compares (schema §4, risk R4).
public struct FlightDuplicateFields: Equatable, Sendable {
    /// The flight document id.
    public var id: String
    /// `filename`.
    public var filename: String?
    /// `summary.takeoffAt`.
    public var takeoffAt: Date?
    /// `pilotName`.
    public var pilotName: String?
    /// `importedAt`.
    public var importedAt: Date?

    /// Memberwise; the values as pulled from the flight documents.
    public init(id: String, filename: String?, takeoffAt: Date?, pilotName: String?, importedAt: Date?) {
        self.id = id
        self.filename = filename
        self.takeoffAt = takeoffAt
        self.pilotName = pilotName
        self.importedAt = importedAt
    }
}

/// The outcome of the R4 duplicate check for one pair: keep one id, tombstone the other.
public struct FlightDuplicateResolution: Equatable, Sendable {
    /// The document kept (its user fields absorb the other's by the §5 merge rules).
    public var keep: String
    /// The document tombstoned.
    public var tombstone: String

    /// Memberwise: the id to keep and the id to tombstone.
    public init(keep: String, tombstone: String) {
        self.keep = keep
        self.tombstone = tombstone
    }
}

/// Risk R4: the same flight imported on Android (original bytes) and on iOS (re-encoded text)
/// gets two ids (schema §4, risk R4).
public enum FlightDuplicates {
    /// Whether `a` and `b` are the same flight under two ids, and which to keep.
    ///
    /// Duplicates: different ids, the same non-nil `filename`, the same non-nil `takeoffAt`, and
    /// the same `pilotName` (both nil counts as the same). Keep the earliest `importedAt` (a missing
    /// importedAt counts as latest); pin for a tie: keep the smaller id (UTF-8 byte order), so every
    /// device decides alike. Returns nil when they are not duplicates.
    public static func resolve(_ a: FlightDuplicateFields, _ b: FlightDuplicateFields) -> FlightDuplicateResolution? {
        guard a.id != b.id,
            let fa = a.filename, let fb = b.filename, fa == fb,
            let ta = a.takeoffAt, let tb = b.takeoffAt, ta == tb,
            a.pilotName == b.pilotName
        else { return nil }
        let aFirst: Bool
        switch (a.importedAt, b.importedAt) {
        case (let x?, let y?) where x != y: aFirst = x < y
        case (_?, nil): aFirst = true
        case (nil, _?): aFirst = false
        default: aFirst = Array(a.id.utf8).lexicographicallyPrecedes(Array(b.id.utf8))
        }
        return aFirst
            ? FlightDuplicateResolution(keep: a.id, tombstone: b.id)
            : FlightDuplicateResolution(keep: b.id, tombstone: a.id)
    }

    /// Runs the check over a pulled logbook: within each group of duplicates the one to keep
    /// (by the ordering of ``resolve(_:_:)``) survives and every other member is tombstoned.
    /// Returns the resolutions sorted by tombstoned id.
    public static func resolveAll(_ flights: [FlightDuplicateFields]) -> [FlightDuplicateResolution] {
        struct Key: Hashable {
            let filename: String
            let takeoffAt: Date
            let pilotName: String?
        }
        var groups: [Key: [FlightDuplicateFields]] = [:]
        for f in flights {
            guard let name = f.filename, let t = f.takeoffAt else { continue }
            groups[Key(filename: name, takeoffAt: t, pilotName: f.pilotName), default: []].append(f)
        }
        var out: [FlightDuplicateResolution] = []
        for (_, members) in groups {
            var seen = Set<String>()
            let unique = members.filter { seen.insert($0.id).inserted }
            guard unique.count > 1 else { continue }
            var winner = unique[0]
            for m in unique.dropFirst() where resolve(winner, m)?.keep == m.id { winner = m }
            for m in unique where m.id != winner.id {
                out.append(FlightDuplicateResolution(keep: winner.id, tombstone: m.id))
            }
        }
        return out.sorted { $0.tombstone < $1.tombstone }
    }
}
