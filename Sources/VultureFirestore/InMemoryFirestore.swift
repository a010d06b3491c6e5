import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// A Firestore database in memory, held to the emulator by the differential test: documents by
/// path, atomic commits with Firestore's exact write semantics, the engine's queries, and a server
/// clock the caller injects (no wall clock).
///
/// A commit runs as Firestore's does:
/// 1. every write is checked (document path, mask and transform paths, reserved field names, more
///    than ``maximumWritesPerCommit`` writes, combinations of writes to one document Firestore
///    refuses), then the values the writes to each document leave once later writes replaced or
///    deleted earlier ones (field names, value sizes, depth) — INVALID_ARGUMENT before any
///    precondition;
/// 2. the writes to each document, documents in the order of their first write, are applied one
///    after the other; a precondition is checked against the document as the earlier writes of the
///    commit left it (`updateTime` against the document as stored before the commit); the document
///    limits are checked on what the commit leaves;
/// 3. all documents change at once, at the commit time: a document whose fields end as they were
///    keeps its update time (every write to it reports that time), one deleted and written again in
///    the commit gets a new create time, a deleted one reports no update time.
///
/// Thread-safe: calls are serialized by a lock.
public final class InMemoryFirestore: FirestoreDatabase, @unchecked Sendable {
    /// `projects/{p}/databases/{d}`: the names `__name__` compares and cursors carry.
    public let database: String
    /// The most writes one commit may hold: Firestore's 500, `SchemaLimits.batchMaxWrites` (the
    /// emulator does not check it).
    public let maximumWritesPerCommit: Int
    private let clock: @Sendable () -> FirestoreTimestamp
    /// Recursive: a transaction holds it while its body reads and its writes commit.
    private let lock = NSRecursiveLock()
    /// The documents by collection path (`users/u/flights`), then path: a query reads its collection
    /// only, and a document is held once.
    private var collections: [String: [String: FirestoreDocument]] = [:]
    /// Per collection path, a count moved by every commit that changes one of its documents.
    private var collectionVersions: [String: Int] = [:]
    /// Queries' sorted matches (by the query without cursor and limit) and the collection version
    /// they were read at: the pages of one pull are binary searches in one sorted list, not a sort
    /// of the whole collection each (a 50,000-document pull would be quadratic).
    private var sortedQueries: [FirestoreQuery: (version: Int, matches: [FirestoreQuery.SortedMatch])] = [:]
    /// The commit time at which each deleted document was deleted: its version while missing.
    private var deletions: [String: FirestoreTimestamp] = [:]
    /// The latest commit time so far (nil before the first commit).
    private var latestCommitTime: FirestoreTimestamp?

    /// An empty database.
    /// - Parameters:
    ///   - database: `projects/{p}/databases/{d}` (default: the emulator's `demo-vulture`).
    ///   - maximumWritesPerCommit: Firestore's 500 (`SchemaLimits.batchMaxWrites`).
    ///   - clock: the server clock; ``commit(_:)->_`` takes its commit time from it.
    public init(
        database: String = "projects/demo-vulture/databases/(default)",
        maximumWritesPerCommit: Int = Int(SchemaLimits.batchMaxWrites),
        clock: @escaping @Sendable () -> FirestoreTimestamp
    ) {
        self.database = database
        self.maximumWritesPerCommit = maximumWritesPerCommit
        self.clock = clock
    }

    /// Commits at the clock's time, or a microsecond after the latest commit when the clock has not
    /// moved past it: Firestore's commit times increase, so that an update time names one version of
    /// a document and an `updateTime` precondition taken before a later commit fails after it.
    /// Server timestamps take the commit time truncated to milliseconds (Firestore's request time
    /// has millisecond precision).
    /// - Throws: `FirestoreError` as ``FirestoreDatabase/commit(_:)`` says.
    public func commit(_ writes: [FirestoreWrite]) throws(FirestoreError) -> FirestoreCommitResult {
        lock.lock()
        defer { lock.unlock() }
        var now = clock()
        if let latest = latestCommitTime, now <= latest {
            now = latest.adding(microseconds: 1)
        }
        return try commit(writes, commitTime: now, requestTime: Self.milliseconds(now))
    }

    /// Commits at an explicit time, for a caller that orders commits itself (the differential test
    /// replays the emulator's times); a later ``commit(_:)->_`` still comes after it.
    /// - Parameters:
    ///   - writes: the writes, applied in order, all or none.
    ///   - commitTime: the update time of every document the commit changes.
    ///   - requestTime: the value of every server timestamp; default `commitTime` truncated to ms.
    /// - Throws: `FirestoreError` as ``FirestoreDatabase/commit(_:)`` says; nothing changes then.
    public func commit(
        _ writes: [FirestoreWrite], commitTime: FirestoreTimestamp, requestTime: FirestoreTimestamp? = nil
    ) throws(FirestoreError) -> FirestoreCommitResult {
        lock.lock()
        defer { lock.unlock() }
        let outcome = try Self.evaluate(
            writes, stored: { (document($0), deletions.isEmpty ? nil : deletions[$0]) }, commitTime: commitTime,
            requestTime: requestTime ?? Self.milliseconds(commitTime), maximumWrites: maximumWritesPerCommit)
        for (path, doc) in outcome.documents {
            // A database that never deleted (a first sync) hashes no path for it.
            if doc == nil {
                deletions[path] = commitTime
            } else if !deletions.isEmpty {
                deletions[path] = nil
            }
            let collection = Self.collectionPath(path)
            collections[collection, default: [:]][path] = doc
            collectionVersions[collection, default: 0] += 1
        }
        latestCommitTime = max(latestCommitTime ?? commitTime, commitTime)
        return outcome.result
    }

    /// Runs `body` holding the database's lock: no other thread reads or changes a document
    /// meanwhile (a transaction's body and commit).
    /// - Throws: what `body` throws.
    func exclusively<T>(_ body: () throws(FirestoreError) -> T) throws(FirestoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The document at `path`, or nil.
    /// - Throws: INVALID_ARGUMENT for a path that is not a document path.
    public func get(_ path: String) throws(FirestoreError) -> FirestoreDocument? {
        if let message = FirestoreLimits.documentPathViolation(path) {
            throw FirestoreError(.invalidArgument, message)
        }
        lock.lock()
        defer { lock.unlock() }
        return document(path)
    }

    /// The stored document at `path`, or nil; the caller holds the lock.
    private func document(_ path: String) -> FirestoreDocument? {
        collections[Self.collectionPath(path)]?[path]
    }

    /// The query's documents, in its order (``FirestoreQuery/evaluate(_:database:)``).
    /// - Throws: INVALID_ARGUMENT for a parent that is not a document path or a cursor with more
    ///   values than the query has sort keys.
    public func runQuery(_ query: FirestoreQuery) throws(FirestoreError) -> [FirestoreDocument] {
        if !query.parent.isEmpty, let message = FirestoreLimits.documentPathViolation(query.parent) {
            throw FirestoreError(.invalidArgument, message)
        }
        if let cursor = query.startAt, cursor.values.count > query.effectiveOrder.count {
            throw FirestoreError(.invalidArgument, "the cursor has more values than the query has sort keys")
        }
        var unpaged = query
        unpaged.startAt = nil
        unpaged.limit = nil
        let collection = query.parent.isEmpty ? query.collectionId : query.parent + "/" + query.collectionId
        lock.lock()
        defer { lock.unlock() }
        let version = collectionVersions[collection] ?? 0
        if let cached = sortedQueries[unpaged], cached.version == version {
            return query.page(of: cached.matches)
        }
        let matches = unpaged.sortedMatches((collections[collection] ?? [:]).values, database: database)
        if sortedQueries.count >= 64 { sortedQueries.removeAll() }
        sortedQueries[unpaged] = (version, matches)
        return query.page(of: matches)
    }

    /// The collection path of a document path: everything before its last `/` (U+002F, found by
    /// scalars as ``FirestoreLimits/slashSegments(_:)`` splits: a `/` followed by a combining mark
    /// is not a Character of its own).
    static func collectionPath(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: 0x2F) else { return "" }
        return String(Substring(path.utf8[..<slash]))
    }

    /// Every document, by path.
    public var allDocuments: [FirestoreDocument] {
        lock.lock()
        defer { lock.unlock() }
        return collections.values.flatMap(\.values).sorted { $0.path < $1.path }
    }

    static func milliseconds(_ t: FirestoreTimestamp) -> FirestoreTimestamp {
        (try? FirestoreTimestamp(seconds: t.seconds, microseconds: t.microseconds / 1000 * 1000)) ?? t
    }

    /// What a commit does, without touching any store: the documents it leaves (nil = none) and
    /// its result (see the type's documentation for the order of checks).
    static func evaluate(
        _ writes: [FirestoreWrite], stored: (String) -> (FirestoreDocument?, deletedAt: FirestoreTimestamp?),
        commitTime: FirestoreTimestamp,
        requestTime: FirestoreTimestamp, maximumWrites: Int
    ) throws(FirestoreError) -> (documents: [(String, FirestoreDocument?)], result: FirestoreCommitResult) {
        if writes.count > maximumWrites {
            throw FirestoreError(
                .invalidArgument, "a commit holds at most \(maximumWrites) writes, this one \(writes.count)")
        }
        var order: [String] = []
        var groups: [String: [Int]] = [:]
        var transforms: [[FirestoreFieldTransform]] = []
        transforms.reserveCapacity(writes.count)
        // A write whose values pass the value check passes the structure check too: one walk of
        // its fields instead of two where nothing is wrong (a fault is found by the checks in
        // their order, as before).
        var valuesChecked: [Bool] = []
        valuesChecked.reserveCapacity(writes.count)
        for (i, w) in writes.enumerated() {
            let t = w.transforms
            let checked = w.fields.map { (try? FirestoreDocumentLimits.checkValues($0)) != nil } ?? false
            try FirestoreWriteRules.validate(w, transforms: t, valuesChecked: checked)
            transforms.append(t)
            valuesChecked.append(checked)
            let path = w.path ?? ""
            if groups[path] == nil { order.append(path) }
            groups[path, default: []].append(i)
        }
        for path in order {
            let indices = groups[path] ?? []
            let group = indices.map { writes[$0] }
            try FirestoreWriteRules.checkCollapse(group)
            try FirestoreWriteRules.validateCollapsed(
                group, valuesChecked: indices.count == 1 && valuesChecked[indices[0]])
        }

        var results = [FirestoreWriteResult](repeating: FirestoreWriteResult(updateTime: nil), count: writes.count)
        var changed: [(String, FirestoreDocument?)] = []
        for path in order {
            let (original, deletedAt) = stored(path)
            var fields = original?.fields
            var deleted = false
            var transformResults: [Int: [FirestoreValue]] = [:]
            for i in groups[path] ?? [] {
                let w = writes[i]
                try FirestoreWriteRules.checkPrecondition(
                    w.precondition, exists: fields != nil, originalExists: original != nil,
                    originalVersion: original?.updateTime ?? deletedAt, path: path)
                if w.isDelete, fields != nil { deleted = true }
                let outcome = w.applyUnchecked(to: fields, requestTime: requestTime, transforms: transforms[i])
                fields = outcome.fields
                transformResults[i] = outcome.transformResults
            }
            var document: FirestoreDocument?
            // Whether the stored document stays as it was (its fields compared once).
            var unchanged = original == nil && fields == nil
            if let fields {
                try FirestoreDocumentLimits.check(path: path, fields: fields)
                if let original, !deleted {
                    // A transform that set another value than the stored one changed the document
                    // (a server timestamp, as a push stamps `updatedAt`): the rest is not compared.
                    let before = FirestoreValue.map(original.fields)
                    let after = FirestoreValue.map(fields)
                    let transformed = (groups[path] ?? []).contains { i in
                        transforms[i].contains { before[path: $0.path] != after[path: $0.path] }
                    }
                    let same = !transformed && original.fields == fields
                    unchanged = same
                    document = FirestoreDocument(
                        path: path, fields: fields, createTime: original.createTime,
                        updateTime: same ? original.updateTime : commitTime)
                } else {
                    document = FirestoreDocument(
                        path: path, fields: fields, createTime: commitTime, updateTime: commitTime)
                }
            }
            for i in groups[path] ?? [] {
                results[i] = FirestoreWriteResult(
                    updateTime: document?.updateTime, transformResults: transformResults[i] ?? [])
            }
            if !unchanged { changed.append((path, document)) }
        }
        return (changed, FirestoreCommitResult(commitTime: commitTime, writeResults: results))
    }
}
