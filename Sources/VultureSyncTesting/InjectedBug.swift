import VultureSyncSchema

/// A realistic engine bug the reference engine can be told to have, so the simulation and the
/// scenarios can show that they catch it (`vulture-simulate --inject NAME`,
/// `vulture-reference-testee --inject NAME`). Never set outside a test or a simulation run.
/// Each one is what an engine written from the prose might plausibly get wrong; the engine
/// mutation test (Tests/VultureConformanceTests/EngineMutantTests.swift) names the required scenario
/// that catches each.
public enum InjectedBug: String, Sendable, Hashable, CaseIterable {
    /// Later pull pages continue after the last `updatedAt` alone, not `(updatedAt, name)`: ties
    /// across a page edge are lost.
    case pagingByUpdatedAtAlone
    /// The pull asks from the cursor itself, without the 2-minute overlap: commits visible late are missed.
    case noOverlap
    /// The first page asks `updatedAt > cursor − overlap` instead of `>=`.
    case strictCursor
    /// A clear of `lastOpenedAt` on one side does not travel: the other side's agreed date is kept.
    case clearDoesNotTravel
    /// The recents trim orders equal instants by arrival on the device instead of by id.
    case trimWithoutIdTieBreak
    /// A retried reservation is sent without its precondition: a lost answer counts the blob twice.
    case reserveWithoutPrecondition
    /// The purge asks for documents not edited for the retention (`clientUpdatedAt`), not for old
    /// tombstones (`deletedAt`), and deletes them live or not.
    case purgeDeletesLive
    /// A flight's file is downloaded whenever its blob map exists, before `uploaded` is true.
    case downloadBeforeUploaded
    /// `lastOpenedAt` and `usedAt` merged by the default rule (the later `clientUpdatedAt`), not the latest date.
    case latestDatesByLaterEdit
    /// An edit is sent as the whole local record (a set without a mask) and without a precondition,
    /// not as the changed fields.
    case editsAsFullDocuments
    /// A device back after more than the tombstone retention pulls from its old cursors.
    case noFullPullAfterLongAbsence
    /// A blob map's `uploaded` merged by the default rule, not OR-ed.
    case uploadedNotOred
    /// `clientUpdatedAt` compared at milliseconds (an engine that keeps times as epoch milliseconds).
    case clientTimeMilliseconds
    /// The profile's `storageBytes` written by value (the device's last read plus the change), not by increment.
    case storageBytesByValue
    /// Batches cut at ten times the payload estimate the seed allows (40 MB).
    case payloadCapTenfold
    /// The purge deletes in batches of 500 (Firestore's limit), not at most 400.
    case purgeBatchesOf500
    /// No R4 duplicate pass after iOS's first full pull.
    case noDuplicatePass
    /// The R4 duplicate pass runs after every pull of an iOS device, not once.
    case duplicatePassEveryPull
    /// One pull cursor for every collection (the largest `updatedAt` of any), not one per collection.
    case oneCursorForAllCollections
    /// The pull orders by document name alone while its later pages still start after
    /// `(updatedAt, name)`: Firestore refuses that second page (a cursor with more values than the
    /// order, INVALID_ARGUMENT), so no pull with more than a page completes.
    case pullOrderedByNameAlone
    /// The profile's `lastSeenAt` written at every sync, not at most once a day.
    case lastSeenAtEverySync
    /// A daily quota error (`RESOURCE_EXHAUSTED`) retried like UNAVAILABLE, with no pause.
    case quotaErrorRetried
    /// A pulled row's arrival on the device counts as its creation: a remote delete older than
    /// that (a device clock behind) loses to a row the server had live.
    case revivalByArrivalTime
    /// A downloaded IGC file is kept without checking its SHA-256 against the flight id.
    case downloadUnchecked
    /// A delete written as a merge of the common fields: the record's other fields stay on the server.
    case tombstoneAsMerge
    /// A reserve writes the blob map already `uploaded: true` (no later mark).
    case reserveMarkedUploaded
    /// A device that finds its platform missing from the profile writes the whole profile anew
    /// (`storageBytes` 0 by value) instead of merging its platform in.
    case profileRewritten
}

/// A choice the seed leaves free, made otherwise than the reference engine makes it. The scenarios
/// must let every one pass their required cases (the engine mutation test shows it): a required
/// scenario checks outcomes, never one of these mechanisms. Never set outside a test.
public enum EngineVariant: String, Sendable, Hashable, CaseIterable {
    /// The profile (`platforms`, `lastSeenAt`, its creation) is written after the records, at the
    /// end of the push, not before them.
    case profileAfterRecords
    /// A failed upload (`unavailable`) is tried again within the same sync.
    case uploadRetriedWithinSync
    /// Nothing is retried within a sync: a failed query, get or commit (a lost answer included)
    /// ends the sync with its status, and the next sync converges.
    case noRetryWithinSync
    /// A daily quota error pauses sync for 24 hours from the error, not until the next UTC day.
    case pauseForADay
    /// Every write in a batch of its own (a reserve keeps its record and its profile write together).
    case oneWritePerCommit
    /// Flights opened at the same instant keep their dates larger id first.
    case recentsTieLargerIdKeeps
    /// Files are gzipped at level 9, not 6: other `gzBytes` for the same file.
    case gzipLevel9
    /// Edits are sent without preconditions (field merges only); a reserve keeps its own.
    case editsWithoutPreconditions
    /// A pulled document that breaks the schema is merged like any other, not held.
    case mergesMalformedDocuments
    /// A pulled document that breaks the schema ends the sync with an error: the cursor never moves
    /// past it, so no later document arrives and nothing is pushed again (the seed says nothing of
    /// such a document; pin malformedDocumentPassed is the reference's choice).
    case stopsThePullAtAMalformedDocument
}
