import VultureFirestore
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
        for collection in Self.pullOrder {
            try pull(collection)
        }
        try pullProfile()
        try afterPull()
    }

    /// The pull query's first page: `updatedAt >= cursor − overlap`, or every document without a cursor.
    func firstPageQuery(_ collection: SyncCollection) -> FirestoreQuery {
        var filters: [FirestoreQuery.Filter] = []
        if let cursor = store.state.cursors[collection] {
            let from = cursor.adding(seconds: -SchemaConstants.pullOverlapSeconds)
            filters.append(FirestoreQuery.Filter(Self.updatedAt, .greaterThanOrEqual, .timestamp(from)))
        }
        return FirestoreQuery(
            parent: "users/\(uid)", collectionId: collection.rawValue, filters: filters,
            orderBy: [FirestoreQuery.Order(Self.updatedAt), FirestoreQuery.Order(.documentName)],
            limit: Int(SchemaConstants.pullPageSize))
    }

    static let updatedAt = FieldPath(unchecked: ["updatedAt"])

    /// One collection, page by page. A later page continues after the last `(updatedAt, name)`
    /// seen — never `> updatedAt` alone (ties at one commit's time would be lost) and never the
    /// overlap again (a window with more than a page of writes would loop). A short page ends it.
    func pull(_ collection: SyncCollection) throws(SyncError) {
        var query = firstPageQuery(collection)
        while true {
            let page = try firestore("pull \(collection.rawValue)") { () throws(FirestoreError) in
                try database.runQuery(query)
            }
            for document in page { apply(document, collection: collection) }
            events.append(.pulledPage(collection, documents: page.count))
            try commitStore()
            guard page.count == query.limit, let last = page.last, case .timestamp(let t)? = last.fields["updatedAt"]
            else { return }
            query.startAt = FirestoreQuery.Cursor(
                values: [.timestamp(t), .reference(database.database + "/documents/" + last.path)], before: false)
        }
    }

    /// The profile document (`users/{uid}`): its `storageBytes` decides the cap check.
    func pullProfile() throws(SyncError) {
        let path = "users/\(uid)"
        let profile = try firestore("get profile") { () throws(FirestoreError) in try database.get(path) }
        store.state.profile = profile?.fields
        try commitStore()
    }

    /// Merges one pulled document into its row (schema §5.3–§5.5) and moves the cursor; applying a
    /// document twice changes nothing.
    func apply(_ document: FirestoreDocument, collection: SyncCollection) {
        let remote = document.fields
        if var row = store.row(collection, id: document.id) {
            let context = RecordMergeContext(
                localCreatedAt: row.createdAt,
                taskIds: collection == .flights ? Set(store.rows(.tasks).filter { !$0.isTombstone }.map(\.id)) : [])
            let merged = RecordMerge.merge(
                collection: collection, base: row.base, local: row.fields, remote: remote, context: context)
            row.fields = merged.document
            row.deferredTaskId = merged.deferredTaskId ?? row.deferredTaskId
            row.base = remote
            row.baseUpdateTime = document.updateTime
            store.put(row)
        } else {
            store.put(
                LocalRow(
                    collection: collection, id: document.id, fields: remote, base: remote,
                    baseUpdateTime: document.updateTime, origin: .server, createdAt: clock()))
        }
        if case .timestamp(let t)? = remote["updatedAt"], t > (store.state.cursors[collection] ?? .minimum) {
            store.state.cursors[collection] = t
        }
    }

    /// After every pull: the recents trim (schema §5.5) and deferred task ids whose task arrived.
    func afterPull() throws(SyncError) {
        try commitStore()
    }
}
