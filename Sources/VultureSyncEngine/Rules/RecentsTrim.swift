import VultureSchemaCore
import VultureSyncSchema

/// Where a local row came from: pulled from the server, or made on this device and never synced.
public enum RowOrigin: String, Sendable, Hashable, CaseIterable {
    /// The row arrived by sync (a pulled document).
    case server
    /// The row was made on this device (an import, a service download) and has not come from the server.
    case local
}

/// One flight as the recents trim sees it (schema §5.3, §5.5).
public struct RecentsRow: Sendable, Hashable {
    /// The flight id.
    public var id: String
    /// `lastOpenedAt`: non-nil = in Recents.
    public var lastOpenedAt: FirestoreTimestamp?
    /// `inLogbook`: a logbook flight (true) or recents-only (false).
    public var inLogbook: Bool
    /// Where the row came from.
    public var origin: RowOrigin

    /// A row as given.
    public init(id: String, lastOpenedAt: FirestoreTimestamp?, inLogbook: Bool, origin: RowOrigin) {
        self.id = id
        self.lastOpenedAt = lastOpenedAt
        self.inLogbook = inLogbook
        self.origin = origin
    }

    /// A flight document's row: `lastOpenedAt` and `inLogbook` read at the subjects of the trim rows
    /// of `Spec/sync-rules.tsv` (a value of another type counts as missing, `inLogbook` as false).
    public init(document: StoredDocument, origin: RowOrigin) {
        id = document.id
        lastOpenedAt = SyncRule.recentsNewestFirst.subject.flatMap { SyncRuleValues.timestamp(document.value(of: $0)) }
        inLogbook = SyncRule.recentsBeyondCapLogbook.subject.map { document.value(of: $0) == .boolean(true) } ?? false
        self.origin = origin
    }
}

/// One change the recents trim makes to a flight.
public struct RecentsTrimChange: Sendable, Hashable {
    /// What happens to the flight.
    public enum Action: String, Sendable, Hashable, CaseIterable {
        /// `lastOpenedAt` is cleared (a logbook flight beyond the cap); the flight stays in the logbook.
        case clearLastOpenedAt
        /// The flight is tombstoned (a recents-only flight beyond the cap, or stranded).
        case tombstone
    }

    /// Why.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// Beyond the cap (`SchemaLimits.recentsMax`) in the trim order.
        case cap
        /// A recents-only flight that arrived by sync without a date.
        case stranded
    }

    /// The flight id.
    public var id: String
    /// What happens.
    public var action: Action
    /// Why.
    public var reason: Reason

    /// A change as given.
    public init(id: String, action: Action, reason: Reason) {
        self.id = id
        self.action = action
        self.reason = reason
    }
}

/// The recents trim, iOS's trimRecents exactly (schema §5.3, §5.5; `Spec/sync-rules.tsv` area trim),
/// applied locally after every pull:
///
/// - The flights carrying `lastOpenedAt` are ranked by the trim's `order` rows: newest first, equal
///   instants by id (ascending UTF-8 bytes). The first `recentsCap` (`SchemaLimits.recentsMax`) keep
///   their date; beyond them a logbook flight loses its date and a recents-only flight is tombstoned.
///   The cap counts rows of every origin (Spec/pins.tsv `recentsCapEveryOrigin`).
/// - A recents-only flight without a date that came from the server ("stranded") is tombstoned; a
///   local one (a service download never selected) is left alone.
public enum RecentsTrim {
    /// The changes the trim makes to `rows`, sorted by id (UTF-8 order). Rows are live flights; ids
    /// are expected to be unique (a repeated id is trimmed as often as it appears).
    public static func changes(_ rows: [RecentsRow]) -> [RecentsTrimChange] {
        let keys = SyncRule.rows(.trim, .order)
        let cap = max(0, Int(clamping: SyncRule.recentsCap.parameter ?? SchemaLimits.recentsMax))
        func value(_ row: RecentsRow) -> (SyncRuleSubject) -> FirestoreValue? {
            { subject in
                if subject.isDocumentId { return .string(row.id) }
                if subject == SyncRule.recentsNewestFirst.subject { return row.lastOpenedAt.map { .timestamp($0) } }
                return nil
            }
        }
        let dated = rows.enumerated().filter { $0.element.lastOpenedAt != nil }.sorted { a, b in
            let c = SyncRuleValues.compare(keys, value(a.element), value(b.element))
            return c != 0 ? c < 0 : a.offset < b.offset
        }.map(\.element)
        var changes: [RecentsTrimChange] = []
        for row in dated.dropFirst(cap) {
            changes.append(
                RecentsTrimChange(id: row.id, action: row.inLogbook ? .clearLastOpenedAt : .tombstone, reason: .cap))
        }
        for row in rows where row.lastOpenedAt == nil && !row.inLogbook && row.origin == .server {
            changes.append(RecentsTrimChange(id: row.id, action: .tombstone, reason: .stranded))
        }
        return changes.enumerated().sorted { a, b in
            if a.element.id != b.element.id { return SyncRuleValues.utf8Precedes(a.element.id, b.element.id) }
            return a.offset < b.offset
        }.map(\.element)
    }
}
