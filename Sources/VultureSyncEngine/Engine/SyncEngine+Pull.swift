import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

extension SyncEngine {
    /// The collections a pull walks: the push order (tasks before the flights that name them).
    static var pullOrder: [SyncCollection] { SyncCollection.pushOrder }

    /// Pulls every collection (schema §5.2): documents with `updatedAt >= cursor − overlap`, ordered
    /// by `(updatedAt, document name)`, in pages; each page merged into the local rows and committed
    /// with the cursor. Then the recents trim and the deferred task ids.
    /// - Throws: ``SyncError``; the pages applied before the error stay applied.
    public func pull() throws(SyncError) {
        try checkPause()
        let full = isBackAfterLongAbsence
        if full { store.state.cursors = [:] }
        pulledIds = full ? [:] : nil
        defer { pulledIds = nil }
        for collection in Self.pullOrder {
            try pull(collection)
        }
        if full { forgetRecordsTheServerLost() }
        try pullProfile()
        try afterPull()
        store.state.lastPullAt = clock()
        try commitStore()
    }

    /// Whether the last complete pull is older than the tombstone retention: a delete made meanwhile
    /// may have left a tombstone already purged, so this pull starts from no cursor (everything).
    /// A device that never completed a pull but holds rows it pushed is in the same place: a row the
    /// server agreed on may have been deleted and purged since (simulation seed 771).
    var isBackAfterLongAbsence: Bool {
        guard configuration.mechanisms.fullPullAfterLongAbsence else { return false }
        guard let last = store.state.lastPullAt else { return true }
        return clock().seconds - last.seconds > SchemaConstants.tombstoneRetentionDays * 86_400
    }

    /// After the full pull of a device back from a long absence (schema §5.4): a row the server once
    /// agreed on that the pull did not bring was purged there — deleted elsewhere, its tombstone gone.
    /// A live row becomes unknown to the server, so the push makes it again (§5.4 accepts that a
    /// deleted flight comes back then); a tombstone is dropped, the record being gone either way.
    /// Rows the pull brought were merged against their base as always: an old base is still a state
    /// the server's document descends from.
    func forgetRecordsTheServerLost() {
        guard let pulledIds else { return }
        for collection in SyncCollection.allCases where collection != .users {
            // Only the rows to forget are copied out: a base the full pull did not bring.
            let pulled = pulledIds[collection] ?? []
            let lost = store.rows(collection) { $0.base != nil && !pulled.contains($0.id) }
            for var row in lost {
                if row.isTombstone {
                    store.remove(collection, id: row.id)
                    continue
                }
                row.base = nil
                row.baseUpdateTime = nil
                unreserveBlob(&row)
                store.put(row)
            }
        }
    }

    /// The pull query's first page: `updatedAt >= cursor − overlap`, or every document without a cursor.
    func firstPageQuery(_ collection: SyncCollection) -> FirestoreQuery {
        var filters: [FirestoreQuery.Filter] = []
        let cursors = store.state.cursors
        if let cursor = configuration.mechanisms.cursorPerCollection ? cursors[collection] : cursors.values.max() {
            let overlap = configuration.mechanisms.pullOverlapSeconds
            let from = cursor.adding(seconds: -overlap)
            let op = configuration.mechanisms.firstPageOperator
            filters.append(FirestoreQuery.Filter(Self.updatedAt, op, .timestamp(from)))
        }
        return FirestoreQuery(
            parent: collection.parentPath(uid: uid), collectionId: collection.rawValue, filters: filters,
            orderBy: configuration.mechanisms.pullOrderedByUpdatedAt
                ? [FirestoreQuery.Order(Self.updatedAt), FirestoreQuery.Order(.documentName)]
                : [FirestoreQuery.Order(.documentName)],
            limit: configuration.pageSize)
    }

    static let updatedAt = FieldPath(unchecked: [CommonFields.Field.updatedAt])

    /// One collection, page by page. A later page continues after the last `(updatedAt, name)`
    /// seen — never `> updatedAt` alone (ties at one commit's time would be lost) and never the
    /// overlap again (a window with more than a page of writes would loop). A short page ends it.
    func pull(_ collection: SyncCollection) throws(SyncError) {
        var query = firstPageQuery(collection)
        while true {
            let page = try firestore("pull \(collection.rawValue)") { () throws(FirestoreError) in
                try self.query(query)
            }
            for document in page where !holdIfMalformed(document, collection: collection, movesCursor: true) {
                apply(document, collection: collection)
            }
            if configuration.mechanisms.malformedDocuments == .stopThePull,
                let broken = page.first(where: { !schemaErrors($0, collection: collection).isEmpty })
            {
                throw .firestore(FirestoreError(.invalidArgument, "malformed document \(broken.path)"))
            }
            note(.pulledPage(collection, documents: page.count))
            try commitStore()
            guard page.count == query.limit, let last = page.last,
                case .timestamp(let t)? = last.fields[CommonFields.Field.updatedAt]
            else { return }
            if configuration.mechanisms.laterPagesStartAfterName {
                query.startAt = FirestoreQuery.Cursor(
                    values: [.timestamp(t), .reference(databaseName + "/documents/" + last.path)], before: false)
            } else {
                query.filters = [FirestoreQuery.Filter(Self.updatedAt, .greaterThan, .timestamp(t))]
                query.startAt = nil
            }
        }
    }

    /// The profile document (`users/{uid}`): its `storageBytes` decides the cap check.
    func pullProfile() throws(SyncError) {
        let path = SyncCollection.profilePath(uid: uid)
        let profile = try firestore("get profile") { () throws(FirestoreError) in try read(path) }
        store.state.profile = profile?.fields
        try commitStore()
    }

    /// Merges one pulled document into its row (schema §5.3–§5.5) and, for a pull, moves the cursor
    /// (a document read on its own — a reconciliation — does not: the cursor means every document up
    /// to it was pulled); applying a document twice changes nothing.
    func apply(_ document: FirestoreDocument, collection: SyncCollection, movesCursor: Bool = true) {
        let remote = document.fields
        pulledIds?[collection, default: []].insert(document.id)
        if var row = store.row(collection, id: document.id) {
            let hadLocalChanges = row.isDirty
            let releasedHere = objectReleasedHere(row)
            // A document made again since this row's agreement (deleted, its tombstone purged, then
            // written anew) is a new record to this row: the old base says nothing about it, and an
            // object the old record uploaded went with its tombstone, so a blob this device holds is
            // reserved and uploaded again.
            // (A client reports no create times: there the lost object alone tells.)
            let madeAgain = row.baseUpdateTime.map { document.createTime > $0 } ?? false
            if row.base != nil, madeAgain || Self.lostItsObject(row, remote) {
                row.base = nil
                row.baseUpdateTime = nil
                unreserveBlob(&row)
            }
            // Only a row the pilot made on this device since its last agreement (new, or made again
            // after a delete, here or remote) can outlive a remote delete, when made after it: a row
            // the server had live and this device only received or edited was deleted after it was
            // made, whatever the device clocks say (schema §5.4, without trusting a skewed clock).
            let recreated =
                row.base == nil || row.base?[CommonFields.Field.deleted] == .boolean(true) || row.createdSinceAgreement
            let context = MergeContext(
                tasksOnDevice: collection == .flights ? taskIdsOnDevice() : [], deferredTaskId: row.deferredTaskId,
                localCreatedAt: recreated || configuration.mechanisms.arrivalCountsAsCreation ? row.createdAt : nil)
            // A record the server never agreed on is new on both sides: no base, so each field the two
            // made differently goes to the later clientUpdatedAt (or the field's own rule).
            let merged = configuration.mechanisms.merge(row.base, row.fields, remote, collection, context)
            row.fields = merged.document
            if merged.revived, let kind = Self.blobKind(collection), case .map(var map)? = row.fields[kind.mapField] {
                // The tombstone's delete removed the object: it is reserved and uploaded again.
                map[StorageObjectKind.MapField.uploaded] = .boolean(false)
                row.pendingBlobMap = .map(map)
                row.fields[kind.mapField] = .null
            }
            if !configuration.mechanisms.clearsTravel, !merged.isTombstone {
                for field in [FlightDocument.Field.lastOpenedAt, HomebaseDocument.Field.usedAt]
                where row.fields[field] ?? .null == .null {
                    if let agreed = row.base?[field], agreed != .null, remote[field] == agreed {
                        row.fields[field] = agreed
                    }
                }
            }
            row.deferredTaskId = merged.deferredTaskId
            row.base = remote
            row.baseUpdateTime = document.updateTime
            // A revived row is this device's creation still; any other now agrees with the server.
            row.createdSinceAgreement = merged.revived
            store.put(row)
            note(.fetched(collection, id: document.id))
            if hadLocalChanges { note(.merged(collection, id: document.id)) }
            // A record that ends here as a tombstone may leave an object only this device knows of:
            // it becomes a pending delete, which the next push makes after asking the server whether
            // a live record names it.
            if let path = releasedHere, merged.isTombstone, configuration.mechanisms.storageDeletesPending,
                !localRowNames(path)
            {
                addPendingDeletes([path])
            }
        } else {
            var row = LocalRow(
                collection: collection, id: document.id, fields: remote, base: remote,
                baseUpdateTime: document.updateTime, origin: .server, createdAt: clock())
            if collection == .flights {
                // A first arrival is merged too, so a task not yet here is deferred the same way.
                let merged = DocumentMerge.merge(
                    base: remote, local: remote, remote: remote, collection: collection,
                    context: MergeContext(tasksOnDevice: taskIdsOnDevice(), localCreatedAt: row.createdAt))
                // The document itself when the merge left it as it was: fields and base then share
                // their storage, which ``LocalRow/isDirty`` answers without comparing a field.
                if merged.document != remote { row.fields = merged.document }
                row.deferredTaskId = merged.deferredTaskId
            }
            store.put(row)
            note(.fetched(collection, id: document.id))
        }
        if movesCursor, case .timestamp(let t)? = remote[CommonFields.Field.updatedAt],
            t > (store.state.cursors[collection] ?? .minimum)
        {
            store.state.cursors[collection] = t
        }
    }

    /// The R4 duplicate pass, once, after iOS's first full pull (schema §4 risk R4), on the logbook
    /// (Spec/pins.tsv `duplicatesLogbookScope`): logbook flights that are one flight under two ids
    /// keep the earliest imported, with the others' fields merged in; the others are tombstoned.
    /// Recents-only flights are not in the logbook and are left alone. A local flag marks it done
    /// (not synced).
    func duplicatePass() throws(SyncError) {
        guard configuration.platform == .ios, !store.state.duplicatePassDone,
            configuration.mechanisms.duplicatePass != .never
        else { return }
        let flights = store.rows(.flights).filter {
            !$0.isTombstone && $0.fields[FlightDocument.Field.inLogbook] == .boolean(true)
        }.map {
            StoredDocument(id: $0.id, fields: $0.fields)
        }
        for group in DuplicateFlights.groups(flights, context: MergeContext(tasksOnDevice: taskIdsOnDevice())) {
            if var keep = store.row(.flights, id: group.keep), keep.fields != group.document {
                keep.fields = group.document
                keep.deferredTaskId = group.deferredTaskId ?? keep.deferredTaskId
                stamp(&keep.fields)
                store.put(keep)
            }
            for id in group.tombstone { try? delete(.flights, id: id) }
        }
        store.state.duplicatePassDone = configuration.mechanisms.duplicatePass != .afterEveryPull
    }

    /// A row whose server record is gone (a purged tombstone) may name an object the delete removed:
    /// its blob map is reserved again from the file on the device, or dropped when the device has no
    /// file (a document still on the server keeps its own map in the merge).
    func unreserveBlob(_ row: inout LocalRow) {
        guard let kind = Self.blobKind(row.collection), case .map(var map)? = row.fields[kind.mapField] else { return }
        row.fields[kind.mapField] = .null
        if let path = blobPath(row), store.blob(path) != nil {
            map[StorageObjectKind.MapField.uploaded] = .boolean(false)
            row.pendingBlobMap = .map(map)
        }
    }

    /// Whether the server's document let go of an object the row's agreement named: no map now
    /// (the agreed map reserved or uploaded), or the same object not uploaded where it was. A live
    /// record never does that (a blob map is never dropped, `uploaded` never goes back) — only a
    /// delete (which removed the object) and a new record since, made by a device that missed
    /// nothing. Merging against the old agreement would write `uploaded: true` for an object that
    /// is gone. It is how a client without create times tells a record made again (``SyncFirestore``).
    static func lostItsObject(_ row: LocalRow, _ remote: [String: FirestoreValue]) -> Bool {
        guard let kind = blobKind(row.collection), remote[CommonFields.Field.deleted] != .boolean(true),
            case .map(let agreed)? = row.base?[kind.mapField]
        else { return false }
        guard case .map(let now)? = remote[kind.mapField] else { return true }
        return agreed[StorageObjectKind.MapField.uploaded] == .boolean(true)
            && now[StorageObjectKind.MapField.path] == agreed[StorageObjectKind.MapField.path]
            && now[StorageObjectKind.MapField.uploaded] == .boolean(false)
    }

    /// The object a row would leave behind if a pulled tombstone ended it, or nil: a live row's
    /// upload the server has not agreed yet (its blob map says uploaded, its base does not; another
    /// device's tombstone and delete may have come first), or the object of this device's tombstone
    /// not pushed yet (its base live: a commit whose answer was lost may have landed it, and the
    /// delete that follows a tombstone's commit was never made).
    func objectReleasedHere(_ row: LocalRow) -> String? {
        guard let kind = Self.blobKind(row.collection) else { return nil }
        if row.isTombstone {
            guard let base = row.base, base[CommonFields.Field.deleted] != .boolean(true),
                case .string(let path)? = base[kind.mapField]?.mapValue?[StorageObjectKind.MapField.path]
            else { return nil }
            return path
        }
        guard case .map(let map)? = row.fields[kind.mapField],
            map[StorageObjectKind.MapField.uploaded] == .boolean(true),
            row.base?[kind.mapField]?.mapValue?[StorageObjectKind.MapField.uploaded] != .boolean(true)
        else { return nil }
        return blobPath(row)
    }

    /// The ids of the live task rows on the device.
    func taskIdsOnDevice() -> Set<String> {
        Set(store.rows(.tasks).filter { !$0.isTombstone }.map(\.id))
    }

    /// After every pull: deferred task ids whose task arrived (schema §5.5) and the recents trim
    /// (iOS's trimRecents, schema §5.5), both as local changes the next push sends.
    func afterPull() throws(SyncError) {
        let tasks = taskIdsOnDevice()
        for var row in store.rows(.flights, where: { $0.deferredTaskId != nil && !$0.isTombstone }) {
            guard let pending = row.deferredTaskId else { continue }
            // A change by the pilot drops the pending id in `save`, so a pending id here is unchanged.
            switch TaskAssignment.decide(
                deferredTaskId: pending, tasksOnDevice: tasks, flightChangedSinceDeferral: false)
            {
            case .assign:
                row.fields[FlightDocument.Field.taskId] = .string(pending)
                row.deferredTaskId = nil
            case .drop:
                row.deferredTaskId = nil
            case .wait:
                continue
            }
            store.put(row)
        }
        try duplicatePass()
        let live = store.rows(.flights, where: { !$0.isTombstone })
        let changes = configuration.mechanisms.recentsTrim(live)
        var cleared: [String] = []
        var tombstoned: [String] = []
        for change in changes {
            switch change.action {
            case .clearLastOpenedAt:
                guard var row = store.row(.flights, id: change.id) else { continue }
                row.fields[FlightDocument.Field.lastOpenedAt] = .null
                store.put(row)
                cleared.append(change.id)
            case .tombstone:
                do { try delete(.flights, id: change.id) } catch { continue }
                tombstoned.append(change.id)
            }
        }
        if !changes.isEmpty { note(.trimmed(cleared: cleared, tombstoned: tombstoned)) }
        try commitStore()
    }
}
