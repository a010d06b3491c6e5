import VultureFirestore
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

extension InjectedBug {
    /// `DocumentMerge.merge(base:local:remote:collection:context:)` as an engine with `bugs` merges
    /// (the merge bugs: `clientTimeMilliseconds`, `latestDatesByLaterEdit`, `uploadedNotOred`);
    /// without them, the merge itself.
    static func merge(
        base: [String: FirestoreValue]?, local: [String: FirestoreValue], remote: [String: FirestoreValue],
        collection: SyncCollection, context: MergeContext, bugs: Set<InjectedBug>
    ) -> MergeResult {
        guard !bugs.isEmpty else {
            return DocumentMerge.merge(
                base: base, local: local, remote: remote, collection: collection, context: context)
        }
        var (b, l, r) = (base, local, remote)
        if bugs.contains(.clientTimeMilliseconds) {
            func truncate(_ doc: inout [String: FirestoreValue]) {
                guard case .timestamp(let t)? = doc[clientTime] else { return }
                doc[clientTime] = .timestamp(
                    (try? FirestoreTimestamp(seconds: t.seconds, microseconds: t.microseconds / 1000 * 1000)) ?? t)
            }
            if b != nil { truncate(&b!) }
            truncate(&l)
            truncate(&r)
        }
        var result = DocumentMerge.merge(base: b, local: l, remote: r, collection: collection, context: context)
        guard !result.isTombstone, l["deleted"] != .boolean(true), r["deleted"] != .boolean(true) else { return result }
        if bugs.contains(.latestDatesByLaterEdit) {
            for field in ["lastOpenedAt", "usedAt"] where l[field] != nil || r[field] != nil {
                result.document[field] = laterEdit(b?[field], l[field], r[field], l, r)
            }
        }
        if bugs.contains(.uploadedNotOred) {
            for kind in StorageObjectKind.allCases where kind.recordType == collection.documentType {
                guard case .map(var merged)? = result.document[kind.mapField],
                    case .map(let lm)? = l[kind.mapField], case .map(let rm)? = r[kind.mapField],
                    lm["path"] == rm["path"]
                else { continue }
                merged["uploaded"] = laterEdit(
                    b?[kind.mapField]?.mapValue?["uploaded"], lm["uploaded"], rm["uploaded"], l, r)
                result.document[kind.mapField] = .map(merged)
            }
        }
        return result
    }

    static let clientTime = "clientUpdatedAt"

    /// The default rule: the side that changed; both changed → the later `clientUpdatedAt` (a tie to
    /// the server). Absent and null alike.
    static func laterEdit(
        _ base: FirestoreValue?, _ local: FirestoreValue?, _ remote: FirestoreValue?,
        _ l: [String: FirestoreValue], _ r: [String: FirestoreValue]
    ) -> FirestoreValue {
        let (b, x, y) = (base ?? .null, local ?? .null, remote ?? .null)
        if x == y { return y }
        if x != b && y == b { return x }
        if y != b && x == b { return y }
        guard case .timestamp(let lt)? = l[clientTime], case .timestamp(let rt)? = r[clientTime] else { return y }
        return lt > rt ? x : y
    }
}

extension InjectedBug {
    /// The recents trim of `trimWithoutIdTieBreak`: the trim with equal instants in the order the rows
    /// arrived on the device (their creation time), not by id.
    static func trimByArrival(_ live: [LocalRow]) -> [RecentsTrimChange] {
        let dated = live.compactMap { row -> (LocalRow, FirestoreTimestamp)? in
            guard case .timestamp(let t)? = row.fields["lastOpenedAt"] else { return nil }
            return (row, t)
        }.sorted { a, b in a.1 != b.1 ? a.1 > b.1 : a.0.createdAt > b.0.createdAt }
        return dated.dropFirst(Int(SchemaLimits.recentsMax)).map { row, _ in
            RecentsTrimChange(
                id: row.id, action: row.fields["inLogbook"] == .boolean(true) ? .clearLastOpenedAt : .tombstone,
                reason: .cap)
        }
    }

    /// The recents trim of the variant `recentsTieLargerIdKeeps`: the trim with equal instants ranked by id descending.
    static func trimLargerIdFirst(_ live: [LocalRow]) -> [RecentsTrimChange] {
        let rows = live.map { RecentsRow(document: StoredDocument(id: $0.id, fields: $0.fields), origin: $0.origin) }
        let stranded = RecentsTrim.changes(rows).filter { $0.reason == .stranded }
        let dated = live.compactMap { row -> (LocalRow, FirestoreTimestamp)? in
            guard case .timestamp(let t)? = row.fields["lastOpenedAt"] else { return nil }
            return (row, t)
        }.sorted { a, b in a.1 != b.1 ? a.1 > b.1 : a.0.id > b.0.id }
        let capped = dated.dropFirst(Int(SchemaLimits.recentsMax)).map { row, _ in
            RecentsTrimChange(
                id: row.id, action: row.fields["inLogbook"] == .boolean(true) ? .clearLastOpenedAt : .tombstone,
                reason: .cap)
        }
        return (stranded + capped).sorted { $0.id < $1.id }
    }
}

extension SyncConfiguration {
    /// This configuration with the engine behaving as if it had `bugs` and making the choices
    /// `variants`: each one changes the ``SyncMechanisms`` (and `noRetryWithinSync` the retries).
    public func injecting(_ bugs: Set<InjectedBug>, variants: Set<EngineVariant> = []) -> SyncConfiguration {
        var out = self
        var m = out.mechanisms
        for bug in InjectedBug.allCases where bugs.contains(bug) {
            switch bug {
            case .pagingByUpdatedAtAlone: m.laterPagesStartAfterName = false
            case .noOverlap: m.pullOverlapSeconds = 0
            case .strictCursor: m.firstPageOperator = .greaterThan
            case .clearDoesNotTravel: m.clearsTravel = false
            case .trimWithoutIdTieBreak: m.recentsTrim = { InjectedBug.trimByArrival($0) }
            case .reserveWithoutPrecondition: m.reserveUnderPrecondition = false
            case .purgeDeletesLive: m.purgeSelectsTombstones = false
            case .downloadBeforeUploaded: m.downloadsOnlyUploaded = false
            case .latestDatesByLaterEdit, .uploadedNotOred, .clientTimeMilliseconds: break
            case .editsAsFullDocuments: m.editsAsChangedFields = false
            case .noFullPullAfterLongAbsence: m.fullPullAfterLongAbsence = false
            case .storageBytesByValue: m.storageBytesByIncrement = false
            case .payloadCapTenfold: m.batchMaxPayloadBytes = Int(SchemaLimits.engineBatchMaxPayloadBytes) * 10
            case .purgeBatchesOf500: m.purgeBatchMaxWrites = Int(SchemaLimits.batchMaxWrites)
            case .noDuplicatePass: m.duplicatePass = .never
            case .duplicatePassEveryPull: m.duplicatePass = .afterEveryPull
            case .oneCursorForAllCollections: m.cursorPerCollection = false
            case .pullOrderedByNameAlone: m.pullOrderedByUpdatedAt = false
            case .lastSeenAtEverySync: m.lastSeenAtAtMostDaily = false
            case .quotaErrorRetried: m.quotaPause = .none
            case .revivalByArrivalTime: m.arrivalCountsAsCreation = true
            case .downloadUnchecked: m.checksDownloads = false
            case .tombstoneAsMerge: m.tombstoneReplacesDocument = false
            case .reserveMarkedUploaded: m.reserveMarksUploaded = true
            case .profileRewritten: m.profileMergesPlatform = false
            }
        }
        // The merge bugs: `uploadedNotOred` also keeps a refused reservation as the local value.
        let mergeBugs = bugs.intersection([.latestDatesByLaterEdit, .uploadedNotOred, .clientTimeMilliseconds])
        if !mergeBugs.isEmpty {
            m.merge = { base, local, remote, collection, context in
                InjectedBug.merge(
                    base: base, local: local, remote: remote, collection: collection, context: context, bugs: mergeBugs)
            }
        }
        if bugs.contains(.uploadedNotOred) { m.keepsRefusedReservation = true }
        for variant in EngineVariant.allCases where variants.contains(variant) {
            switch variant {
            case .profileAfterRecords: m.profileBeforeRecords = false
            case .uploadRetriedWithinSync: m.uploadRetriesWithinSync = 3
            case .noRetryWithinSync: out.retries = 0
            case .pauseForADay: if m.quotaPause != .none { m.quotaPause = .forADay }
            case .oneWritePerCommit:
                m.batchMaxWrites = 1
                m.purgeBatchMaxWrites = 1
            case .recentsTieLargerIdKeeps: m.recentsTrim = { InjectedBug.trimLargerIdFirst($0) }
            case .gzipLevel9: m.gzipLevel = 9
            case .editsWithoutPreconditions: m.editsUnderPreconditions = false
            case .mergesMalformedDocuments: m.malformedDocuments = .merged
            case .stopsThePullAtAMalformedDocument: m.malformedDocuments = .stopThePull
            }
        }
        out.mechanisms = m
        return out
    }
}
