// The scenario goldens of Goldens/scenarios/: step scripts every sync engine replays (Goldens/FORMAT.md,
// Scenarios). Each definition states its steps and the values its `expect` steps pin; `vulture-goldens
// write` replays it with the reference engine and refuses to write one whose expectations do not hold.
import Foundation
import VultureFirestore
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

/// The scenario definitions, one per golden file `Goldens/scenarios/NAME.json` (id `scenario.NAME`).
enum ScenarioGoldens {
    /// The signed-in user of every scenario (the simulation's, so `Simulation.check` replays them too).
    static let uid = "u1"
    /// The server's clock at the start: 2026-10-20T14:03:07Z (the simulation's start).
    static let start = (try? FirestoreTimestamp(seconds: 1_792_504_987)) ?? .minimum

    /// Every scenario, in file-name order.
    static var all: [Scenario] {
        [
            // §5.1 push, §2 profile and objects, §3 limits
            firstSync520Writes, pushOrder, reserveUploadMark, uploadCrashedThenRetry, reserveAnswerLost,
            differentFieldsBothKept, unknownFieldSurvives, pushAloneKeepsOtherFields, storageBytesTwoDevices,
            batchPayloadUnder4MB, profileLastSeenDaily, retryOverwritesObject, downloadWaitsForUploaded,
            downloadChecked,
            // §5.2 pull
            pullPageEdgeTies, overlapLateCommit, overlapEdgeInclusive, pullTwiceHarmless, retriedQuery,
            cursorPerCollection, malformedDocumentsDoNotStopThePull, malformedDocumentHeld,
            // §5.3, §5.5 merge
            sameFieldLaterWins, sameFieldTieServer, sameFieldMicroseconds, skewedClockDecides, inLogbookOr,
            uploadedOrOnSecondImport, earliestImportedAt, lastOpenedLatest, latestDateNotLatestEdit,
            clearUsedAtTravels, summaryHigherVersion, summaryTieKeepsLocal,
            absentReadsAsDefault, trackPreviewFailed, trackPreviewTieKeepsLocal, taskPulledAfterFlight,
            taskDeferralDroppedByEdit, settingsLargerT, sameIdMadeOnTwoDevices, homebaseIdTrimmedLowercase,
            // §5.5 recents
            recentsPast50, recentsStranded, clearLastOpenedTravels, recentsTieSameInstant, recentsTieSmallerIdKeeps,
            // §5.4 deletes
            deleteTombstone, deleteAgainstEdit, deleteAgainstSkewedClock, reimportAfterDelete, reimportAfterLocalDelete,
            mapFileSharedContent, mapFileSharedContentCountedOnce, mapFileSharedContentKeptOnDelete, tombstonePurge,
            purgeByDeletedAt, purgeEdgeExclusive, purgeOver400,
            longAbsenceConverges,
            longAbsenceBringsBack,
            // §4 duplicates, §6 cap, §3 quota
            r4DuplicatesFirstIOSPull, r4LogbookOnly, r4SamePilotMerged, r4OnceAcrossRestart, storageCapThenPro,
            quotaPause, quotaPauseNextUTCDay, quotaPauseSurvivesRestart,
        ].sorted { $0.id < $1.id }
    }

    // MARK: - Building blocks

    /// A synthetic but well-formed IGC file (A, H and B records; CRLF) that differs by `n`.
    struct Flight {
        let n: Int
        let igc: Data
        var id: String { DocumentIds.flightId(igcBytes: igc) }
        var path: String { SyncCollection.flights.documentPath(uid: uid, id: id) }
        var key: String { "flights/\(id)" }
        var object: String { (try? BlobPaths.igcObjectPath(uid: uid, flightId: id)) ?? "" }
        var gzBytes: Int64 { (try? IGCBlob.build(uid: uid, igcBytes: igc).map.gzBytes) ?? 0 }
        var sizeBytes: Int64 { Int64(igc.count) }
        var filename: String { String(format: "2026-08-%02d-XCS-AAA-%02d.igc", 1 + n % 28, n % 100) }

        init(_ n: Int) {
            self.n = n
            let day = 1 + n % 28
            var lines = [
                "AXCSAAA", String(format: "HFDTEDATE:%02d0826,01", day), "HFFXA035",
                "HFPLTPILOTINCHARGE:\(ScenarioGoldens.pilots[n % ScenarioGoldens.pilots.count])",
                "HFGTYGLIDERTYPE:\(ScenarioGoldens.gliders[n % ScenarioGoldens.gliders.count])",
                String(format: "HFGIDGLIDERID:D-%04d", 1000 + n), String(format: "HFCIDCOMPETITIONID:%02d", n % 100),
                "HFDTMGPSDATUM:WGS84", "I023638FXA3941ENL",
            ]
            // A launch from Aachen-Merzbrück climbing away east, one fix every 4 s.
            for k in 0..<12 {
                let seconds = 11 * 3600 + 2 * 60 * (n % 30) + 4 * k
                let lat = 50_823 * 60 + 17 * k + n % 50
                let lon = 6_186 * 60 + 23 * k + n % 70
                lines.append(
                    String(
                        format: "B%02d%02d%02d%02d%05dN%03d%05dEA%05d%05d%03d%03d", seconds / 3600, seconds / 60 % 60,
                        seconds % 60, lat / 60_000, lat % 60_000, lon / 60_000, lon % 60_000, 190 + 9 * k, 230 + 9 * k,
                        20 + k, 3))
            }
            lines.append("LXCSAAA scenario flight \(n)")
            igc = Data((lines.joined(separator: "\r\n") + "\r\n").utf8)
        }

        /// The blob map of this file once it is uploaded (or reserved: `uploaded` false), as field
        /// paths: every key but `gzBytes`, whose value depends on the writer's gzip level (Spec/pins.tsv
        /// `gzipWritten`, a choice).
        func igc(uploaded: Bool) -> [String: FirestoreValue] {
            [
                "igc.path": .string(object), "igc.sizeBytes": .integer(sizeBytes), "igc.sha256": .string(id),
                "igc.uploaded": .boolean(uploaded),
            ]
        }

        /// The blob map's members but `gzBytes` (which the writer's gzip level decides).
        func igcMapValue(uploaded: Bool) -> [String: FirestoreValue] {
            [
                "path": .string(object), "sizeBytes": .integer(sizeBytes), "sha256": .string(id),
                "uploaded": .boolean(uploaded),
            ]
        }

        /// The fields an import sets (cloud form): a valid flight document's, with an analysis summary.
        func fields(inLogbook: Bool = true, _ more: [String: FirestoreValue] = [:]) -> [String: FirestoreValue] {
            var f: [String: FirestoreValue] = [
                "filename": .string(filename), "inLogbook": .boolean(inLogbook),
                "pilotName": .string(ScenarioGoldens.pilots[n % ScenarioGoldens.pilots.count]),
                "gliderType": .string(ScenarioGoldens.gliders[n % ScenarioGoldens.gliders.count]),
                "gliderRegistration": .string(String(format: "D-%04d", 1000 + n)),
                "summary": ScenarioGoldens.summary(version: 1, distance: Double(100_000 + n * 1_000)),
            ]
            for (k, v) in more { f[k] = v }
            return f
        }
    }

    static let pilots = ["Anna Weber", "Jonas Keller", "Marie Dubois", "Lukas Brandt", "Sofia Rossi"]
    static let gliders = ["LS 8", "ASG 29", "Discus 2", "Ventus 3", "DG-808"]

    static let two = [
        Scenario.Device(name: "a", platform: .android), Scenario.Device(name: "b", platform: .ios),
    ]

    /// A scenario of `devices` (a, Android, and b, iOS, by default); `pins` are the pins of
    /// Spec/pins.tsv its expectations rest on (a choice or an open question makes it recommended).
    static func scenario(
        _ name: String, _ section: String, _ note: String, pins: [SchemaPin] = [], devices: [Scenario.Device] = two,
        pageSize: Int = Int(SchemaConstants.pullPageSize), _ steps: [ScenarioStep]
    ) -> Scenario {
        Scenario(
            id: "scenario.\(name)", section: section, note: note, pins: pins.map(\.rawValue), uid: uid, start: start,
            devices: devices, pageSize: pageSize, steps: steps)
    }

    static func at(_ seconds: Int64) -> FirestoreValue { .timestamp(start.adding(seconds: seconds)) }

    static func importFlight(_ d: String, _ f: Flight, _ fields: [String: FirestoreValue]? = nil) -> ScenarioStep {
        .importFlight(device: d, igc: f.igc, fields: fields ?? f.fields())
    }

    static func edit(_ d: String, _ f: Flight, _ changes: [String: FirestoreValue]) -> ScenarioStep {
        .save(device: d, collection: .flights, id: f.id, changes: changes)
    }

    /// How a scenario names a quota pause and a refused upload (ScenarioReplay.outcome(of:)).
    static let paused = ScenarioReplay.outcome(of: .paused(until: start))
    static let uploadUnavailable = ScenarioReplay.outcome(of: .storage(CloudStorageError(.unavailable, "")))

    static let unavailable = FirestoreStatus.unavailable.rawValue

    static func sync(_ d: String, error: StepOutcomes = .success) -> ScenarioStep {
        .run(device: d, action: .sync, outcomes: error)
    }
    /// A sync that succeeds, or fails with `failure` (a fault it may retry within the sync or leave to the next).
    static func syncOrFail(_ d: String, _ failure: String) -> ScenarioStep {
        .run(device: d, action: .sync, outcomes: StepOutcomes([nil, failure]))
    }
    static func pull(_ d: String) -> ScenarioStep { .run(device: d, action: .pull, outcomes: .success) }
    static func push(_ d: String, error: StepOutcomes = .success) -> ScenarioStep {
        .run(device: d, action: .push, outcomes: error)
    }
    static func open(_ d: String, _ f: Flight, error: StepOutcomes = .success) -> ScenarioStep {
        .open(device: d, id: f.id, outcomes: error)
    }
    static func advance(_ seconds: Int64, microseconds: Int64 = 0) -> ScenarioStep {
        .advance(seconds: seconds, microseconds: microseconds, device: nil)
    }
    /// Only `device`'s clock moves (skew).
    static func skew(_ device: String, _ seconds: Int64) -> ScenarioStep {
        .advance(seconds: seconds, microseconds: 0, device: device)
    }

    static func expect(
        server: [String: [String: FirestoreValue]?] = [:], rows: [String: [String: RowExpectation?]] = [:],
        objects: [String: Bool] = [:], storageBytes: StorageBytesExpectation? = nil,
        serverCounts: [SyncCollection: Int] = [:], requests: [String: Int] = [:], converged: [String] = []
    ) -> ScenarioStep {
        .expect(
            ScenarioExpectation(
                server: server, rows: rows, objects: objects, storageBytes: storageBytes, serverCounts: serverCounts,
                requests: requests, converged: converged))
    }

    static func row(_ fields: [String: FirestoreValue], dirty: Bool? = nil, file: Bool? = nil) -> RowExpectation? {
        RowExpectation(fields: fields, dirty: dirty, file: file)
    }

    /// A full document written by another client ("web-1", Android) at `clientSeconds` after the start,
    /// as a full write with the server timestamp: every field the schema lists, a missing one null or its default.
    static func serverDocument(
        _ collection: SyncCollection, _ id: String, _ fields: [String: FirestoreValue], clientSeconds: Int64
    ) -> FirestoreWrite? {
        var out = fields
        for f in SyncSchema.vulture.fields(of: collection.documentType) where out[f.name] == nil && f.isRequired {
            out[f.name] = f.isNullable ? .null : f.defaultValue
        }
        out["schema"] = .integer(SchemaConstants.schemaVersion)
        out["updatedAt"] = .serverTimestamp
        out["clientUpdatedAt"] = at(clientSeconds)
        out["updatedBy"] = .string("web-1")
        out["platform"] = .string(Platform.android.rawValue)
        out["deleted"] = .boolean(false)
        out["deletedAt"] = .null
        return try? FirestoreWrite(path: collection.documentPath(uid: uid, id: id), fields: out)
    }

    static func homebase(_ i: Int) -> (id: String, key: String, path: String, fields: [String: FirestoreValue]) {
        let name = String(format: "Field %03d", i)
        let id = DocumentIds.homebaseId(name: name)
        return (
            id, "homebases/\(id)", SyncCollection.homebases.documentPath(uid: uid, id: id),
            [
                "name": .string(name), "latitude": .double(47.0 + Double(i) / 1000),
                "longitude": .double(7.0 + Double(i) / 500),
            ]
        )
    }

    /// A complete flight summary of analysis version `version`.
    static func summary(version: Int64, distance: Double) -> FirestoreValue {
        .map([
            "analysisVersion": .integer(version), "takeoffAt": at(-86_400), "landingAt": at(-86_400 + 18_240),
            "sportKind": .string("glider"), "isTaskCompleted": .boolean(true), "taskDeclaredDistance": .double(300.5e3),
            "taskCompletedDistance": .double(300.5e3), "taskAverageSpeed": .double(27.4),
            "optimizedDistance": .double(distance), "optimizedAverageSpeed": .double(distance / 18_240),
            "fastestAverageSpeed": .double(31.2), "duration": .integer(18_240), "altitudeGained": .integer(9_870),
            "averageCruisingSpeed": .double(41.5), "bestThermalVario": .double(3.4), "rightThermalCount": .integer(14),
            "leftThermalCount": .integer(11),
        ])
    }

    static var profilePath: String { SyncCollection.profilePath(uid: uid) }

    /// `a` with the members of `b` added.
    static func with(_ a: [String: FirestoreValue], _ b: [String: FirestoreValue]) -> [String: FirestoreValue] {
        a.merging(b) { _, new in new }
    }
}
