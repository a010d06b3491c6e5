import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// How the engine carries out what the schema asks (schema §3, §5): each value is one step of the
/// pull, the push, the files, the purge or the error handling, set to what the reference engine does
/// (``reference``). An app keeps the reference; tests give an engine another choice the seed leaves
/// free, or a realistic fault, by changing one (VultureSyncTesting's `InjectedBug` and `EngineVariant`
/// do), so the engine has no branch that asks whether it is under test.
public struct SyncMechanisms: Sendable {
    /// The three-way merge of a pulled document into its row (``DocumentMerge/merge(base:local:remote:collection:context:)``).
    public typealias Merge =
        @Sendable (
            _ base: [String: FirestoreValue]?, _ local: [String: FirestoreValue], _ remote: [String: FirestoreValue],
            _ collection: SyncCollection, _ context: MergeContext
        ) -> MergeResult

    /// When the iOS R4 duplicate pass runs (schema §4, Spec/pins.tsv `duplicatesLogbookScope`).
    public enum DuplicatePassSchedule: String, Sendable, Hashable, CaseIterable {
        /// Never.
        case never
        /// Once, after the first full pull (the reference).
        case onceAfterFirstFullPull
        /// After every pull.
        case afterEveryPull
    }

    /// How long a daily quota error (`RESOURCE_EXHAUSTED`) pauses sync (schema §3).
    public enum QuotaPause: String, Sendable, Hashable, CaseIterable {
        /// Until the next UTC day by the device clock (the reference).
        case untilNextUTCDay
        /// For 24 hours from the error.
        case forADay
        /// No pause: the error is retried like UNAVAILABLE.
        case none
    }

    // MARK: Pull

    /// What a pulled document that breaks the schema gets (Spec/pins.tsv malformedDocumentHeld).
    public enum MalformedDocuments: Sendable {
        /// Not merged: the record is held until a valid version arrives (the reference).
        case held
        /// Merged like any other document.
        case merged
        /// The pull ends with INVALID_ARGUMENT at it.
        case stopThePull
    }

    /// What a pulled document that breaks the schema gets.
    public var malformedDocuments: MalformedDocuments = .held
    /// A device back after more than the tombstone retention pulls everything (schema §5.4).
    public var fullPullAfterLongAbsence = true
    /// One pull cursor per collection; false: one cursor for all (the largest `updatedAt` of any).
    public var cursorPerCollection = true
    /// The overlap subtracted from the cursor for the first page, in seconds (schema §5.2: 120).
    public var pullOverlapSeconds: Int64 = SchemaConstants.pullOverlapSeconds
    /// The first page's comparison with `cursor − overlap` (schema §5.2: `>=`).
    public var firstPageOperator: FirestoreQuery.Operator = .greaterThanOrEqual
    /// The pull orders by `updatedAt`, then document name; false: by document name alone.
    public var pullOrderedByUpdatedAt = true
    /// A later page starts after the last `(updatedAt, name)`; false: at `updatedAt >` the last alone.
    public var laterPagesStartAfterName = true
    /// A pulled row's arrival on the device counts as its creation in the merge's revival rule.
    public var arrivalCountsAsCreation = false
    /// The three-way merge (the reference: ``DocumentMerge``).
    public var merge: Merge = { base, local, remote, collection, context in
        DocumentMerge.merge(base: base, local: local, remote: remote, collection: collection, context: context)
    }
    /// A clear of `lastOpenedAt` or `usedAt` travels to the other side; false: the agreed date is kept.
    public var clearsTravel = true
    /// When the R4 duplicate pass runs.
    public var duplicatePass = DuplicatePassSchedule.onceAfterFirstFullPull
    /// The recents trim of the live flights (the reference: ``RecentsTrim/changes(_:)``).
    public var recentsTrim: @Sendable ([LocalRow]) -> [RecentsTrimChange] = { live in
        RecentsTrim.changes(
            live.map { RecentsRow(document: StoredDocument(id: $0.id, fields: $0.fields), origin: $0.origin) })
    }

    // MARK: Push

    /// The profile is written before the records of a push; false: after them.
    public var profileBeforeRecords = true
    /// A tombstone replaces the document (a set without a mask); false: a merge of its fields.
    public var tombstoneReplacesDocument = true
    /// An edit sends the changed fields under a mask; false: the whole record, without a precondition.
    public var editsAsChangedFields = true
    /// An edit is sent under a precondition on the agreed version (a reserve always is, unless
    /// ``reserveUnderPrecondition`` is false).
    public var editsUnderPreconditions = true
    /// Writes per commit of a push (schema §5.1: at most 400).
    public var batchMaxWrites = Int(SchemaLimits.engineBatchMaxWrites)
    /// Estimated payload bytes per commit of a push (schema §5.1: 4 MB).
    public var batchMaxPayloadBytes = Int(SchemaLimits.engineBatchMaxPayloadBytes)
    /// Deletes per commit of the purge (schema §5.4: at most 400).
    public var purgeBatchMaxWrites = Int(SchemaLimits.engineBatchMaxWrites)
    /// The profile's `storageBytes` moves by increment; false: written by value.
    public var storageBytesByIncrement = true
    /// Objects a tombstone releases become pending deletes in the local commit that agrees it, retried
    /// by later pushes until deleted (false: deleted once, a failure leaves the object for good).
    public var storageDeletesPending = true
    /// A reserve writes its blob map with `uploaded: true` at once (the reference: false, marked later).
    public var reserveMarksUploaded = false
    /// A reserve is sent under a precondition, so a retried one cannot count twice.
    public var reserveUnderPrecondition = true
    /// A refused reserve keeps the reserved blob map as the local value before it reads the server's.
    public var keepsRefusedReservation = false
    /// How many times an upload refused with `unavailable` is tried again within one sync.
    public var uploadRetriesWithinSync = 0
    /// A device missing from the profile's `platforms` merges itself in; false: rewrites the profile.
    public var profileMergesPlatform = true
    /// The profile's `lastSeenAt` is written at most once a day; false: at every sync.
    public var lastSeenAtAtMostDaily = true

    // MARK: Files

    /// The zlib level files are gzipped at (Spec/pins.tsv `gzipWritten`: 6).
    public var gzipLevel: Int32 = 6
    /// A file is downloaded only once its record says `uploaded`.
    public var downloadsOnlyUploaded = true
    /// A downloaded IGC file is checked against its flight id (SHA-256) before it is kept.
    public var checksDownloads = true

    // MARK: Purge and errors

    /// The purge asks for tombstones older than the retention by `deletedAt`; false: for documents
    /// not edited for the retention (`clientUpdatedAt`), deleted live or not.
    public var purgeSelectsTombstones = true
    /// How a daily quota error pauses sync.
    public var quotaPause = QuotaPause.untilNextUTCDay

    /// What the reference engine does.
    public static let reference = SyncMechanisms()

    /// The reference mechanisms.
    public init() {}
}
