import VultureSchemaCore
import VultureSyncSchema

/// What the merge of one document needs beyond the three documents (schema §5.3–§5.5).
public struct MergeContext: Sendable, Hashable {
    /// Ids of the task documents on this device. A flight's merged `taskId` naming another task is
    /// deferred (``MergeResult/deferredTaskId``) until the task arrives.
    public var tasksOnDevice: Set<String>
    /// The task id this flight already waits for: an earlier merge's ``MergeResult/deferredTaskId``
    /// that has not been assigned or dropped (``TaskAssignment``). While it is pending, the local
    /// `taskId` (null) counts as this id (Spec/pins.tsv `deferredTaskIdState`).
    public var deferredTaskId: String?
    /// When the local row was created on this device (its insert time, microseconds); nil when unknown.
    /// A live local row created strictly after the remote tombstone's `deletedAt` outlives it (a
    /// re-import, schema §5.4).
    public var localCreatedAt: FirestoreTimestamp?

    /// A context as given; by default no task is on the device, nothing is pending and the creation
    /// time is unknown.
    public init(
        tasksOnDevice: Set<String> = [], deferredTaskId: String? = nil, localCreatedAt: FirestoreTimestamp? = nil
    ) {
        self.tasksOnDevice = tasksOnDevice
        self.deferredTaskId = deferredTaskId
        self.localCreatedAt = localCreatedAt
    }
}

/// The merge of one document: the new local row and what the engine must remember.
public struct MergeResult: Sendable, Hashable {
    /// The merged document in the stored form: the new local row. A tombstone holds only the common
    /// fields (schema §5.4).
    public var document: [String: FirestoreValue]
    /// A task id the merged flight names but whose task is not on the device: the document holds
    /// `taskId` null, and the engine assigns this id once the task arrives unless the flight changed
    /// meanwhile (``TaskAssignment``); pass it back as ``MergeContext/deferredTaskId`` meanwhile.
    public var deferredTaskId: String?
    /// True when a live local row outlived a remote tombstone (a re-import after the delete): the
    /// engine pushes it again and re-uploads its blob, which the tombstone's delete removed (schema §5.4).
    public var revived: Bool

    /// A result as given.
    public init(document: [String: FirestoreValue], deferredTaskId: String? = nil, revived: Bool = false) {
        self.document = document
        self.deferredTaskId = deferredTaskId
        self.revived = revived
    }

    /// Whether the merged document is a tombstone.
    public var isTombstone: Bool { document[SyncRuleValues.deletedField] == .boolean(true) }
}

/// The per-field three-way merge of schema §5.3–§5.5, every field dispatched to its row of
/// `Spec/merge-rules.tsv` by the generated `MergeRule.rule(for:fieldPath:)`.
///
/// - Default: changed on one side (against `base`) → that side; changed on both → the later
///   `clientUpdatedAt` (microseconds), a tie → the row's tie (the server). Absent and null are alike.
/// - The exceptions as the rule kinds say: `inLogbook`, `*.uploaded` OR-ed; `importedAt`, `createdAt`
///   earliest non-null; `lastOpenedAt`, `usedAt` latest with a clear that travels; the merged row's
///   `clientUpdatedAt` the later clock; `summary` and the
///   track preview by rank; blob maps never dropped; `taskId` deferred; settings entries by `t`;
///   an empty `contentHash` null; a tombstone wins over an edit except a later re-import.
/// - Fields this version does not know follow the default rule and are kept.
///
/// Deterministic: keys are visited in UTF-8 order and nothing reads a clock. Bad values never crash:
/// a value of an unexpected type counts as missing where a rule needs a timestamp, an integer or a map.
public enum DocumentMerge {
    /// Merges one document of `collection`.
    ///
    /// - Parameters:
    ///   - base: the document as last agreed with the server (the sync base), stored form; nil when the
    ///     record is new on both sides.
    ///   - local: the local row as a stored-form document.
    ///   - remote: the document pulled from the server.
    ///   - collection: the collection the document belongs to (its fields' rules).
    ///   - context: what the rules need beyond the documents.
    /// - Returns: the merged document (the new local row) and what to remember.
    public static func merge(
        base: [String: FirestoreValue]?, local: [String: FirestoreValue], remote: [String: FirestoreValue],
        collection: SyncCollection, context: MergeContext = MergeContext()
    ) -> MergeResult {
        var run = DocumentMergeRun(collection: collection, context: context, base: base, local: local, remote: remote)
        return run.result()
    }
}

/// The side a decision took.
enum MergeSide: Sendable {
    case local, remote
}

/// One field's decision: a value (nil: absent), or the whole document of one side (a tombstone decision).
enum FieldResolution {
    case value(FirestoreValue?)
    case document(MergeSide, revived: Bool)
}

/// One merge: the three documents, the context, and what the decisions leave to remember.
struct DocumentMergeRun {
    let collection: SyncCollection
    let context: MergeContext
    let base: [String: FirestoreValue]?
    let local: [String: FirestoreValue]
    let remote: [String: FirestoreValue]
    var deferredTaskId: String?

    init(
        collection: SyncCollection, context: MergeContext, base: [String: FirestoreValue]?,
        local: [String: FirestoreValue], remote: [String: FirestoreValue]
    ) {
        self.collection = collection
        self.context = context
        self.base = base
        self.local = local
        self.remote = remote
    }

    /// The `clientUpdatedAt` field (`Spec/sync-rules.tsv` clientTimeMicroseconds).
    static let clientTimeField = SyncRule.clientTimeMicroseconds.subject?.fieldPath ?? ""
    /// The `deletedAt` field (`Spec/sync-rules.tsv` purgeAge).
    static let deletedAtField = SyncRule.purgeAge.subject?.fieldPath ?? ""

    mutating func result() -> MergeResult {
        switch mergeMap(prefix: "", base: base, local: local, remote: remote) {
        case .value(let v):
            return MergeResult(document: v?.mapValue ?? [:], deferredTaskId: deferredTaskId)
        case .document(.local, let revived):
            return MergeResult(
                document: local, deferredTaskId: revived ? context.deferredTaskId : nil, revived: revived)
        case .document(.remote, _):
            return MergeResult(document: remote)
        }
    }

    // MARK: Walking the maps

    /// The side with the later `clientUpdatedAt`; nil for a tie (microseconds; a missing time is earliest).
    var laterSide: MergeSide? {
        let l = SyncRuleValues.timestamp(local[Self.clientTimeField])
        let r = SyncRuleValues.timestamp(remote[Self.clientTimeField])
        switch (l, r) {
        case (nil, nil): return nil
        case (nil, _?): return .remote
        case (_?, nil): return .local
        case (let l?, let r?): return l == r ? nil : (l > r ? .local : .remote)
        }
    }

    /// Every key of the three maps, each resolved by its rule, in UTF-8 order.
    mutating func mergeMap(
        prefix: String, base: [String: FirestoreValue]?, local: [String: FirestoreValue],
        remote: [String: FirestoreValue]
    ) -> FieldResolution {
        var keys = Set(local.keys).union(remote.keys)
        if let base { keys.formUnion(base.keys) }
        var out: [String: FirestoreValue] = [:]
        for key in keys.sorted(by: SyncRuleValues.utf8Precedes) {
            let path = prefix.isEmpty ? key : prefix + "." + key
            switch resolve(path, base?[key], local[key], remote[key]) {
            case .value(let v?): out[key] = v
            case .value(nil): continue
            case .document(let side, let revived): return .document(side, revived: revived)
            }
        }
        return .value(.map(out))
    }

    /// A nested map merged key by key; a whole-document decision inside it takes that side's map.
    mutating func nested(
        _ path: String, _ b: FirestoreValue?, _ l: [String: FirestoreValue], _ r: [String: FirestoreValue]
    ) -> FieldResolution {
        switch mergeMap(prefix: path, base: b?.mapValue, local: l, remote: r) {
        case .value(let v): return .value(v)
        case .document(let side, _): return .value(.map(side == .local ? l : r))
        }
    }

    // MARK: The rules

    /// The one switch over the rule kinds of `Spec/merge-rules.tsv`: a new kind does not compile until
    /// it is handled here.
    mutating func resolve(_ path: String, _ b: FirestoreValue?, _ l: FirestoreValue?, _ r: FirestoreValue?)
        -> FieldResolution
    {
        let rule = MergeRule.rule(for: collection, fieldPath: path)
        switch rule.kind {
        case .threeWayLatestClientUpdatedAt:
            if MergeRule.governsPaths(below: path, in: collection), case .map(let lm)? = l, case .map(let rm)? = r {
                return nested(path, b, lm, rm)
            }
            return .value(threeWay(b, l, r, tie: rule.tie, absentReadsAs: Self.defaults(collection)[path]))
        case .tombstoneWins:
            return tombstone(b, l, r)
        case .logicalOr:
            if l == nil && r == nil { return .value(nil) }
            return .value(.boolean(l == .boolean(true) || r == .boolean(true)))
        case .earliestNonNull:
            let times = [l, r].compactMap(SyncRuleValues.timestamp)
            guard let earliest = times.min() else { return .value(threeWay(b, l, r, tie: defaultTie)) }
            return .value(.timestamp(earliest))
        case .latestClearTravels:
            return .value(latestClearTravels(b, l, r))
        case .latestNonNull:
            let times = [l, r].compactMap(SyncRuleValues.timestamp)
            guard let latest = times.max() else { return .value(threeWay(b, l, r, tie: defaultTie)) }
            return .value(.timestamp(latest))
        case .higherAnalysisVersion:
            return .value(ranked(path, rule, b, l, r, by: Self.analysisVersionOrder))
        case .trackPreviewRank:
            return .value(ranked(path, rule, b, l, r, by: Self.trackPreviewOrder))
        case .blobMapNeverDropped:
            return blobMap(path, rule, b, l, r)
        case .deferredUntilTaskArrives:
            return .value(deferredTask(b, l, r, tie: rule.tie))
        case .largerEntryTime:
            return .value(SettingsEntryMerge.merge(local: l, remote: r, tie: rule.tie))
        case .emptyAsNull:
            func nullIfEmpty(_ v: FirestoreValue?) -> FirestoreValue? { v == .string("") ? .null : v }
            return .value(threeWay(nullIfEmpty(b), nullIfEmpty(l), nullIfEmpty(r), tie: defaultTie))
        }
    }

    /// The defaults of a collection's top-level fields that are not nullable (Spec/fields.tsv), by
    /// name: what a reader reads for such a field when it is absent.
    static func defaults(_ collection: SyncCollection) -> [String: FirestoreValue] {
        defaultsByCollection[collection] ?? [:]
    }

    static let defaultsByCollection: [SyncCollection: [String: FirestoreValue]] = {
        var out: [SyncCollection: [String: FirestoreValue]] = [:]
        for c in SyncCollection.allCases {
            var byName: [String: FirestoreValue] = [:]
            for f in SyncSchema.vulture.fields(of: c.documentType) where !f.isNullable {
                if let d = f.defaultValue { byName[f.name] = d }
            }
            out[c] = byName
        }
        return out
    }()

    /// The tie of the row for every field (`* *`): the server unless the table says otherwise.
    var defaultTie: MergeTie? { MergeRule.all.first { $0.documentType == nil && $0.fieldPath == nil }?.tie }

    /// The side both-sides-changed goes to: the later `clientUpdatedAt`, else the tie.
    func bothChanged(tie: MergeTie?) -> MergeSide { laterSide ?? (tie == .local ? .local : .remote) }

    /// The default rule: the side that changed against the base; both changed → the later
    /// `clientUpdatedAt`, a tie → `tie` (schema §5.3, §5.5). Equal values keep the remote form.
    /// Values are compared as a reader reads them (Goldens/FORMAT.md, The stored form): an absent
    /// field is null, or `absentReadsAs`, the field's default, so a side that writes a default the
    /// other left out has not changed it.
    func threeWay(
        _ b: FirestoreValue?, _ l: FirestoreValue?, _ r: FirestoreValue?, tie: MergeTie?,
        absentReadsAs fallback: FirestoreValue? = nil
    ) -> FirestoreValue? {
        let (rb, rl, rr) = (b ?? fallback, l ?? fallback, r ?? fallback)
        if SyncRuleValues.same(rl, rr) { return r }
        let localChanged = !SyncRuleValues.same(rl, b == nil && base == nil ? b : rb)
        let remoteChanged = !SyncRuleValues.same(rr, b == nil && base == nil ? b : rb)
        if localChanged && !remoteChanged { return l }
        if remoteChanged && !localChanged { return r }
        return bothChanged(tie: tie) == .local ? l : r
    }

    /// One side changed → that side (a clear travels); both changed → the later date, a new date
    /// over a clear (Spec/pins.tsv `latestClearAgainstNewDate`).
    func latestClearTravels(_ b: FirestoreValue?, _ l: FirestoreValue?, _ r: FirestoreValue?) -> FirestoreValue? {
        if SyncRuleValues.same(l, r) { return r }
        let localChanged = !SyncRuleValues.same(l, b)
        let remoteChanged = !SyncRuleValues.same(r, b)
        guard localChanged && remoteChanged else { return localChanged ? l : r }
        switch (SyncRuleValues.timestamp(l), SyncRuleValues.timestamp(r)) {
        case (let x?, let y?): return x > y ? l : r
        case (_?, nil) where SyncRuleValues.isMissing(r): return l
        case (nil, _?) where SyncRuleValues.isMissing(l): return r
        default: return threeWay(b, l, r, tie: defaultTie)
        }
    }

    /// The value at a document path (`summary.analysisVersion`) of a document, or nil.
    static func value(at path: String, in document: [String: FirestoreValue]?) -> FirestoreValue? {
        document.flatMap { FirestoreValue.map($0)[fieldPath: path] }
    }

    /// analysisVersion: a higher integer ranks higher; a missing one lowest.
    static func analysisVersionOrder(_ a: FirestoreValue?, _ b: FirestoreValue?) -> Int {
        switch (SyncRuleValues.integer(a), SyncRuleValues.integer(b)) {
        case (nil, nil): 0
        case (nil, _?): -1
        case (_?, nil): 1
        case (let x?, let y?): x < y ? -1 : (x > y ? 1 : 0)
        }
    }

    /// trackPreviewVersion: 0 (or missing) < any negative < positive, higher positive higher
    /// (Spec/pins.tsv `trackPreviewNegativeRank`).
    static func trackPreviewOrder(_ a: FirestoreValue?, _ b: FirestoreValue?) -> Int {
        func rank(_ v: FirestoreValue?) -> (Int, Int64) {
            let n = SyncRuleValues.integer(v) ?? 0
            return n == 0 ? (0, 0) : (n < 0 ? (1, 0) : (2, n))
        }
        let x = rank(a)
        let y = rank(b)
        return x < y ? -1 : (y < x ? 1 : 0)
    }

    /// A ranked field (summary, the track preview and its version): the higher rank of the row's
    /// `rankBy` field wins; equal rank → the three-way rule over the fields ranked together (the
    /// rows of this kind in this document), both changed → the row's tie (Spec/pins.tsv `rankedMergeThreeWay`).
    func ranked(
        _ path: String, _ rule: MergeRule, _ b: FirestoreValue?, _ l: FirestoreValue?, _ r: FirestoreValue?,
        by order: (FirestoreValue?, FirestoreValue?) -> Int
    ) -> FirestoreValue? {
        if SyncRuleValues.same(l, r) { return r }
        let documentType = collection.documentType
        let rankPath = SyncRule.rows(.merge, .rankBy).first {
            $0.subject?.documentType == documentType && $0.subject?.fieldPath == path
        }?.rankFieldPath
        if let rankPath {
            let c = order(Self.value(at: rankPath, in: local), Self.value(at: rankPath, in: remote))
            if c != 0 { return c > 0 ? l : r }
        }
        let group = MergeRule.all.filter { $0.documentType == documentType && $0.kind == rule.kind }
            .compactMap(\.fieldPath)
        func changed(_ side: [String: FirestoreValue]) -> Bool {
            group.contains { !SyncRuleValues.same(Self.value(at: $0, in: side), Self.value(at: $0, in: base)) }
        }
        let localChanged = changed(local)
        let remoteChanged = changed(remote)
        if localChanged && !remoteChanged { return l }
        if remoteChanged && !localChanged { return r }
        return rule.tie == .local ? l : r
    }

    /// A blob map is never dropped: a side without one takes the other's. Both hold one: key by key
    /// (uploaded OR-ed by its own row) when both name the same object by the row's identity criteria
    /// of `Spec/sync-rules.tsv`, else the whole map by the three-way rule (Spec/pins.tsv `blobMapOtherObject`).
    mutating func blobMap(
        _ path: String, _ rule: MergeRule, _ b: FirestoreValue?, _ l: FirestoreValue?, _ r: FirestoreValue?
    ) -> FieldResolution {
        switch (l?.mapValue, r?.mapValue) {
        case (nil, nil): return .value(threeWay(b, l, r, tie: rule.tie))
        case (nil, _?): return .value(r)
        case (_?, nil): return .value(l)
        case (let lm?, let rm?):
            let documentType = collection.documentType
            let prefix = path + "."
            let identity = SyncRule.rows(.merge, .criterion).filter {
                $0.subject?.documentType == documentType && $0.subject?.fieldPath.hasPrefix(prefix) == true
            }
            let sameObject = identity.allSatisfy { criterion in
                let key = String((criterion.subject?.fieldPath ?? "").dropFirst(prefix.count))
                return SyncRuleValues.matches(criterion.match, Self.value(at: key, in: lm), Self.value(at: key, in: rm))
            }
            return sameObject ? nested(path, b, lm, rm) : .value(threeWay(b, l, r, tie: rule.tie))
        }
    }

    /// The default rule over the task id, the local id read as the pending one while a deferral is
    /// pending; a result naming a task not on the device is stored as null and remembered.
    mutating func deferredTask(_ b: FirestoreValue?, _ l: FirestoreValue?, _ r: FirestoreValue?, tie: MergeTie?)
        -> FirestoreValue?
    {
        var localValue = l
        if SyncRuleValues.isMissing(l), let pending = context.deferredTaskId { localValue = .string(pending) }
        let merged = threeWay(b, localValue, r, tie: tie)
        if case .string(let id)? = merged, !context.tasksOnDevice.contains(id) {
            deferredTaskId = id
            return .null
        }
        return merged
    }

    /// A delete wins over an edit, except a local row created after the remote `deletedAt` (a
    /// re-import) and a base tombstone the server side revived (Spec/pins.tsv `deleteRevival`);
    /// two tombstones merge their common fields by the default rule.
    func tombstone(_ b: FirestoreValue?, _ l: FirestoreValue?, _ r: FirestoreValue?) -> FieldResolution {
        let localDeleted = l == .boolean(true)
        let remoteDeleted = r == .boolean(true)
        switch (localDeleted, remoteDeleted) {
        case (false, true):
            if let created = context.localCreatedAt,
                let deletedAt = SyncRuleValues.timestamp(remote[Self.deletedAtField]), created > deletedAt
            {
                return .document(.local, revived: true)
            }
            return .document(.remote, revived: false)
        case (true, false):
            let sameTombstone =
                b == .boolean(true)
                && SyncRuleValues.same(local[Self.deletedAtField], base?[Self.deletedAtField])
            return .document(sameTombstone ? .remote : .local, revived: false)
        default:
            return .value(threeWay(b, l, r, tie: defaultTie))
        }
    }
}
