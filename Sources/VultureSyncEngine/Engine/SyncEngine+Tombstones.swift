import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

extension SyncEngine {
    /// The 90-day purge (schema §5.4): tombstones whose `deletedAt` is older than the retention are
    /// removed locally and deleted in Firestore (the single-field query `deletedAt < now − 90 days`,
    /// in batches of at most 400 deletes), by the device clock. A delete pushed more than the
    /// retention after it was made is purged at once: the devices that kept the flight agreed then
    /// keep it (schema §5.4 accepts what a device offline that long brings about).
    /// - Throws: ``SyncError``.
    public func purgeTombstones() throws(SyncError) {
        let cutoff = clock().adding(seconds: -SchemaConstants.tombstoneRetentionDays * 86_400)
        for collection in SyncCollection.pushOrder where collection.hasCommonFields {
            let field =
                configuration.mechanisms.purgeSelectsTombstones
                ? CommonFields.Field.deletedAt : CommonFields.Field.clientUpdatedAt
            let query = FirestoreQuery(
                parent: collection.parentPath(uid: uid), collectionId: collection.rawValue,
                filters: [FirestoreQuery.Filter(FieldPath(unchecked: [field]), .lessThan, .timestamp(cutoff))])
            let old = try firestore("purge query \(collection.rawValue)") { () throws(FirestoreError) in
                try self.query(query)
            }
            let stale =
                configuration.mechanisms.purgeSelectsTombstones
                ? old.filter { $0.fields[CommonFields.Field.deleted] == .boolean(true) }
                : old
            var purged: [String] = []
            var start = 0
            let batch = max(1, configuration.mechanisms.purgeBatchMaxWrites)
            while start < stale.count {
                let chunk = stale[start..<min(stale.count, start + batch)]
                let deletes = chunk.map { FirestoreWrite.delete(path: $0.path) }
                _ = try firestore("purge \(collection.rawValue)") { () throws(FirestoreError) in
                    try send(deletes)
                }
                purged += chunk.map(\.id)
                start += chunk.count
            }
            for row in store.rows(collection, where: { $0.isTombstone && !$0.isDirty }) {
                if case .timestamp(let t)? = row.fields[CommonFields.Field.deletedAt], t < cutoff {
                    store.remove(collection, id: row.id)
                    if !purged.contains(row.id) { purged.append(row.id) }
                }
            }
            if !purged.isEmpty { note(.purged(collection, ids: purged.sorted())) }
            try commitStore()
        }
    }

}
