import VultureSchemaCore
import VultureSyncSchema

/// A tombstone as the purge sees it: its document name (or id) and `deletedAt`.
public struct PurgeCandidate: Sendable, Hashable {
    /// The document name or path (`users/u/flights/…`); the purge's tie-break orders by it.
    public var name: String
    /// `deletedAt`; a tombstone without one is never purged.
    public var deletedAt: FirestoreTimestamp?

    /// A candidate as given.
    public init(name: String, deletedAt: FirestoreTimestamp?) {
        self.name = name
        self.deletedAt = deletedAt
    }
}

/// What deleting a record releases in Cloud Storage (schema §5.4, §6).
public struct ReleasedObjects: Sendable, Hashable {
    /// The Storage object paths to delete, in blob-table order.
    public var objectPaths: [String]
    /// The change to `users/{uid}.storageBytes` in the tombstone's own batch: minus the gzBytes of
    /// the objects deleted (0 when none is), in bytes.
    public var storageBytesDelta: Int64

    /// A release as given.
    public init(objectPaths: [String], storageBytesDelta: Int64) {
        self.objectPaths = objectPaths
        self.storageBytesDelta = storageBytesDelta
    }
}

/// Tombstones (schema §5.4; `Spec/sync-rules.tsv` area tombstones): the document a delete writes,
/// the Storage objects it deletes and the `storageBytes` change of its batch, and the purge after
/// `SchemaConstants.tombstoneRetentionDays` days, locally and in Firestore.
public enum TombstoneRules {
    /// Seconds in a day of the retention (UTC days; no leap seconds in Firestore timestamps).
    static let secondsPerDay: Int64 = 86_400

    /// The tombstone a delete writes: a full replace holding only the common fields with
    /// `deleted: true` and `deletedAt` (the context's, else its `clientUpdatedAt`), in `form`
    /// (Spec/pins.tsv `tombstoneFullReplace`); the schema module's encoder builds it.
    public static func tombstone(
        context: WriterContext, form: DocumentForm, encoder: DocumentEncoder = DocumentEncoder()
    ) -> [String: FirestoreValue] {
        encoder.commonFields(context, form: form, deleted: true)
    }

    /// What deleting `document` (the live document of `collection` being tombstoned) releases: for
    /// each blob kind of `Spec/blobs.tsv` stored on the document, its object, unless a `criterion` row
    /// of the tombstones area for this document type finds a live document in `otherLiveDocuments`
    /// sharing it (a map file's content object stays while another live mapFiles document has its
    /// contentHash). Tombstones among `otherLiveDocuments` are ignored. A blob map without a path
    /// releases nothing; its gzBytes (an integer, else 0) count only when its object is deleted
    /// (Spec/pins.tsv `tombstoneStorageBytes`).
    public static func releasedObjects(
        collection: SyncCollection, document: [String: FirestoreValue],
        otherLiveDocuments: [[String: FirestoreValue]] = []
    ) -> ReleasedObjects {
        let documentType = collection.documentType
        let sharing = SyncRule.rows(.tombstones, .criterion).filter { $0.subject?.documentType == documentType }
        let live = otherLiveDocuments.filter { $0[SyncRuleValues.deletedField] != .boolean(true) }
        let shared = live.contains { other in
            !sharing.isEmpty
                && sharing.allSatisfy { criterion in
                    guard let subject = criterion.subject else { return false }
                    let mine = FirestoreValue.map(document)[fieldPath: subject.fieldPath]
                    let theirs = FirestoreValue.map(other)[fieldPath: subject.fieldPath]
                    return SyncRuleValues.matches(criterion.match, mine, theirs)
                }
        }
        var paths: [String] = []
        var delta: Int64 = 0
        for kind in StorageObjectKind.allCases where kind.recordType == documentType && !shared {
            guard case .map(let blob)? = document[kind.mapField], case .string(let path)? = blob[pathKey] else {
                continue
            }
            paths.append(path)
            delta -= SyncRuleValues.integer(blob[gzBytesKey]) ?? 0
        }
        return ReleasedObjects(objectPaths: paths, storageBytesDelta: delta)
    }

    /// The blob map keys the release reads (`Spec/fields.tsv` IGCBlob and ContentBlob).
    static let pathKey = StorageObjectKind.MapField.path
    static let gzBytesKey = StorageObjectKind.MapField.gzBytes

    /// `now` minus the retention (`purgeAge` of `Spec/sync-rules.tsv`, days of 86,400 s); nil when it
    /// falls before the first representable instant (nothing is old enough).
    public static func purgeCutoff(now: FirestoreTimestamp) -> FirestoreTimestamp? {
        let days = SyncRule.purgeAge.parameter ?? SchemaConstants.tombstoneRetentionDays
        let (age, overflow) = days.multipliedReportingOverflow(by: secondsPerDay)
        guard !overflow else { return nil }
        let (seconds, under) = now.seconds.subtractingReportingOverflow(age)
        guard !under else { return nil }
        return try? FirestoreTimestamp(seconds: seconds, microseconds: now.microseconds)
    }

    /// The purge: the tombstones whose `deletedAt` is strictly before ``purgeCutoff(now:)``, ordered
    /// by the `order` rows of the tombstones area (oldest first, then by name), in batches of at most
    /// `purgeBatchWrites` (`SchemaLimits.engineBatchMaxWrites`) deletes. The same batches serve the
    /// local store and Firestore.
    public static func purgeBatches(_ tombstones: [PurgeCandidate], now: FirestoreTimestamp) -> [[String]] {
        guard let cutoff = purgeCutoff(now: now) else { return [] }
        let keys = SyncRule.rows(.tombstones, .order)
        let batch = max(1, Int(clamping: SyncRule.purgeBatchWrites.parameter ?? SchemaLimits.engineBatchMaxWrites))
        func value(_ c: PurgeCandidate) -> (SyncRuleSubject) -> FirestoreValue? {
            { subject in
                if subject.isDocumentId { return .string(c.name) }
                return c.deletedAt.map { .timestamp($0) }
            }
        }
        let due = tombstones.enumerated().filter { ($0.element.deletedAt.map { $0 < cutoff }) ?? false }.sorted {
            a, b in
            let c = SyncRuleValues.compare(keys, value(a.element), value(b.element))
            return c != 0 ? c < 0 : a.offset < b.offset
        }.map(\.element.name)
        return stride(from: 0, to: due.count, by: batch).map { Array(due[$0..<min($0 + batch, due.count)]) }
    }
}
