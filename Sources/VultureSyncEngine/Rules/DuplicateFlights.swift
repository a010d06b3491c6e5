import VultureSchemaCore
import VultureSyncSchema

/// One group of the R4 duplicate pass: the flight kept, with the others' fields merged into it, and
/// the flights to tombstone.
public struct DuplicateGroup: Sendable, Hashable {
    /// The id of the flight kept.
    public var keep: String
    /// The ids tombstoned, in keep order.
    public var tombstone: [String]
    /// The kept flight's document after the merges (stored form); push it if it differs from the pulled one.
    public var document: [String: FirestoreValue]
    /// A task id the merged document names but whose task is not on the device (``MergeResult/deferredTaskId``).
    public var deferredTaskId: String?

    /// A group as given.
    public init(keep: String, tombstone: [String], document: [String: FirestoreValue], deferredTaskId: String?) {
        self.keep = keep
        self.tombstone = tombstone
        self.document = document
        self.deferredTaskId = deferredTaskId
    }
}

/// The R4 duplicate pass (schema §4 risk R4; `Spec/sync-rules.tsv` area duplicates), run once after
/// iOS's first full pull: Android hashes a flight's original bytes, iOS re-encoded text, so a
/// non-UTF-8 IGC file can arrive under two ids.
///
/// Live flights that satisfy every `criterion` row (the same filename and `summary.takeoffAt`, both
/// set; the same `pilotName`, two nulls alike) form a group; the first by the `order` rows (earliest
/// `importedAt`, a missing one last; then the smaller id) is kept. Each other member is merged into it
/// with ``DocumentMerge`` (no base, the member as local, the kept document as the server), the kept
/// document keeping its own blob map (Spec/pins.tsv `duplicatesMergeSides`); the others are tombstoned.
public enum DuplicateFlights {
    /// The flight's task reference: the field of its `deferredUntilTaskArrives` row of `Spec/merge-rules.tsv`.
    static let taskIdField = MergeRule.all.first {
        $0.kind == .deferredUntilTaskArrives && $0.documentType == SyncCollection.flights.documentType
    }?.fieldPath

    /// The groups of duplicates among `flights` (tombstones are skipped; an id given twice counts once,
    /// its first document), sorted by the kept id (UTF-8 order). `context` gives the tasks on the
    /// device for the merged `taskId`.
    public static func groups(_ flights: [StoredDocument], context: MergeContext = MergeContext()) -> [DuplicateGroup] {
        let criteria = SyncRule.rows(.duplicates, .criterion)
        let order = SyncRule.rows(.duplicates, .order)
        var seen = Set<String>()
        var groups: [[FirestoreValue?]: [StoredDocument]] = [:]
        var keyOrder: [[FirestoreValue?]] = []
        for flight in flights where !flight.isTombstone && seen.insert(flight.id).inserted {
            var key: [FirestoreValue?] = []
            var eligible = true
            for criterion in criteria {
                guard let subject = criterion.subject else { continue }
                let v = flight.value(of: subject)
                if criterion.match == .equalNonNull && SyncRuleValues.isMissing(v) { eligible = false }
                key.append(SyncRuleValues.isMissing(v) ? nil : v)
            }
            guard eligible else { continue }
            if groups[key] == nil { keyOrder.append(key) }
            groups[key, default: []].append(flight)
        }
        var out: [DuplicateGroup] = []
        for key in keyOrder {
            guard let members = groups[key], members.count > 1 else { continue }
            let ranked = members.sorted { a, b in
                let c = SyncRuleValues.compare(order, a.value, b.value)
                return c != 0 ? c < 0 : SyncRuleValues.utf8Precedes(a.id, b.id)
            }
            let kept = ranked[0]
            // The members' task ids count as present while folding, so no intermediate merge defers one;
            // the merged result is then checked against the tasks really on the device.
            var folding = context
            folding.deferredTaskId = nil
            for member in ranked {
                if case .string(let id)? = taskIdField.flatMap({ member.fields[$0] }) {
                    folding.tasksOnDevice.insert(id)
                }
            }
            var document = kept.fields
            for other in ranked.dropFirst() {
                document =
                    DocumentMerge.merge(
                        base: nil, local: other.fields, remote: document, collection: .flights, context: folding
                    ).document
                for kind in StorageObjectKind.allCases where kind.recordType == SyncCollection.flights.documentType {
                    document[kind.mapField] = kept.fields[kind.mapField]
                }
            }
            let final = DocumentMerge.merge(
                base: document, local: document, remote: document, collection: .flights,
                context: MergeContext(tasksOnDevice: context.tasksOnDevice))
            out.append(
                DuplicateGroup(
                    keep: kept.id, tombstone: ranked.dropFirst().map(\.id), document: final.document,
                    deferredTaskId: final.deferredTaskId))
        }
        return out.sorted { SyncRuleValues.utf8Precedes($0.keep, $1.keep) }
    }
}
