import Foundation
import Testing
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// A timestamp `seconds` after 2026-11-01T00:00:00Z plus `micros` microseconds.
func time(_ seconds: Int64, _ micros: Int32 = 0) -> FirestoreTimestamp {
    (try? FirestoreTimestamp(seconds: 1_793_491_200 + seconds, microseconds: micros)) ?? .minimum
}

func ts(_ seconds: Int64, _ micros: Int32 = 0) -> FirestoreValue { .timestamp(time(seconds, micros)) }

/// `fields` with the common fields of a live document edited at `clock`.
func live(_ clock: Int64, _ fields: [String: FirestoreValue], micros: Int32 = 0) -> [String: FirestoreValue] {
    var d: [String: FirestoreValue] = [
        "schema": .integer(1), "updatedAt": ts(0), "clientUpdatedAt": ts(clock, micros), "updatedBy": .string("dev"),
        "platform": .string("android"), "deleted": .boolean(false), "deletedAt": .null,
    ]
    d.merge(fields) { _, new in new }
    return d
}

/// A tombstone deleted at `clock`.
func tombstone(_ clock: Int64) -> [String: FirestoreValue] {
    [
        "schema": .integer(1), "updatedAt": ts(0), "clientUpdatedAt": ts(clock), "updatedBy": .string("dev"),
        "platform": .string("ios"), "deleted": .boolean(true), "deletedAt": ts(clock),
    ]
}

func merged(
    _ collection: SyncCollection, base: [String: FirestoreValue]?, local: [String: FirestoreValue],
    remote: [String: FirestoreValue], context: MergeContext = MergeContext()
) -> MergeResult {
    DocumentMerge.merge(base: base, local: local, remote: remote, collection: collection, context: context)
}

/// Each rule kind of `Spec/merge-rules.tsv`, its ties and refinements (schema §5.3–§5.5).
@Suite struct MergeRuleTests {
    // MARK: Dispatch

    @Test func dispatchFollowsTheTable() {
        #expect(MergeRule.rule(for: .flights, fieldPath: "inLogbook").kind == .logicalOr)
        #expect(MergeRule.rule(for: .flights, fieldPath: "igc.uploaded").kind == .logicalOr)
        #expect(MergeRule.rule(for: .flights, fieldPath: "igc.sizeBytes").kind == .threeWayLatestClientUpdatedAt)
        #expect(MergeRule.rule(for: .tasks, fieldPath: "inLogbook").kind == .threeWayLatestClientUpdatedAt)
        #expect(MergeRule.rule(for: .settings, fieldPath: "values.sport").kind == .largerEntryTime)
        #expect(MergeRule.rule(for: .settings, fieldPath: "values").kind == .threeWayLatestClientUpdatedAt)
        #expect(MergeRule.rule(for: .homebases, fieldPath: "deleted").kind == .tombstoneWins)
        #expect(MergeRule.rule(for: .mapFiles, fieldPath: "clientUpdatedAt").kind == .latestNonNull)
        #expect(MergeRule.rule(for: .flights, fieldPath: "glideRatio").tie == .server)
        #expect(MergeRule.rule(for: .flights, fieldPath: "summary").tie == .local)
        #expect(MergeRule.governsPaths(below: "igc", in: .flights))
        #expect(MergeRule.governsPaths(below: "values", in: .settings))
        #expect(!MergeRule.governsPaths(below: "summary", in: .flights))
        // Every row of the table is what the dispatch returns for its own path.
        for row in MergeRule.all {
            guard let path = row.fieldPath?.replacingOccurrences(of: "*", with: "anyKey") else { continue }
            let collections = SyncCollection.allCases.filter {
                row.documentType == nil || $0.documentType == row.documentType
            }
            for c in collections where row.documentType != nil || c.hasCommonFields {
                #expect(MergeRule.rule(for: c, fieldPath: path) == row, "\(c) \(path)")
            }
        }
    }

    // MARK: threeWayLatestClientUpdatedAt

    @Test func changedOnOneSideTakesThatSide() {
        let base = live(10, ["comments": .string("a"), "rating": .integer(1)])
        let local = live(20, ["comments": .string("b"), "rating": .integer(1)])
        let remote = live(30, ["comments": .string("a"), "rating": .integer(4)])
        let m = merged(.flights, base: base, local: local, remote: remote).document
        #expect(m["comments"] == .string("b"))
        #expect(m["rating"] == .integer(4))
    }

    @Test func changedOnBothSidesTakesTheLaterClockAtMicroseconds() {
        let base = live(10, ["comments": .string("a")])
        let local = live(20, ["comments": .string("local")], micros: 2)
        let remote = live(20, ["comments": .string("remote")], micros: 1)
        #expect(merged(.flights, base: base, local: local, remote: remote).document["comments"] == .string("local"))
        let later = live(20, ["comments": .string("remote")], micros: 3)
        #expect(merged(.flights, base: base, local: local, remote: later).document["comments"] == .string("remote"))
    }

    @Test func aTieGoesToTheServer() {
        let base = live(10, ["notes": .string("a")])
        let local = live(20, ["notes": .string("local")])
        let remote = live(20, ["notes": .string("remote")])
        #expect(merged(.tasks, base: base, local: local, remote: remote).document["notes"] == .string("remote"))
    }

    @Test func unknownFieldsAreKeptAndMergedThreeWay() {
        let base = live(10, ["glideRatio": .double(40)])
        let local = live(20, ["glideRatio": .double(40)])
        let remote = live(15, ["glideRatio": .double(42), "winglets": .boolean(true)])
        let m = merged(.flights, base: base, local: local, remote: remote).document
        #expect(m["glideRatio"] == .double(42))
        #expect(m["winglets"] == .boolean(true))
        let onlyLocal = merged(.flights, base: nil, local: live(20, ["x": .integer(1)]), remote: live(1, [:])).document
        #expect(onlyLocal["x"] == .integer(1))
    }

    @Test func absentAndNullAreAlike() {
        let base = live(10, ["comments": .null])
        let local = live(20, [:])
        let remote = live(30, ["comments": .null])
        let m = merged(.flights, base: base, local: local, remote: remote).document
        #expect(m["comments"] == .null)
    }

    // MARK: latestNonNull (the merged clock)

    @Test func theMergedClockIsTheLaterOne() {
        let base = live(50, [:])
        let local = live(50, ["comments": .string("x")])
        let remote = live(40, ["rating": .integer(2)])
        #expect(merged(.flights, base: base, local: local, remote: remote).document["clientUpdatedAt"] == ts(50))
    }

    // MARK: logicalOr

    @Test func inLogbookIsNeverLost() {
        let base = live(10, ["inLogbook": .boolean(true)])
        let local = live(30, ["inLogbook": .boolean(false)])
        let remote = live(20, ["inLogbook": .boolean(true)])
        #expect(merged(.flights, base: base, local: local, remote: remote).document["inLogbook"] == .boolean(true))
        let neither = merged(
            .flights, base: nil, local: live(1, ["inLogbook": .boolean(false)]), remote: live(2, [:]))
        #expect(neither.document["inLogbook"] == .boolean(false))
    }

    // MARK: earliestNonNull

    @Test func importedAtAndCreatedAtKeepTheEarliest() {
        let base = live(10, ["importedAt": ts(5), "createdAt": .null])
        let local = live(30, ["importedAt": ts(5), "createdAt": ts(8)])
        let remote = live(20, ["importedAt": ts(3), "createdAt": .null])
        let m = merged(.flights, base: base, local: local, remote: remote).document
        #expect(m["importedAt"] == ts(3))
        #expect(m["createdAt"] == ts(8))
        let task = merged(
            .tasks, base: nil, local: live(1, ["importedAt": ts(7, 1)]), remote: live(1, ["importedAt": ts(7, 2)]))
        #expect(task.document["importedAt"] == ts(7, 1))
    }

    // MARK: latestClearTravels

    @Test func lastOpenedAtTakesTheLatestWhenBothSetIt() {
        let base = live(10, ["lastOpenedAt": ts(5)])
        let m = merged(
            .flights, base: base, local: live(20, ["lastOpenedAt": ts(9)]), remote: live(30, ["lastOpenedAt": ts(7)]))
        #expect(m.document["lastOpenedAt"] == ts(9))
    }

    @Test func aClearTravelsAgainstTheAgreedValue() {
        let base = live(10, ["lastOpenedAt": ts(5)])
        let cleared = merged(
            .flights, base: base, local: live(20, ["lastOpenedAt": ts(5)]), remote: live(15, ["lastOpenedAt": .null]))
        #expect(cleared.document["lastOpenedAt"] == .null)
        let usedAt = merged(
            .homebases, base: live(10, ["usedAt": ts(5)]), local: live(20, ["usedAt": .null]),
            remote: live(30, ["usedAt": ts(5)]))
        #expect(usedAt.document["usedAt"] == .null)
    }

    @Test func aNewDateBeatsAClear() {
        let base = live(10, ["lastOpenedAt": ts(5)])
        let m = merged(
            .recentCompetitions, base: base, local: live(40, ["lastOpenedAt": .null]),
            remote: live(20, ["lastOpenedAt": ts(6)]))
        #expect(m.document["lastOpenedAt"] == ts(6))
    }

    // MARK: higherAnalysisVersion

    static func summary(_ version: Int64, _ duration: Int64) -> FirestoreValue {
        .map(["analysisVersion": .integer(version), "duration": .integer(duration)])
    }

    @Test func theHigherAnalysisVersionWinsWhole() {
        let base = live(10, ["summary": Self.summary(1, 100)])
        let local = live(30, ["summary": Self.summary(1, 100)])
        let remote = live(20, ["summary": Self.summary(2, 90)])
        #expect(merged(.flights, base: base, local: local, remote: remote).document["summary"] == Self.summary(2, 90))
        let downgrade = live(40, ["summary": Self.summary(0, 1)])
        #expect(
            merged(.flights, base: base, local: downgrade, remote: remote).document["summary"] == Self.summary(2, 90))
    }

    @Test func anAnalysisVersionTieKeepsLocalWhenBothChanged() {
        let base = live(10, ["summary": Self.summary(1, 100)])
        let local = live(10, ["summary": Self.summary(2, 80)])
        let remote = live(30, ["summary": Self.summary(2, 90)])
        #expect(merged(.flights, base: base, local: local, remote: remote).document["summary"] == Self.summary(2, 80))
        // Only the server changed: its summary, so every device converges (pins.tsv rankedMergeThreeWay).
        let unchanged = live(40, ["summary": Self.summary(1, 100)])
        let newer = live(20, ["summary": Self.summary(1, 70)])
        #expect(
            merged(.flights, base: base, local: unchanged, remote: newer).document["summary"] == Self.summary(1, 70))
    }

    // MARK: trackPreviewRank

    static func preview(_ version: Int64, _ byte: UInt8?) -> [String: FirestoreValue] {
        ["trackPreviewVersion": .integer(version), "trackPreview": byte.map { .bytes(Data([$0])) } ?? .null]
    }

    @Test(arguments: [
        (Int64(0), Int64(-1), Int64(-1)), (-1, 0, -1), (-1, 3, 3), (4, -1, 4), (2, 3, 3), (0, 1, 1), (-2, 0, -2),
        (-2, 1, 1),
    ])
    func trackPreviewRanksZeroBelowFailedBelowPositive(local: Int64, remote: Int64, winner: Int64) {
        let base = live(1, Self.preview(0, nil))
        let l = live(30, Self.preview(local, local == 0 ? nil : UInt8(truncatingIfNeeded: local)))
        let r = live(20, Self.preview(remote, remote == 0 ? nil : UInt8(truncatingIfNeeded: remote + 100)))
        let m = merged(.flights, base: base, local: l, remote: r).document
        #expect(m["trackPreviewVersion"] == .integer(winner))
        let from = winner == local ? l : r
        #expect(m["trackPreview"] == from["trackPreview"], "the preview moves with its version")
    }

    @Test func twoNegativeVersionsTieAndKeepLocal() {
        let base = live(1, Self.preview(0, nil))
        let m = merged(
            .flights, base: base, local: live(10, Self.preview(-1, 1)), remote: live(20, Self.preview(-3, 2))
        ).document
        #expect(m["trackPreviewVersion"] == .integer(-1))
        #expect(m["trackPreview"] == .bytes(Data([1])))
    }

    // MARK: blobMapNeverDropped and the uploaded OR

    static func igc(_ path: String, uploaded: Bool, gz: Int64 = 10) -> FirestoreValue {
        .map([
            "path": .string(path), "sizeBytes": .integer(50), "gzBytes": .integer(gz), "sha256": .string("s"),
            "uploaded": .boolean(uploaded),
        ])
    }

    @Test func aSideWithoutTheMapTakesTheOthers() {
        let base = live(10, ["igc": Self.igc("p", uploaded: true)])
        let m = merged(.flights, base: base, local: live(30, ["igc": .null]), remote: base).document
        #expect(m["igc"] == Self.igc("p", uploaded: true))
        let missing = merged(
            .flights, base: nil, local: live(30, [:]), remote: live(1, ["igc": Self.igc("p", uploaded: false)]))
        #expect(missing.document["igc"] == Self.igc("p", uploaded: false))
    }

    @Test func oneObjectMergesKeyByKeyWithUploadedOred() {
        let base = live(10, ["igc": Self.igc("p", uploaded: false, gz: 10)])
        let local = live(30, ["igc": Self.igc("p", uploaded: false, gz: 12)])
        let remote = live(20, ["igc": Self.igc("p", uploaded: true, gz: 10)])
        let m = merged(.flights, base: base, local: local, remote: remote).document
        #expect(m["igc"] == Self.igc("p", uploaded: true, gz: 12))
    }

    @Test func twoObjectsMergeWhole() {
        let base = live(10, ["content": .null])
        let local = live(
            30, ["content": .map(["path": .string("a"), "gzBytes": .integer(1), "uploaded": .boolean(false)])])
        let remote = live(
            20, ["content": .map(["path": .string("b"), "gzBytes": .integer(2), "uploaded": .boolean(true)])])
        let m = merged(.mapFiles, base: base, local: local, remote: remote).document
        #expect(m["content"] == local["content"])
    }

    // MARK: deferredUntilTaskArrives

    @Test func aTaskNotOnTheDeviceIsDeferred() {
        let base = live(10, ["taskId": .null])
        let remote = live(20, ["taskId": .string("task-1")])
        let waiting = merged(.flights, base: base, local: base, remote: remote)
        #expect(waiting.document["taskId"] == .null)
        #expect(waiting.deferredTaskId == "task-1")
        let present = merged(
            .flights, base: base, local: base, remote: remote, context: MergeContext(tasksOnDevice: ["task-1"]))
        #expect(present.document["taskId"] == .string("task-1"))
        #expect(present.deferredTaskId == nil)
        // Merging again with the pending id changes nothing.
        let again = merged(
            .flights, base: remote, local: waiting.document, remote: remote,
            context: MergeContext(deferredTaskId: "task-1"))
        #expect(again == waiting)
    }

    @Test func aPendingAssignmentIsDecidedWhenTheTaskArrives() {
        #expect(
            TaskAssignment.decide(deferredTaskId: "t", tasksOnDevice: [], flightChangedSinceDeferral: false) == .wait)
        #expect(
            TaskAssignment.decide(deferredTaskId: "t", tasksOnDevice: ["t"], flightChangedSinceDeferral: false)
                == .assign)
        #expect(
            TaskAssignment.decide(deferredTaskId: "t", tasksOnDevice: ["t"], flightChangedSinceDeferral: true) == .drop)
    }

    // MARK: largerEntryTime (settings values)

    @Test func settingsValuesMergePerKeyInsideTheDocument() {
        func entry(_ v: String, _ t: Int64) -> FirestoreValue {
            .map(["v": .string(v), "t": .integer(t), "d": .string("d")])
        }
        let local = live(10, ["values": .map(["sport": entry("delta", 9), "mapStyle": entry("streets", 5)])])
        let remote = live(20, ["values": .map(["sport": entry("glider", 8), "mapStyle": entry("satellite", 5)])])
        let m = merged(.settings, base: nil, local: local, remote: remote).document
        #expect(m["values"] == .map(["sport": entry("delta", 9), "mapStyle": entry("satellite", 5)]))
    }

    // MARK: emptyAsNull

    @Test func anEmptyContentHashBecomesNull() {
        let m = merged(
            .mapFiles, base: nil, local: live(30, ["contentHash": .string("")]), remote: live(1, ["contentHash": .null])
        )
        #expect(m.document["contentHash"] == .null)
        let hash = String(repeating: "a", count: 64)
        let kept = merged(
            .mapFiles, base: live(1, ["contentHash": .null]), local: live(30, ["contentHash": .string("")]),
            remote: live(20, ["contentHash": .string(hash)]))
        #expect(kept.document["contentHash"] == .string(hash))
    }

    // MARK: tombstoneWins

    @Test func aDeleteWinsOverAnEdit() {
        let base = live(10, ["comments": .string("a")])
        let edited = live(50, ["comments": .string("b")])
        let remoteDelete = merged(
            .flights, base: base, local: edited, remote: tombstone(20), context: MergeContext(localCreatedAt: time(5)))
        #expect(remoteDelete.document == tombstone(20))
        #expect(!remoteDelete.revived)
        let localDelete = merged(.flights, base: base, local: tombstone(20), remote: edited)
        #expect(localDelete.document == tombstone(20))
        #expect(localDelete.isTombstone)
    }

    @Test func aReimportAfterTheDeleteLivesAgain() {
        let local = live(60, ["comments": .string("re-imported")])
        let after = merged(
            .flights, base: nil, local: local, remote: tombstone(20), context: MergeContext(localCreatedAt: time(20, 1))
        )
        #expect(after.document == local)
        #expect(after.revived)
        let same = merged(
            .flights, base: nil, local: local, remote: tombstone(20), context: MergeContext(localCreatedAt: time(20)))
        #expect(same.document == tombstone(20))
        let unknown = merged(.flights, base: nil, local: local, remote: tombstone(20))
        #expect(unknown.document == tombstone(20))
    }

    @Test func aRevivalMadeElsewhereReachesAnOldTombstone() {
        let revived = live(60, ["comments": .string("back")])
        let m = merged(.flights, base: tombstone(20), local: tombstone(20), remote: revived)
        #expect(m.document == revived)
        let deletedAgain = merged(.flights, base: tombstone(20), local: tombstone(70), remote: revived)
        #expect(deletedAgain.document == tombstone(70))
    }

    @Test func twoTombstonesMergeTheirCommonFields() {
        let m = merged(.tasks, base: live(1, ["name": .string("x")]), local: tombstone(20), remote: tombstone(30))
        #expect(m.document == tombstone(30))
    }
}
