import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

extension SyncEngine {
    /// Pushes every dirty row (schema §5.1), collection by collection in push order: per collection
    /// the blob reservations (one blob change per batch), each chunk of a batch's size uploaded and
    /// marked uploaded before the next chunk is reserved; tombstones that lower `storageBytes` (each
    /// in its own batch); the other changes in batches of at most 400 writes and 4 MB estimated;
    /// then the uploads and marks of objects reserved before (a push cut short, another device).
    /// - Throws: ``SyncError``; every batch committed before the error stays committed.
    public func push() throws(SyncError) {
        try checkPause()
        if configuration.mechanisms.profileBeforeRecords {
            try ensureProfile()
        } else if store.state.profile == nil {
            try pullProfile()
        }
        for collection in SyncCollection.pushOrder {
            try pushReservations(collection)
            try pushCountedTombstones(collection)
            try pushChanges(collection)
            try uploadReserved(collection)
            try pushChanges(collection)
        }
        if !configuration.mechanisms.profileBeforeRecords { try ensureProfile() }
        // Objects a failed delete left behind (schema §5.4), last, so a Storage outage stops no record.
        try deletePendingObjects()
    }

    // MARK: - Writes

    static let commonFieldNames: [String] = SyncSchema.vulture.fields(of: SyncSchema.commonFieldsOwner).map(\.name)

    /// The write of a row (schema §5.1): a tombstone replaces the document; a record the server never
    /// had sends every field; otherwise the fields that differ from the base, plus the common fields,
    /// as a merge with a mask (a changed nested map is replaced whole). `updatedAt` is the server
    /// timestamp.
    func write(for row: LocalRow, precondition: FirestorePrecondition? = nil) -> FirestoreWrite {
        var fields = row.pushedFields
        let isTombstone = row.isTombstone
        // An edit of a record the server has live names its changed fields; `updatedAt` is set in
        // their mask below, so the fields are not copied to hold it.
        let editsChangedFields =
            !isTombstone && configuration.mechanisms.editsAsChangedFields
            && row.base.map { $0[CommonFields.Field.deleted] != .boolean(true) } ?? false
        if row.collection.hasCommonFields && !editsChangedFields {
            fields[CommonFields.Field.updatedAt] = .serverTimestamp
        }
        let path = row.path(uid: uid)
        if isTombstone {
            let mask: [FieldPath]? =
                configuration.mechanisms.tombstoneReplacesDocument
                ? nil : fields.keys.sorted().map { FieldPath(unchecked: [$0]) }
            return (try? FirestoreWrite(path: path, fields: fields, mask: mask, precondition: precondition))
                ?? .delete(path: path)
        }
        if !configuration.mechanisms.editsAsChangedFields, let base = row.base,
            base[CommonFields.Field.deleted] != .boolean(true)
        {
            return (try? FirestoreWrite(path: path, fields: fields, mask: nil)) ?? .delete(path: path)
        }
        // Distinct, in field path order (segment by segment, a prefix first).
        var ordered: [[String]]
        if editsChangedFields, let base = row.base {
            ordered = []
            for name in LocalRow.changedFields(from: base, to: fields) {
                // A map keyed by ids (settings values) is written per key, so two devices changing two
                // keys do not overwrite each other's.
                if Self.keyedMapFields.contains(name), case .map(let before)? = base[name],
                    case .map(let after)? = fields[name]
                {
                    for key in Set(before.keys).union(after.keys) where before[key] != after[key] {
                        ordered.append([name, key])
                    }
                } else {
                    ordered.append([name])
                }
            }
            if row.collection.hasCommonFields { ordered += Self.commonFieldNames.map { [$0] } }
            ordered.sort { FieldPath(unchecked: $0) < FieldPath(unchecked: $1) }
            // Once each, and never a path with an empty name (no field path names it).
            ordered = zip(ordered.indices, ordered).filter { i, path in
                !path.contains("") && (i == 0 || FieldPath(unchecked: ordered[i - 1]) < FieldPath(unchecked: path))
            }.map(\.1)
        } else {
            // Every field under a mask of all of them: the fields themselves are the masked fields.
            if let mask = Self.schemaOrderedMask(fields.keys) {
                return (try? FirestoreWrite(path: path, fields: fields, topLevelMask: mask, precondition: precondition))
                    ?? .delete(path: path)
            }
            var names = FieldPath.sortedByScalars(Array(fields.keys))
            // An empty name, first if any, is no field path: that field is not sent.
            if names.first == "" {
                names.removeFirst()
                fields[""] = nil
            }
            return
                (try? FirestoreWrite(
                    path: path, fields: fields, topLevelMask: names.map(Self.topLevelPath), precondition: precondition))
                ?? .delete(path: path)
        }
        var masked: [String: FirestoreValue] = [:]
        masked.reserveCapacity(ordered.count)
        let stamped = row.collection.hasCommonFields
        let edited = fields
        // A top-level field's value in the write: the server timestamp for `updatedAt`.
        let written = { (name: String) -> FirestoreValue in
            stamped && name == CommonFields.Field.updatedAt ? .serverTimestamp : edited[name] ?? .delete
        }
        if ordered.allSatisfy({ $0.count == 1 }) {
            for segments in ordered { masked[segments[0]] = written(segments[0]) }
            return
                (try? FirestoreWrite(
                    path: path, fields: masked, topLevelMask: ordered.map { FieldPath(unchecked: $0) },
                    precondition: precondition))
                ?? .delete(path: path)
        }
        var mask: [FieldPath] = []
        mask.reserveCapacity(ordered.count)
        for segments in ordered {
            guard let path = try? FieldPath(segments) else { continue }
            mask.append(path)
            if segments.count == 1 {
                masked[segments[0]] = written(segments[0])
            } else {
                let value = FirestoreValue.map(edited)[path: path] ?? .delete
                var inner = masked[segments[0]]?.mapValue ?? [:]
                inner[segments[1]] = value
                masked[segments[0]] = .map(inner)
            }
        }
        return (try? FirestoreWrite(path: path, fields: masked, mask: mask, precondition: precondition))
            ?? .delete(path: path)
    }

    /// The top-level field path of every field name the schema knows, made once: the mask of each
    /// document's write names them, and a path made per name would be an allocation per field.
    static let topLevelPaths: [String: FieldPath] = Dictionary(
        SyncSchema.vulture.fields.map { ($0.name, FieldPath(unchecked: [$0.name])) }, uniquingKeysWith: { a, _ in a })

    /// Every field name the schema knows, in field path order, and each name's place in it.
    static let schemaOrder: (paths: [FieldPath], places: [String: Int]) = {
        let names = FieldPath.sortedByScalars(Array(Set(SyncSchema.vulture.fields.map(\.name))))
        return (names.map { FieldPath(unchecked: [$0]) }, Dictionary(uniqueKeysWithValues: zip(names, names.indices)))
    }()

    /// The top-level paths of `names` in field path order, when the schema knows every name: each
    /// name's place marks a bit, so a document's mask is made without sorting its names; nil for a
    /// name the schema does not know (the caller sorts).
    static func schemaOrderedMask(_ names: Dictionary<String, FirestoreValue>.Keys) -> [FieldPath]? {
        let (paths, places) = schemaOrder
        var marked = [UInt64](repeating: 0, count: (paths.count + 63) / 64)
        for name in names {
            guard let place = places[name] else { return nil }
            marked[place / 64] |= 1 << UInt64(place % 64)
        }
        var mask: [FieldPath] = []
        mask.reserveCapacity(names.count)
        for (word, bits) in marked.enumerated() {
            var rest = bits
            while rest != 0 {
                mask.append(paths[word * 64 + rest.trailingZeroBitCount])
                rest &= rest - 1
            }
        }
        return mask
    }

    /// The top-level field path of `name`: the schema's own, or a new one for a name it does not know.
    static func topLevelPath(_ name: String) -> FieldPath { topLevelPaths[name] ?? FieldPath(unchecked: [name]) }

    /// Top-level fields that are maps keyed by ids (`dictionary:` in `Spec/fields.tsv`: settings values).
    static let keyedMapFields: Set<String> = Set(
        SyncSchema.vulture.fields.filter {
            if case .dictionary = $0.type { return true }
            return false
        }.map(\.name))

    /// Commits `writes` as one batch; on success every row gets its new base.
    /// `releasing`: Storage objects the batch releases, recorded as pending deletes in the same local
    /// commit that agrees the rows.
    func commitBatch(
        _ collection: SyncCollection, rows: [LocalRow], writes: [FirestoreWrite], releasing: [String] = []
    ) throws(SyncError) -> FirestoreCommitResult {
        let result = try firestore("commit \(collection.rawValue)") { () throws(FirestoreError) in
            try send(writes, rows: rows)
        }
        try agree(collection, rows: rows, writes: writes, result: result, releasing: releasing)
        return result
    }

    /// After a commit of `writes` for `rows`: every row gets its new base, the objects the batch
    /// released become pending deletes, and the store commits.
    func agree(
        _ collection: SyncCollection, rows: [LocalRow], writes: [FirestoreWrite], result: FirestoreCommitResult,
        releasing: [String] = []
    ) throws(SyncError) {
        if !releasing.isEmpty { addPendingDeletes(releasing) }
        let bytes = writes.reduce(0) { $0 + Self.estimatedBytes($1) }
        note(.committed(collection, writes: writes.count, estimatedBytes: bytes))
        for (index, var row) in rows.enumerated() {
            var agreed = row.pushedFields
            let written = result.writeResults.indices.contains(index) ? result.writeResults[index] : nil
            if row.collection.hasCommonFields {
                // updatedAt is the record write's one transform: its result is the stored value.
                if case .timestamp(let t)? = written?.transformResults.first {
                    agreed[CommonFields.Field.updatedAt] = .timestamp(t)
                } else if let time = result.commitTime {
                    agreed[CommonFields.Field.updatedAt] = .timestamp(time)
                }
            }
            // A deferred task id stays deferred: agreed with the server, still null on the device.
            let local = row.fields
            row.fields = agreed
            if let field = LocalRow.deferredField(row.collection), row.deferredTaskId != nil, !row.isTombstone {
                row.fields[field] = local[field] ?? .null
            }
            row.base = agreed
            row.baseUpdateTime =
                result.writeResults.indices.contains(index) ? result.writeResults[index].updateTime : nil
            row.createdSinceAgreement = false
            store.put(row)
            note(.sent(row.collection, id: row.id))
        }
        try commitStore()
    }

    /// The storage-size estimate of a write: its document name and fields (Firestore's formula).
    static func estimatedBytes(_ write: FirestoreWrite) -> Int {
        StorageSize.document(path: write.path ?? "", fields: write.fields ?? [:])
    }

    /// The ordinary changes of a collection, batched: ≤ 400 writes and ≤ 4 MB estimated per batch.
    /// Every write carries a precondition on what the row last agreed with the server: a record the
    /// server never had must not exist, any other must still have its base's update time. When
    /// another device wrote one of them meanwhile (or deleted it), the batch fails, its records are
    /// read and merged, and the batch is sent again — a write never lands on a version this device
    /// has not merged (a blind write would overwrite edits it never saw, or resurrect a tombstone).
    /// With `ids`, only those rows' changes (the marks of a chunk just uploaded), read by id rather
    /// than by a scan of the collection, and only those read again after a failed precondition.
    func pushChanges(_ collection: SyncCollection, ids: [String]? = nil) throws(SyncError) {
        var attempts = 0
        while true {
            do {
                try pushChangesOnce(collection, ids: ids)
                return
            } catch .firestore(let e) where Self.preconditionFailures.contains(e.status) && attempts < 3 {
                attempts += 1
                for row in rows(collection, ids: ids, where: \.isDirty) where !isHeld(row) {
                    try reconcile(collection, id: row.id)
                }
            }
        }
    }

    /// The rows of `collection` that pass `isIncluded`: with `ids`, only those, read by id in that
    /// order (no scan of the collection); without, all of them in id order.
    func rows(_ collection: SyncCollection, ids: [String]?, where isIncluded: (LocalRow) -> Bool) -> [LocalRow] {
        guard let ids else { return store.rows(collection, where: isIncluded) }
        return ids.compactMap { store.row(collection, id: $0) }.filter(isIncluded)
    }

    /// The precondition of a row's write: absent when the server never had it, else its base's version.
    func agreedVersion(_ row: LocalRow) -> FirestorePrecondition? {
        if !configuration.mechanisms.editsUnderPreconditions { return nil }
        if !configuration.mechanisms.editsAsChangedFields, row.base != nil { return nil }
        guard row.base != nil else { return .exists(false) }
        return basePrecondition(row)
    }

    func pushChangesOnce(_ collection: SyncCollection, ids: [String]? = nil) throws(SyncError) {
        var rows: [LocalRow] = []
        var writes: [FirestoreWrite] = []
        var bytes = 0
        let maxWrites = max(1, configuration.mechanisms.batchMaxWrites)
        let maxBytes = configuration.mechanisms.batchMaxPayloadBytes
        for row in Draining(self.rows(collection, ids: ids, where: \.isDirty))
        where !isHeld(row) && !(needsReservation(row) && !reservationBlocked(row))
            && !isCountedTombstone(row)
        {
            let w = write(for: row, precondition: agreedVersion(row))
            let size = Self.estimatedBytes(w)
            if !writes.isEmpty && (writes.count >= maxWrites || bytes + size > maxBytes) {
                _ = try commitBatch(collection, rows: rows, writes: writes)
                rows = []
                writes = []
                bytes = 0
            }
            rows.append(row)
            writes.append(w)
            bytes += size
        }
        if !writes.isEmpty { _ = try commitBatch(collection, rows: rows, writes: writes) }
    }

    // MARK: - Blobs

    /// The Storage object kind whose blob map a document of `collection` holds, if any.
    static func blobKind(_ collection: SyncCollection) -> StorageObjectKind? {
        StorageObjectKind.allCases.first { $0.recordType == collection.documentType }
    }

    /// The object path of a row's blob: the flight id, or the map file's content hash.
    func blobPath(_ row: LocalRow) -> String? {
        guard let kind = Self.blobKind(row.collection) else { return nil }
        let hash: String
        switch kind {
        case .igc: hash = row.id
        case .mapFileContent:
            guard case .string(let h)? = row.fields[MapFileDocument.Field.contentHash] else { return nil }
            hash = h
        }
        return try? BlobPaths.objectPath(kind, uid: uid, hash: hash)
    }

    /// A live row whose file is on the device but whose blob map is not written yet.
    func needsReservation(_ row: LocalRow) -> Bool {
        guard row.pendingBlobMap != nil, !row.isTombstone, let kind = Self.blobKind(row.collection) else {
            return false
        }
        // The blob map first: a reserved row has one, and its object path is not built then.
        switch row.fields[kind.mapField] {
        case nil, .null?: break
        default: return false
        }
        guard let path = blobPath(row) else { return false }
        return store.blob(path) != nil
    }

    /// A tombstone whose server base still holds a blob map: it goes in its own batch, with the
    /// `storageBytes` change of what it releases.
    func isCountedTombstone(_ row: LocalRow) -> Bool {
        guard row.isTombstone, let kind = Self.blobKind(row.collection), let base = row.base,
            base[CommonFields.Field.deleted] != .boolean(true), case .map? = base[kind.mapField]
        else { return false }
        return true
    }

    /// Whether the cap refuses the row's reservation: not Pro and `storageBytes` + `pending` (the
    /// reservations going in flight with it) + the blob's `gzBytes` over the cap (schema §6).
    func reservationBlocked(_ row: LocalRow, pending: Int64 = 0) -> Bool {
        guard !configuration.isPro, case .map(let map)? = row.pendingBlobMap,
            case .integer(let gz)? = map[StorageObjectKind.MapField.gzBytes]
        else { return false }
        return storageBytes + pending + gz > SchemaLimits.storageCapBytes
    }

    /// `storageBytes` as last read.
    var storageBytes: Int64 {
        if case .integer(let n)? = store.state.profile?[ProfileDocument.Field.storageBytes] { return n }
        return 0
    }

    /// The profile write that moves `storageBytes` by `delta`, naming the record (schema §5.1).
    func profileWrite(delta: Int64, collection: SyncCollection, id: String) -> FirestoreWrite? {
        try? FirestoreWrite(
            path: SyncCollection.profilePath(uid: uid),
            fields: [
                ProfileDocument.Field.storageBytes: configuration.mechanisms.storageBytesByIncrement
                    ? .increment(.integer(delta)) : .integer(storageBytes + delta),
                ProfileDocument.Field.storageRef: .map([
                    StorageRef.Field.collection: .string(collection.rawValue), StorageRef.Field.id: .string(id),
                ]),
            ],
            mask: [
                Self.topLevelPath(ProfileDocument.Field.storageBytes),
                Self.topLevelPath(ProfileDocument.Field.storageRef),
            ])
    }

    /// The profile write that names the record `id` in `storageRef` without moving `storageBytes`:
    /// the live record that already counts a shared object, so the security rules can tell that a
    /// blob change counted by nobody is counted once (Goldens/firestore.rules, sharesContent).
    func profileNaming(collection: SyncCollection, id: String) -> FirestoreWrite? {
        try? FirestoreWrite(
            path: SyncCollection.profilePath(uid: uid),
            fields: [
                ProfileDocument.Field.storageRef: .map([
                    StorageRef.Field.collection: .string(collection.rawValue), StorageRef.Field.id: .string(id),
                ])
            ],
            mask: [Self.topLevelPath(ProfileDocument.Field.storageRef)])
    }

    /// Reserve: one batch per blob holds the record with its blob map (`uploaded: false`) and the
    /// profile's `storageBytes` increment (schema §5.1). The record's precondition (absent, or its
    /// base's update time) makes a retried reservation fail instead of counting twice; the engine
    /// then reads the record again and keeps what the server has. Over the cap without Pro the
    /// reservation is not made: the file stays local and the metadata syncs (schema §6). A map file's
    /// content object that another live record on the server already holds is counted once: its
    /// reservation moves no `storageBytes` and names that record in `storageRef` instead (the
    /// tombstone of the last record sharing it releases it, schema §5.4). The records reserved
    /// are uploaded and marked (``uploadAndMark(_:_:)``) in chunks of at most `batchMaxWrites`.
    func pushReservations(_ collection: SyncCollection) throws(SyncError) {
        guard let kind = Self.blobKind(collection) else { return }
        // Reservations of different flights commute (`storageBytes` moves by increments), so several
        // go in flight together where the database overlaps commits; a map file's reservation first
        // reads which record counts its content, so those go one at a time. A group holds eight
        // rounds of commits in flight, so that the slowest commit of one round does not hold the
        // next back (results are still taken in order, after the group).
        let inFlight =
            collection == .mapFiles || !configuration.mechanisms.storageBytesByIncrement
            ? 1 : max(1, commitsInFlight)
        let groupSize = inFlight == 1 ? 1 : inFlight * 8
        let chunkSize = max(1, configuration.mechanisms.batchMaxWrites)
        var group: [Reservation] = []
        var chunk: [String] = []
        // The scan reads no field (the pending map is the row's own): `needsReservation` checks the
        // rest as each row comes, so a large logbook's fields are read once, not in the scan too.
        for var row in Draining(store.rows(collection, where: { $0.pendingBlobMap != nil }))
        where needsReservation(row) && !isHeld(row) {
            guard case .map(let map)? = row.pendingBlobMap,
                case .integer(let size)? = map[StorageObjectKind.MapField.gzBytes]
            else { continue }
            let countedBy = try countingRecord(collection, row, path: map[StorageObjectKind.MapField.path])
            let gz = countedBy == nil ? size : 0
            if gz != 0, reservationBlocked(row, pending: group.reduce(0) { $0 + $1.gz }) {
                note(.capReached(collection, id: row.id))
                continue
            }
            var reserved = map
            reserved[StorageObjectKind.MapField.uploaded] = .boolean(configuration.mechanisms.reserveMarksUploaded)
            row.fields[kind.mapField] = .map(reserved)
            let precondition: FirestorePrecondition? =
                configuration.mechanisms.reserveUnderPrecondition
                ? basePrecondition(row) ?? .exists(false) : nil
            var writes = [write(for: row, precondition: precondition)]
            if gz != 0 {
                guard let profile = profileWrite(delta: gz, collection: collection, id: row.id) else { continue }
                writes.append(profile)
            } else if let countedBy, let profile = profileNaming(collection: collection, id: countedBy) {
                writes.append(profile)
            }
            group.append(Reservation(row: row, writes: writes, gz: gz))
            if group.count >= groupSize {
                chunk += try commitReservations(collection, group)
                group = []
                // The next group would overfill the chunk's one mark batch.
                if chunk.count + groupSize > chunkSize {
                    try uploadAndMark(collection, chunk)
                    chunk = []
                }
            }
        }
        if !group.isEmpty {
            chunk += try commitReservations(collection, group)
        }
        if !chunk.isEmpty { try uploadAndMark(collection, chunk) }
    }

    /// Uploads the objects of the records `ids` this push just reserved and marks them uploaded, while
    /// their rows are fresh in memory: a record's mark follows only its own upload (schema §5.1), so
    /// a chunk of a batch's size goes through all three steps before the next is reserved.
    func uploadAndMark(_ collection: SyncCollection, _ ids: [String]) throws(SyncError) {
        try uploadReserved(collection, ids: ids)
        try pushChanges(collection, ids: ids)
    }

    /// One record's reservation batch: the record write and its profile write.
    struct Reservation {
        var row: LocalRow
        var writes: [FirestoreWrite]
        var gz: Int64
    }

    /// Commits reservations: one alone with the retries and the pause a commit gets; several in
    /// flight together (``FirestoreDatabase/commitEach(_:)``), each result then taken in order, and
    /// one that failed on the transport tried again alone.
    /// - Returns: the ids of the records reserved (a refused one is read again instead, and its
    ///   upload and mark wait for the push's later passes).
    func commitReservations(_ collection: SyncCollection, _ group: [Reservation]) throws(SyncError) -> [String] {
        if group.count == 1, let one = group.first {
            do {
                _ = try commitBatch(collection, rows: [one.row], writes: one.writes)
                reserved(collection, one)
                try commitStore()
                return [one.row.id]
            } catch .firestore(let e) where Self.blobBatchRefusals.contains(e.status) {
                try refused(collection, one)
                return []
            }
        }
        var ids: [String] = []
        let results = sendEach(group.map { ($0.writes, [$0.row]) })
        for (one, result) in zip(group, results) {
            switch result {
            case .success(let committed):
                try agree(collection, rows: [one.row], writes: one.writes, result: committed)
                reserved(collection, one)
                try commitStore()
                ids.append(one.row.id)
            case .failure(let e) where Self.blobBatchRefusals.contains(e.status):
                try refused(collection, one)
            case .failure(let e):
                note(.retried("commit \(collection.rawValue): \(e.status.rawValue)"))
                ids += try commitReservations(collection, [one])
            }
        }
        return ids
    }

    /// A reservation landed: `storageBytes` as the server now counts it.
    func reserved(_ collection: SyncCollection, _ one: Reservation) {
        store.state.profile?[ProfileDocument.Field.storageBytes] = .integer(storageBytes + one.gz)
        note(.reserved(collection, id: one.row.id, storageBytesDelta: one.gz))
    }

    /// A reservation the server refused (a precondition, or the rules): read the record again.
    func refused(_ collection: SyncCollection, _ one: Reservation) throws(SyncError) {
        if configuration.mechanisms.keepsRefusedReservation { store.put(one.row) }
        try reconcile(collection, id: one.row.id)
    }

    /// The id of another live document of the collection on the server whose blob map names the
    /// object at `path` — a map file sharing this one's content, which counts the object already —
    /// or nil.
    func countingRecord(_ collection: SyncCollection, _ row: LocalRow, path: FirestoreValue?) throws(SyncError)
        -> String?
    {
        guard let kind = Self.blobKind(collection), let path, collection == .mapFiles else { return nil }
        return try sharingDocuments(collection, row, row.fields).first { other in
            guard other.fields[CommonFields.Field.deleted] != .boolean(true),
                case .map(let m)? = other.fields[kind.mapField]
            else {
                return false
            }
            return m[StorageObjectKind.MapField.path] == path
        }?.id
    }

    /// The statuses of a precondition that did not hold.
    static let preconditionFailures: Set<FirestoreStatus> = [.failedPrecondition, .alreadyExists, .notFound]

    /// The statuses of a blob batch (a reservation, a counted tombstone) whose record must be read
    /// again: a precondition that did not hold, or the security rules' refusal — Firestore judges
    /// the rules before the preconditions, and the rules refuse a retried batch whose first try
    /// landed (its `storageBytes` change no longer matches the record's blob change) and a
    /// reservation past a cap another device filled; the fresh profile then says which
    /// (Goldens/firestore.rules; seen on the Firestore emulator).
    static let blobBatchRefusals: Set<FirestoreStatus> = preconditionFailures.union([.permissionDenied])

    /// Reads a record again after a precondition failed and merges it: the server's version is the
    /// new base (a reservation that did land is kept, not made twice).
    /// `releasingIfAgreedTombstone`: objects that become pending deletes, in the same local commit,
    /// when the record read back is a tombstone agreed with the server.
    func reconcile(_ collection: SyncCollection, id: String, releasingIfAgreedTombstone: [String] = [])
        throws(SyncError)
    {
        let path = collection.documentPath(uid: uid, id: id)
        let document = try firestore("get \(path)") { () throws(FirestoreError) in try read(path) }
        if let document {
            if !holdIfMalformed(document, collection: collection, movesCursor: false) {
                apply(document, collection: collection, movesCursor: false)
            }
        } else if var row = store.row(collection, id: id) {
            store.state.heldRecords[Self.heldRecordKey(collection, id)] = nil
            // The server has no such document (a purged tombstone): nothing is agreed any more.
            row.base = nil
            row.baseUpdateTime = nil
            if !row.isTombstone { unreserveBlob(&row) }
            store.put(row)
        }
        try pullProfile()
        if !releasingIfAgreedTombstone.isEmpty, let agreed = store.row(collection, id: id), agreed.isTombstone,
            !agreed.isDirty
        {
            addPendingDeletes(releasingIfAgreedTombstone)
        }
        note(.reconciled(collection, id: id))
        try commitStore()
    }

    /// Tombstones that lower `storageBytes`: each in its own batch with the decrement of the objects
    /// it releases (``TombstoneRules/releasedObjects(collection:document:otherLiveDocuments:)``: a
    /// map file's content object only when no other live mapFiles document on the server shares its
    /// hash — a query on `contentHash`), under the record's precondition; then those objects are
    /// deleted. A tombstone that releases nothing because a live record shares its object names that
    /// record in `storageRef` (the object stays counted once, by it).
    func pushCountedTombstones(_ collection: SyncCollection) throws(SyncError) {
        guard Self.blobKind(collection) != nil else { return }
        // A counted tombstone differs from its live base, so it is dirty: asked first, that passes over
        // a row holding its base's very storage (one just agreed) without reading its fields.
        for row in store.rows(collection, where: { $0.isDirty && isCountedTombstone($0) }) where !isHeld(row) {
            guard let base = row.base, let precondition = basePrecondition(row) else { continue }
            let others = try sharingDocuments(collection, row, base)
            let released = TombstoneRules.releasedObjects(
                collection: collection, document: base, otherLiveDocuments: others.map(\.fields))
            var writes = [write(for: row, precondition: precondition)]
            if released.storageBytesDelta != 0,
                let profile = profileWrite(delta: released.storageBytesDelta, collection: collection, id: row.id)
            {
                writes.append(profile)
            } else if released.objectPaths.isEmpty,
                let sharer = others.first(where: { $0.fields[CommonFields.Field.deleted] != .boolean(true) }),
                let profile = profileNaming(collection: collection, id: sharer.id)
            {
                writes.append(profile)
            }
            let releasing = configuration.mechanisms.storageDeletesPending ? released.objectPaths : []
            do {
                _ = try commitBatch(collection, rows: [row], writes: writes, releasing: releasing)
                store.state.profile?[ProfileDocument.Field.storageBytes] = .integer(
                    storageBytes + released.storageBytesDelta)
                try commitStore()
            } catch .firestore(let e) where Self.blobBatchRefusals.contains(e.status) {
                // A tombstone agreed with the server now (ours, whose answer was lost, or another
                // device's) has lowered storageBytes already: its objects go, or nobody deletes them.
                try reconcile(collection, id: row.id, releasingIfAgreedTombstone: releasing)
                guard let agreed = store.row(collection, id: row.id), agreed.isTombstone, !agreed.isDirty else {
                    continue
                }
            }
            if releasing.isEmpty {
                for path in released.objectPaths {
                    try checkCancellation()
                    do { try storage.delete(path) } catch { throw .storage(error) }
                    store.setBlob(nil, at: path)
                }
                try commitStore()
            } else {
                try deletePendingObjects(releasing)
            }
        }
    }

    /// Whether a live record on the server names the object at `path` in its blob map.
    func liveRecordNames(_ path: String) throws(SyncError) -> Bool {
        for collection in SyncCollection.pushOrder {
            guard let kind = Self.blobKind(collection) else { continue }
            let query = FirestoreQuery(
                parent: collection.parentPath(uid: uid), collectionId: collection.rawValue,
                filters: [
                    FirestoreQuery.Filter(
                        FieldPath(unchecked: [kind.mapField, StorageObjectKind.MapField.path]), .equal, .string(path))
                ])
            let docs = try firestore("query \(kind.mapField).path") { () throws(FirestoreError) in
                try self.query(query)
            }
            if docs.contains(where: { $0.fields[CommonFields.Field.deleted] != .boolean(true) }) { return true }
        }
        return false
    }

    /// Whether a live row on the device names the object at `path` (its file, reserved or not).
    func localRowNames(_ path: String) -> Bool {
        SyncCollection.pushOrder.contains { collection in
            Self.blobKind(collection) != nil
                && store.rows(collection).contains { !$0.isTombstone && blobPath($0) == path }
        }
    }

    /// Adds object paths to ``EngineState/pendingStorageDeletes`` (sorted, distinct).
    func addPendingDeletes(_ paths: [String]) {
        store.state.pendingStorageDeletes = Array(Set(store.state.pendingStorageDeletes).union(paths)).sorted()
    }

    /// Deletes pending objects (`only` those, right after their tombstone; or every one, a retry),
    /// each leaving the list once the delete succeeded (an object already gone counts as deleted),
    /// with the copy kept on the device. A retry first asks the server whether a live record names
    /// the object again (a re-import of the same file since, schema §5.4): then it is not deleted.
    /// - Throws: ``SyncError/storage(_:)`` at the first failure; the rest stay pending for the next push.
    func deletePendingObjects(_ only: [String]? = nil) throws(SyncError) {
        let pending = store.state.pendingStorageDeletes
        let paths = only.map { wanted in pending.filter { wanted.contains($0) } } ?? pending
        guard !paths.isEmpty else { return }
        var failure: SyncError?
        for path in paths {
            if isCancelled() {
                failure = .cancelled
                break
            }
            if only == nil, try liveRecordNames(path) {
                store.state.pendingStorageDeletes.removeAll { $0 == path }
                continue
            }
            do { try storage.delete(path) } catch {
                failure = .storage(error)
                break
            }
            store.state.pendingStorageDeletes.removeAll { $0 == path }
            // The copy on the device stays while a live row here names it (a re-import not pushed yet).
            if only != nil || !localRowNames(path) { store.setBlob(nil, at: path) }
        }
        try commitStore()
        if let failure { throw failure }
    }

    /// The other documents on the server (tombstones included) that may share the row's Storage
    /// object, with their ids: for a map file, those with its `contentHash`; none otherwise.
    func sharingDocuments(_ collection: SyncCollection, _ row: LocalRow, _ base: [String: FirestoreValue])
        throws(SyncError) -> [(id: String, fields: [String: FirestoreValue])]
    {
        guard collection == .mapFiles, let hash = base[MapFileDocument.Field.contentHash], hash != .null else {
            return []
        }
        let query = FirestoreQuery(
            parent: collection.parentPath(uid: uid), collectionId: collection.rawValue,
            filters: [FirestoreQuery.Filter(FieldPath(unchecked: [MapFileDocument.Field.contentHash]), .equal, hash)])
        let docs = try firestore("query contentHash") { () throws(FirestoreError) in try self.query(query) }
        return docs.filter { $0.id != row.id }.map { ($0.id, $0.fields) }
    }

    /// Uploads every reserved object this device has, replacing whatever is at its path (schema §2:
    /// the path is the content's hash, so a retry overwrites the same object, and a wrong object
    /// left there is repaired), then marks the record `uploaded: true` for the next batch.
    /// With `ids`, only those rows, read by id.
    func uploadReserved(_ collection: SyncCollection, ids: [String]? = nil) throws(SyncError) {
        guard let kind = Self.blobKind(collection) else { return }
        // Rows whose object is reserved, not yet marked uploaded.
        func isReserved(_ row: LocalRow) -> Bool {
            guard case .map(let map)? = row.fields[kind.mapField] else { return false }
            return map[StorageObjectKind.MapField.uploaded] == .boolean(false) && !row.isTombstone
        }
        let reserved = rows(collection, ids: ids, where: isReserved)
        for var row in Draining(consume reserved) {
            guard case .map(var map)? = row.fields[kind.mapField],
                map[StorageObjectKind.MapField.uploaded] == .boolean(false),
                let path = blobPath(row), let gz = store.blob(path)
            else { continue }
            let metadata: StorageObjectMetadata
            if kind == .mapFileContent {
                guard let m = try? StorageObjectMetadata.mapFileContent(recordId: row.id) else { continue }
                metadata = m
            } else {
                metadata = .igc
            }
            let object = StorageObject(
                path: path, bytes: gz, contentType: metadata.contentType, contentEncoding: metadata.contentEncoding,
                customMetadata: metadata.customMetadata)
            var attempts = 0
            while true {
                try checkCancellation()
                do {
                    try storage.upload(object, onlyIfAbsent: false)
                } catch  where error.kind == .unavailable && attempts < configuration.mechanisms.uploadRetriesWithinSync
                {
                    attempts += 1
                    continue
                } catch {
                    throw .storage(error)
                }
                break
            }
            note(.uploaded(path: path))
            map[StorageObjectKind.MapField.uploaded] = .boolean(true)
            row.fields[kind.mapField] = .map(map)
            store.put(row)
        }
        try commitStore()
    }

    // MARK: - The profile

    /// Makes sure `users/{uid}` exists (created on the first sync) and names this platform; its
    /// `lastSeenAt` moves at most once a day (schema §2 profile).
    func ensureProfile() throws(SyncError) {
        let path = SyncCollection.profilePath(uid: uid)
        if store.state.profile == nil { try pullProfile() }
        let now = clock()
        let platform = FirestoreValue.string(configuration.platform.rawValue)
        guard var profile = store.state.profile else {
            let fields: [String: FirestoreValue] = [
                ProfileDocument.Field.schema: .integer(SchemaConstants.schemaVersion),
                ProfileDocument.Field.createdAt: .timestamp(now),
                ProfileDocument.Field.lastSeenAt: .timestamp(now), ProfileDocument.Field.platforms: .array([platform]),
                ProfileDocument.Field.storageBytes: .integer(0),
                ProfileDocument.Field.storageRef: .null,
            ]
            guard let create = try? FirestoreWrite(path: path, fields: fields, mask: nil, precondition: .exists(false))
            else { return }
            do {
                _ = try firestore("create profile") { () throws(FirestoreError) in try send([create]) }
            } catch .firestore(let e) where e.status == .alreadyExists {
                // Another device created it first.
            }
            try pullProfile()
            return
        }
        var mask: [String] = []
        if case .array(let platforms)? = profile[ProfileDocument.Field.platforms], platforms.contains(platform) {
        } else {
            if !configuration.mechanisms.profileMergesPlatform {
                let fields: [String: FirestoreValue] = [
                    ProfileDocument.Field.schema: .integer(SchemaConstants.schemaVersion),
                    ProfileDocument.Field.createdAt: .timestamp(now),
                    ProfileDocument.Field.lastSeenAt: .timestamp(now),
                    ProfileDocument.Field.platforms: .array([platform]),
                    ProfileDocument.Field.storageBytes: .integer(0),
                    ProfileDocument.Field.storageRef: .null,
                ]
                if let set = try? FirestoreWrite(path: path, fields: fields) {
                    _ = try firestore("rewrite profile") { () throws(FirestoreError) in try send([set]) }
                }
                try pullProfile()
                return
            }
            var platforms: [FirestoreValue] = []
            if case .array(let known)? = profile[ProfileDocument.Field.platforms] { platforms = known }
            profile[ProfileDocument.Field.platforms] = .array(platforms + [platform])
            mask.append(ProfileDocument.Field.platforms)
        }
        // A profile an increment made before its creation (another engine may write it after the
        // records) gets what it lacks.
        for (name, value) in [
            (ProfileDocument.Field.schema, FirestoreValue.integer(SchemaConstants.schemaVersion)),
            (ProfileDocument.Field.createdAt, .timestamp(now)),
        ] where profile[name] == nil {
            profile[name] = value
            mask.append(name)
        }
        let day: Int64 = 86_400
        if case .timestamp(let seen)? = profile[ProfileDocument.Field.lastSeenAt], now.seconds - seen.seconds < day,
            configuration.mechanisms.lastSeenAtAtMostDaily
        {
        } else {
            profile[ProfileDocument.Field.lastSeenAt] = .timestamp(now)
            mask.append(ProfileDocument.Field.lastSeenAt)
        }
        guard !mask.isEmpty,
            let update = try? FirestoreWrite(
                path: path, fields: profile.filter { mask.contains($0.key) },
                mask: mask.compactMap { try? FieldPath([$0]) })
        else { return }
        _ = try firestore("update profile") { () throws(FirestoreError) in try send([update]) }
        store.state.profile = profile
        try commitStore()
    }
}

/// An array's elements front to back, each moved out as the loop reaches it: a row a pass is done
/// with is freed while it is still in cache, not in one cold sweep over 50,000 rows when the array
/// dies at the end of the pass.
struct Draining<Element>: Sequence, IteratorProtocol {
    private var reversed: [Element]

    init(_ elements: consuming [Element]) {
        reversed = elements
        // Through the buffer, the swaps move the rows; `Array.reverse()` copies each (a retain of
        // every reference a row holds, all cold at 50,000 rows).
        reversed.withUnsafeMutableBufferPointer { $0.reverse() }
    }

    mutating func next() -> Element? { reversed.popLast() }
}
