import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// One record on the device: its document, the sync base, and the bookkeeping the engine needs
/// (schema §5.1 "the engine keeps, per row, the fields as last agreed with the server").
public struct LocalRow: Sendable, Hashable {
    /// The record's collection.
    public var collection: SyncCollection
    /// The document id.
    public var id: String
    /// The record's fields as this device has them, in stored form (a tombstone: the common fields
    /// with `deleted: true`). `updatedAt` is the server time of the last agreed version, or absent
    /// for a record never pushed; over a client (`SyncFirestore.client`), whose commits answer with
    /// no server time, a record pushed since its last pull keeps the `updatedAt` before (none for a
    /// new one) until the next pull brings the document back.
    public var fields: [String: FirestoreValue]
    /// The sync base: the document as last agreed with the server; nil when the server has never had it.
    public var base: [String: FirestoreValue]?
    /// The server's update time of ``base`` (the precondition of a blob change); nil with no base.
    /// Over a client (`SyncFirestore.client`), which reports no update times, the `updatedAt` of a
    /// pulled base, nil after this device's own write: there the base's content is the version.
    public var baseUpdateTime: FirestoreTimestamp?
    /// Where the row came from.
    public var origin: RowOrigin
    /// When the row was made on this device (device clock): its import or creation by the pilot (a
    /// record made again after a delete included), or its arrival by a pull.
    public var createdAt: FirestoreTimestamp
    /// Whether the pilot made the row on this device (an import, or a save of a record it had no live
    /// row of) after its last agreement with the server. Only then does ``createdAt`` decide a
    /// revival: a row made after a remote tombstone's `deletedAt` lives again (schema §5.4); a row
    /// the server had live and this device only received or edited loses to the delete.
    public var createdSinceAgreement: Bool
    /// A `taskId` that names a task not on the device yet; assigned once it arrives unless the
    /// flight changed meanwhile (schema §5.5).
    public var deferredTaskId: String?
    /// The blob map (`igc`, `content`) of a file on the device that is not reserved yet: written
    /// with `uploaded: false` when the reservation is made (schema §5.1), nil when there is none.
    public var pendingBlobMap: FirestoreValue?

    /// A row as given.
    public init(
        collection: SyncCollection, id: String, fields: [String: FirestoreValue],
        base: [String: FirestoreValue]? = nil, baseUpdateTime: FirestoreTimestamp? = nil, origin: RowOrigin,
        createdAt: FirestoreTimestamp, deferredTaskId: String? = nil, pendingBlobMap: FirestoreValue? = nil,
        createdSinceAgreement: Bool = false
    ) {
        self.collection = collection
        self.id = id
        self.fields = fields
        self.base = base
        self.baseUpdateTime = baseUpdateTime
        self.origin = origin
        self.createdAt = createdAt
        self.deferredTaskId = deferredTaskId
        self.pendingBlobMap = pendingBlobMap
        self.createdSinceAgreement = createdSinceAgreement
    }

    /// The document path for `uid`.
    public func path(uid: String) -> String {
        collection.documentPath(uid: uid, id: id)
    }

    /// Whether the row is a tombstone.
    public var isTombstone: Bool { fields[CommonFields.Field.deleted] == .boolean(true) }

    /// Whether the row holds changes the server does not have: never pushed, or a field other than
    /// `updatedAt` of ``pushedFields`` differs from the base.
    public var isDirty: Bool {
        guard let base else { return true }
        return Self.hasChangedFields(from: base, to: pushedFields)
    }

    /// The fields as a push sends them: ``fields``, except that a flight waiting for its task
    /// (``deferredTaskId``) sends that id, not the local null (schema §5.5: the flight is stored
    /// without the task on the device, and the server keeps the assignment another device made).
    /// A tombstone keeps only the common fields (schema §5.4): it sends no task id.
    public var pushedFields: [String: FirestoreValue] {
        // `deferredTaskId` (in the row) before `isTombstone` (a lookup in the fields): a pass over rows
        // that hold their base's very storage (just agreed) then reads none of their fields.
        guard let deferred = deferredTaskId, !isTombstone, let field = Self.deferredField(collection) else {
            return fields
        }
        var out = fields
        out[field] = .string(deferred)
        return out
    }

    /// The field whose value waits for the record it names (`deferredUntilTaskArrives` in the merge
    /// table: a flight's `taskId`), if the collection has one.
    static func deferredField(_ collection: SyncCollection) -> String? {
        MergeRule.all.first { $0.kind == .deferredUntilTaskArrives && $0.documentType == collection.documentType }?
            .fieldPath
    }

    /// The top-level fields whose values differ between `base` and `fields`, `updatedAt` aside (the
    /// server sets it), sorted.
    public static func changedFields(from base: [String: FirestoreValue], to fields: [String: FirestoreValue])
        -> [String]
    {
        var changed: [String] = []
        // Fields copied from the base and edited in place keep its key order: walked side by side,
        // each key is compared with the base's without hashing it. A key out of step falls back.
        if base.count == fields.count {
            var inStep = true
            for ((key, value), (baseKey, baseValue)) in zip(fields, base) {
                guard key == baseKey else {
                    inStep = false
                    break
                }
                if key != CommonFields.Field.updatedAt && baseValue != value { changed.append(key) }
            }
            if inStep { return changed.sorted() }
            changed = []
        }
        for (key, value) in fields where key != CommonFields.Field.updatedAt && base[key] != value {
            changed.append(key)
        }
        for key in base.keys where key != CommonFields.Field.updatedAt && fields[key] == nil { changed.append(key) }
        return changed.sorted()
    }

    /// The fields ``hasChangedFields(from:to:)`` compares first.
    static let likelyChangedFields = [CommonFields.Field.clientUpdatedAt] + StorageObjectKind.allCases.map(\.mapField)

    /// Whether ``changedFields(from:to:)`` would name any field: the first difference answers (a push
    /// and a purge ask it of every row).
    static func hasChangedFields(from base: [String: FirestoreValue], to fields: [String: FirestoreValue]) -> Bool {
        // A row just agreed holds its base's very storage: no field to compare.
        if withUnsafeBytes(of: base, { b in withUnsafeBytes(of: fields) { b.elementsEqual($0) } }) { return false }
        // What changes most: a pilot's edit stamps clientUpdatedAt, an upload marks the blob map.
        for key in likelyChangedFields where base[key] != fields[key] { return true }
        for (key, value) in fields where key != CommonFields.Field.updatedAt && base[key] != value { return true }
        for key in base.keys where key != CommonFields.Field.updatedAt && fields[key] == nil { return true }
        return false
    }
}

/// The engine's own state on the device, saved with the rows.
public struct EngineState: Sendable, Hashable {
    /// The pull cursor per collection: the largest `updatedAt` applied (schema §5.2).
    public var cursors: [SyncCollection: FirestoreTimestamp] = [:]
    /// Sync is paused until this device time after a daily quota error (schema §3).
    public var pausedUntil: FirestoreTimestamp?
    /// The profile document as last read or written (storageBytes for the cap check).
    public var profile: [String: FirestoreValue]?
    /// Whether the one-time R4 duplicate pass ran (iOS's first full pull; a local flag, not synced).
    public var duplicatePassDone = false
    /// When the last pull finished (device clock): a device away longer than the tombstone retention
    /// cannot trust what it agreed with the server (tombstones it never saw may be purged).
    public var lastPullAt: FirestoreTimestamp?
    /// Records held because their server document breaks the schema (Spec/pins.tsv
    /// `malformedDocumentHeld`): `collection/id` → the errors, `/pointer: rule-id`. Their local
    /// changes wait until a valid version is merged.
    public var heldRecords: [String: [String]] = [:]
    /// Storage objects released by a tombstone the server agreed, not yet deleted (schema §5.4):
    /// recorded in the local commit that agrees the tombstone, removed once the delete succeeded,
    /// retried at the end of every later push. Sorted, distinct object paths.
    public var pendingStorageDeletes: [String] = []

    /// Empty state.
    public init() {}
}

/// A device's local database as the engine uses it: rows by collection and id, the engine state,
/// and gzipped Storage objects kept on the device (by object path).
///
/// Changes are working state until ``commit()`` makes them durable: a crash (a restart) loses
/// exactly what was not committed. The engine commits after every page it pulls (rows with the
/// cursor) and after every batch it pushes.
public protocol LocalStore: AnyObject {
    /// The row, or nil.
    func row(_ collection: SyncCollection, id: String) -> LocalRow?
    /// Every row of the collection, sorted by id.
    func rows(_ collection: SyncCollection) -> [LocalRow]
    /// The rows of the collection that `isIncluded` accepts, sorted by id: ``rows(_:)`` filtered,
    /// where a store can skip copying the others (a pass over a large logbook that wants a few).
    func rows(_ collection: SyncCollection, where isIncluded: (LocalRow) -> Bool) -> [LocalRow]
    /// Inserts or replaces a row.
    func put(_ row: LocalRow)
    /// Removes a row (a purged tombstone).
    func remove(_ collection: SyncCollection, id: String)
    /// The engine's state.
    var state: EngineState { get set }
    /// The gzipped object kept on the device at a Storage path, or nil.
    func blob(_ path: String) -> Data?
    /// Keeps (or, with nil, drops) a gzipped object on the device.
    func setBlob(_ bytes: Data?, at path: String)
    /// Makes every change so far durable.
    /// - Throws: the file system's error (a file-backed store); nothing is lost from the working state.
    func commit() throws
}

extension LocalStore {
    /// ``rows(_:)`` filtered.
    public func rows(_ collection: SyncCollection, where isIncluded: (LocalRow) -> Bool) -> [LocalRow] {
        rows(collection).filter(isIncluded)
    }
}

/// A local store in memory with an explicit durable commit: ``crash()`` drops what was not
/// committed, as a process kill would.
///
/// The durable state and the changes since the last commit are kept apart (a journal of rows,
/// objects and the engine state), so a commit costs the number of changes, not the size of the
/// store: the engine commits after every batch and every reservation, and a logbook of 50,000
/// flights would otherwise be copied whole at each one.
public final class InMemoryLocalStore: LocalStore {
    /// A collection's durable rows in one array, sorted by id unless a commit added one since, and
    /// each id's place in it: a pass over a large logbook walks the rows in order, hashing no id.
    private struct DurableRows {
        var rows: [LocalRow] = []
        var places: [String: Int] = [:]
        var sorted = true

        func row(_ id: String) -> LocalRow? { places[id].map { rows[$0] } }

        /// Inserts, replaces or (nil) removes a row: an added row goes last and a removed one's place
        /// takes the last row, so the order waits for ``sort()``.
        mutating func set(_ row: LocalRow?, id: String) {
            switch (places[id], row) {
            case (let place?, let row?):
                rows[place] = row
            case (let place?, nil):
                places[id] = nil
                let last = rows.removeLast()
                if place < rows.count {
                    rows[place] = last
                    places[last.id] = place
                    sorted = false
                }
            case (nil, let row?):
                if let last = rows.last, last.id >= id { sorted = false }
                places[id] = rows.count
                rows.append(row)
            case (nil, nil):
                break
            }
        }

        mutating func sort() {
            guard !sorted else { return }
            rows.sort { $0.id < $1.id }
            for (place, row) in rows.enumerated() { places[row.id] = place }
            sorted = true
        }
    }

    private var durableRows: [SyncCollection: DurableRows] = [:]
    private var durableState = EngineState()
    private var durableBlobs: [String: Data] = [:]
    /// Rows changed since the last commit, by collection and id (nil: removed).
    private var changedRows: [SyncCollection: [String: LocalRow?]] = [:]
    /// The engine state, when changed since the last commit.
    private var changedState: EngineState?
    /// Objects changed since the last commit (nil: dropped).
    private var changedBlobs: [String: Data?] = [:]

    /// An empty store.
    public init() {}

    public func row(_ collection: SyncCollection, id: String) -> LocalRow? {
        if let changed = changedRows[collection]?[id] { return changed }
        return durableRows[collection]?.row(id)
    }

    public func rows(_ collection: SyncCollection) -> [LocalRow] { rows(collection, where: { _ in true }) }

    public func rows(_ collection: SyncCollection, where isIncluded: (LocalRow) -> Bool) -> [LocalRow] {
        durableRows[collection]?.sort()
        let durable = durableRows[collection] ?? DurableRows()
        let changed = changedRows[collection] ?? [:]
        let added = changed.keys.filter { durable.places[$0] == nil }.sorted()
        var out: [LocalRow] = []
        // The durable rows in id order merged with the rows new since the last commit; a durable
        // row's id is looked up among the changes only when there are any. A durable row is judged
        // where it lies and copied only when included: a copy retains every value the row holds,
        // cold in a large logbook, and most passes of a push want few rows.
        durable.rows.withUnsafeBufferPointer { rows in
            var i = 0
            var j = 0
            while i < rows.count || j < added.count {
                if j == added.count || (i < rows.count && rows[i].id < added[j]) {
                    if !changed.isEmpty, let change = changed[rows[i].id] {
                        if let row = change, isIncluded(row) { out.append(row) }
                    } else if isIncluded(rows[i]) {
                        out.append(rows[i])
                    }
                    i += 1
                } else {
                    if let row = changed[added[j]] ?? nil, isIncluded(row) { out.append(row) }
                    j += 1
                }
            }
        }
        return out
    }

    public func put(_ row: LocalRow) { changedRows[row.collection, default: [:]][row.id] = .some(row) }

    public func remove(_ collection: SyncCollection, id: String) {
        changedRows[collection, default: [:]][id] = .some(nil)
    }

    public var state: EngineState {
        get { changedState ?? durableState }
        set { changedState = newValue }
    }

    public func blob(_ path: String) -> Data? {
        if !changedBlobs.isEmpty, let changed = changedBlobs[path] { return changed }
        return durableBlobs[path]
    }

    public func setBlob(_ bytes: Data?, at path: String) { changedBlobs[path] = .some(bytes) }

    /// Applies the changes since the last commit to the durable state (their number, not the store's size).
    public func commit() throws {
        for (collection, rows) in changedRows {
            for (id, row) in rows { durableRows[collection, default: DurableRows()].set(row, id: id) }
        }
        for (path, bytes) in changedBlobs { durableBlobs[path] = bytes }
        if let changedState { durableState = changedState }
        changedRows.removeAll(keepingCapacity: true)
        changedBlobs.removeAll(keepingCapacity: true)
        changedState = nil
    }

    /// A restart after a crash: the working state goes back to the last commit.
    public func crash() {
        changedRows.removeAll()
        changedBlobs.removeAll()
        changedState = nil
    }

    /// Whether everything is committed: no change since the last commit leaves a row, object or
    /// the engine state other than it was.
    public var hasUncommittedChanges: Bool {
        changedRows.contains { collection, rows in
            rows.contains { id, row in durableRows[collection]?.row(id) != row }
        }
            || changedBlobs.contains { path, bytes in durableBlobs[path] != bytes }
            || changedState.map { $0 != durableState } ?? false
    }
}
