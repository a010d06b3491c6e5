// The scenario goldens of Goldens/scenarios/: step scripts every sync engine replays (Goldens/FORMAT.md,
// Scenarios). Each definition states its steps and the values its `expect` steps pin; `vulture-goldens
// write` replays it with the reference engine and refuses to write one whose expectations do not hold.
import Foundation
import VultureFirestore
import VultureSyncEngine
import VultureSyncSchema

/// The scenario definitions, one per golden file `Goldens/scenarios/NAME.json` (id `scenario.NAME`).
enum ScenarioGoldens {
    /// The signed-in user of every scenario (the simulation's, so `Simulation.check` replays them too).
    static let uid = "u1"
    /// The server's clock at the start: 2026-10-20T14:03:07Z (the simulation's start).
    static let start = (try? FirestoreTimestamp(seconds: 1_792_504_987)) ?? .minimum

    /// Every scenario, in file-name order.
    static var all: [Scenario] {
        [
            firstSync520Writes, pushOrder, reserveUploadMark, uploadCrashedThenRetry, reserveAnswerLost,
            differentFieldsBothKept, unknownFieldSurvives, pullPageEdgeTies, overlapLateCommit, pullTwiceHarmless,
            overlapEdgeInclusive, retriedQuery, sameFieldLaterWins, sameFieldTieServer, inLogbookOr, earliestImportedAt,
            lastOpenedLatest, summaryHigherVersion, trackPreviewFailed, taskPulledAfterFlight,
            taskDeferralDroppedByEdit, settingsLargerT, recentsPast50, recentsStranded, clearLastOpenedTravels,
            deleteTombstone, deleteAgainstEdit, reimportAfterDelete, mapFileSharedContent, tombstonePurge,
            storageCapThenPro, quotaPause,
        ].sorted { $0.id < $1.id }
    }

    // MARK: - Building blocks

    /// A synthetic but well-formed IGC file (A, H and B records; CRLF) that differs by `n`.
    struct Flight {
        let n: Int
        let igc: Data
        var id: String { DocumentIds.flightId(igcBytes: igc) }
        var path: String { "users/\(uid)/flights/\(id)" }
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

        /// The blob map of this file once it is uploaded (or reserved: `uploaded` false).
        func igcMap(uploaded: Bool) -> FirestoreValue {
            .map([
                "path": .string(object), "gzBytes": .integer(gzBytes), "sizeBytes": .integer(sizeBytes),
                "sha256": .string(id), "uploaded": .boolean(uploaded),
            ])
        }

        /// The fields an import sets (cloud form).
        func fields(inLogbook: Bool = true, _ more: [String: FirestoreValue] = [:]) -> [String: FirestoreValue] {
            var f: [String: FirestoreValue] = [
                "filename": .string(filename), "inLogbook": .boolean(inLogbook),
                "pilotName": .string(ScenarioGoldens.pilots[n % ScenarioGoldens.pilots.count]),
                "gliderType": .string(ScenarioGoldens.gliders[n % ScenarioGoldens.gliders.count]),
                "gliderRegistration": .string(String(format: "D-%04d", 1000 + n)),
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

    static func scenario(
        _ name: String, _ section: String, _ note: String, devices: [Scenario.Device] = two,
        _ steps: [ScenarioStep]
    ) -> Scenario {
        Scenario(
            id: "scenario.\(name)", section: section, note: note, uid: uid, start: start, devices: devices,
            steps: steps)
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

    static func sync(_ d: String, error: String? = nil) -> ScenarioStep { .run(device: d, action: .sync, error: error) }
    static func pull(_ d: String) -> ScenarioStep { .run(device: d, action: .pull, error: nil) }
    static func advance(_ seconds: Int64) -> ScenarioStep { .advance(seconds: seconds, device: nil) }

    static func expect(
        server: [String: [String: FirestoreValue]?] = [:], rows: [String: [String: RowExpectation?]] = [:],
        objects: [String: Bool] = [:], storageBytes: Int64? = nil, serverCounts: [SyncCollection: Int] = [:],
        commits: [String: [Int]] = [:]
    ) -> ScenarioStep {
        .expect(
            ScenarioExpectation(
                server: server, rows: rows, objects: objects, storageBytes: storageBytes, serverCounts: serverCounts,
                commits: commits))
    }

    static func row(_ fields: [String: FirestoreValue], dirty: Bool? = nil) -> RowExpectation? {
        RowExpectation(fields: fields, dirty: dirty)
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
        return try? FirestoreWrite(path: "users/\(uid)/\(collection.rawValue)/\(id)", fields: out)
    }

    static func homebase(_ i: Int) -> (id: String, key: String, path: String, fields: [String: FirestoreValue]) {
        let name = String(format: "Field %03d", i)
        let id = DocumentIds.homebaseId(name: name)
        return (
            id, "homebases/\(id)", "users/\(uid)/homebases/\(id)",
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

    static var profilePath: String { "users/\(uid)" }

    // MARK: - §5.1 Push

    static var firstSync520Writes: Scenario {
        let bases = (1...520).map(homebase)
        return scenario(
            "first-sync-520-writes", "schema §5.1",
            "A first sync of 520 new home bases: the profile, then batches of 400 and 120 writes; the other device pulls them all.",
            bases.map { .save(device: "a", collection: .homebases, id: nil, changes: $0.fields) } + [
                sync("a"),
                expect(
                    server: [
                        bases[0].path: bases[0].fields, bases[519].path: bases[519].fields,
                        profilePath: ["platforms": .array([.string("android")]), "storageBytes": .integer(0)],
                    ], serverCounts: [.homebases: 520], commits: ["a": [1, 400, 120]]),
                advance(30), sync("b"),
                expect(
                    server: [profilePath: ["platforms": .array([.string("android"), .string("ios")])]],
                    rows: [
                        "b": [
                            bases[0].key: row(bases[0].fields, dirty: false),
                            bases[399].key: row(bases[399].fields, dirty: false),
                            bases[519].key: row(bases[519].fields, dirty: false),
                        ]
                    ], commits: ["a": [], "b": [1]]),
            ])
    }

    static var pushOrder: Scenario {
        let f = Flight(1)
        let url = "https://www.soaringspot.com/en_gb/aachen-2026/tasks/club/task-1-on-2026-08-02"
        let task = DocumentIds.taskId(externalUrl: url)
        return scenario(
            "push-order", "schema §5.1",
            "A task and the flight naming it, pushed in collection order (tasks before flights): the other device gets the flight with its task at once.",
            [
                importFlight("a", f, f.fields(["taskId": .string(task)])),
                .save(
                    device: "a", collection: .tasks, id: nil,
                    changes: [
                        "name": .string("Task 1 Club"), "externalUrl": .string(url), "distance": .double(300.5e3),
                        "externalName": .string("Aachen 2026"),
                    ]),
                sync("a"),
                // profile; the task; the flight's reserve (record + profile); its mark uploaded
                expect(
                    server: [
                        f.path: ["taskId": .string(task)],
                        "users/\(uid)/tasks/\(task)": ["name": .string("Task 1 Club")],
                    ], commits: ["a": [1, 1, 2, 1]]),
                advance(10), sync("b"),
                expect(rows: ["b": [f.key: row(["taskId": .string(task)], dirty: false)]]),
            ])
    }

    static var reserveUploadMark: Scenario {
        let f = Flight(2)
        return scenario(
            "reserve-upload-mark", "schema §5.1",
            "An imported flight: reserve (record with uploaded false + storageBytes increment naming it), upload, then a later write marks it uploaded; the other device downloads it on open.",
            [
                importFlight("a", f), sync("a"),
                expect(
                    server: [
                        f.path: ["igc": f.igcMap(uploaded: true), "filename": .string(f.filename)],
                        profilePath: [
                            "storageBytes": .integer(f.gzBytes),
                            "storageRef": .map(["collection": .string("flights"), "id": .string(f.id)]),
                        ],
                    ], rows: ["a": [f.key: row(["igc": f.igcMap(uploaded: true)], dirty: false)]],
                    objects: [f.object: true], storageBytes: f.gzBytes, commits: ["a": [1, 2, 1]]),
                advance(60), sync("b"), .open(device: "b", id: f.id),
                expect(rows: [
                    "b": [f.key: row(["igc": f.igcMap(uploaded: true), "lastOpenedAt": at(60)], dirty: true)]
                ]),
            ])
    }

    static var uploadCrashedThenRetry: Scenario {
        let f = Flight(3)
        return scenario(
            "upload-crashed-then-retry", "schema §5.1",
            "The reserve lands, the upload fails and the app restarts: the retry uploads and marks without counting the file twice.",
            [
                importFlight("a", f),
                .storageFault(device: "a", request: .upload, failure: .unavailable),
                sync("a", error: uploadUnavailable),
                expect(
                    server: [f.path: ["igc": f.igcMap(uploaded: false)]], objects: [f.object: false],
                    storageBytes: f.gzBytes, commits: ["a": [1, 2]]),
                .restart(device: "a"), advance(300), sync("a"),
                expect(
                    server: [f.path: ["igc": f.igcMap(uploaded: true)]], objects: [f.object: true],
                    storageBytes: f.gzBytes, commits: ["a": [1]]),
            ])
    }

    static var reserveAnswerLost: Scenario {
        let f = Flight(4)
        return scenario(
            "reserve-answer-lost", "schema §5.1",
            "The reserve batch is applied but its answer is lost: the retry's precondition fails instead of counting the file twice.",
            [
                sync("a"), importFlight("a", f),
                .fault(device: "a", request: .commit, fault: .loseAcknowledgement),
                sync("a"),
                expect(
                    server: [f.path: ["igc": f.igcMap(uploaded: true)]], objects: [f.object: true],
                    storageBytes: f.gzBytes),
            ])
    }

    static var differentFieldsBothKept: Scenario {
        let f = Flight(5)
        return scenario(
            "different-fields-both-kept", "schema §5.1",
            "Two devices edit different fields of one flight: each sends only its changed field, and both edits are kept.",
            [
                importFlight("a", f), sync("a"), advance(10), sync("b"), advance(10),
                edit("a", f, ["comments": .string("Strong wave over the Eifel.")]),
                advance(5),
                edit("b", f, ["rating": .integer(4)]),
                sync("a"), advance(5), sync("b"), advance(5), sync("a"),
                expect(
                    server: [f.path: ["comments": .string("Strong wave over the Eifel."), "rating": .integer(4)]],
                    rows: [
                        "a": [f.key: row(["comments": .string("Strong wave over the Eifel."), "rating": .integer(4)])],
                        "b": [f.key: row(["comments": .string("Strong wave over the Eifel."), "rating": .integer(4)])],
                    ]),
            ])
    }

    static var unknownFieldSurvives: Scenario {
        let f = Flight(6)
        var fields: [String: FirestoreValue] = [:]
        fields["glideRatio"] = .double(48.5)
        fields["updatedAt"] = .serverTimestamp
        fields["clientUpdatedAt"] = at(30)
        let newer = try? FirestoreWrite(
            path: f.path, fields: fields,
            mask: [
                FieldPath(unchecked: ["glideRatio"]), FieldPath(unchecked: ["updatedAt"]),
                FieldPath(unchecked: ["clientUpdatedAt"]),
            ])
        return scenario(
            "unknown-field-survives", "schema §5.1",
            "A newer app version adds a field this schema does not know; an edit of another field never removes it, and it reaches the other device.",
            [
                importFlight("a", f), sync("a"), advance(30),
                .serverCommit(writes: newer.map { [$0] } ?? [], lateBySeconds: nil),
                advance(10), edit("a", f, ["comments": .string("Final glide from Monschau.")]), sync("a"),
                advance(10), sync("b"),
                expect(
                    server: [f.path: ["glideRatio": .double(48.5), "comments": .string("Final glide from Monschau.")]],
                    rows: ["b": [f.key: row(["glideRatio": .double(48.5)], dirty: false)]]),
            ])
    }

    // MARK: - §5.2 Pull

    static var pullPageEdgeTies: Scenario {
        let bases = (1...501).map(homebase)
        let sorted = bases.sorted { $0.id < $1.id }
        return scenario(
            "pull-page-edge-ties", "schema §5.2",
            "501 home bases committed at one instant share one updatedAt across the page edge of 500: the next page continues after (updatedAt, name), and a pull within the overlap ends.",
            bases.map { .save(device: "a", collection: .homebases, id: nil, changes: $0.fields) } + [
                sync("a"),
                expect(
                    server: [sorted[0].path: ["updatedAt": at(0)], sorted[500].path: ["updatedAt": at(0)]],
                    commits: ["a": [1, 400, 101]]),
                advance(20), sync("b"),
                expect(
                    rows: [
                        "b": [
                            sorted[499].key: row(sorted[499].fields, dirty: false),
                            sorted[500].key: row(sorted[500].fields, dirty: false),
                            sorted[0].key: row(sorted[0].fields, dirty: false),
                        ]
                    ], commits: ["a": [], "b": [1]]),
                advance(20), sync("b"),
                expect(rows: ["b": [sorted[500].key: row(sorted[500].fields, dirty: false)]], commits: ["b": []]),
            ])
    }

    static var overlapLateCommit: Scenario {
        let first = homebase(1)
        let late = homebase(2)
        return scenario(
            "overlap-late-commit", "schema §5.2",
            "A commit becomes visible after a pull with an updatedAt before the cursor but inside the 2-minute overlap: the next pull still gets it.",
            [
                .save(device: "a", collection: .homebases, id: nil, changes: first.fields), sync("a"), advance(10),
                sync("b"), advance(100),
                .serverCommit(
                    writes: serverDocument(.homebases, late.id, late.fields, clientSeconds: -6).map { [$0] } ?? [],
                    lateBySeconds: 115),
                expect(server: [late.path: ["updatedAt": at(-5)]], rows: ["b": [late.key: nil]]),
                advance(5), sync("b"),
                expect(rows: ["b": [late.key: row(late.fields, dirty: false), first.key: row(first.fields)]]),
            ])
    }

    static var overlapEdgeInclusive: Scenario {
        let first = homebase(3)
        let edge = homebase(4)
        return scenario(
            "overlap-edge-inclusive", "schema §5.2",
            "A late commit whose updatedAt is exactly the cursor minus 2 minutes is pulled: the first page asks updatedAt >= cursor − 120 s.",
            [
                .save(device: "a", collection: .homebases, id: nil, changes: first.fields), sync("a"), advance(10),
                sync("b"), advance(100),
                .serverCommit(
                    writes: serverDocument(.homebases, edge.id, edge.fields, clientSeconds: -121).map { [$0] } ?? [],
                    lateBySeconds: 230),
                expect(server: [edge.path: ["updatedAt": at(-120)]]),
                advance(5), sync("b"),
                expect(rows: ["b": [edge.key: row(edge.fields, dirty: false)]]),
            ])
    }

    static var pullTwiceHarmless: Scenario {
        let f = Flight(7)
        return scenario(
            "pull-twice-harmless", "schema §5.2",
            "A document pulled again by the overlap changes nothing: a local edit made between the two pulls stays, and is pushed.",
            [
                importFlight("a", f), sync("a"), advance(10), pull("b"),
                edit("b", f, ["isFavorite": .boolean(true)]), advance(30), pull("b"),
                expect(rows: ["b": [f.key: row(["isFavorite": .boolean(true)], dirty: true)]], commits: ["b": []]),
                sync("b"),
                expect(server: [f.path: ["isFavorite": .boolean(true)]], commits: ["b": [1, 1]]),
            ])
    }

    static var retriedQuery: Scenario {
        let f = Flight(8)
        return scenario(
            "retried-query", "schema §5.2",
            "A pull query meets UNAVAILABLE once: it is retried and the sync completes.",
            [
                importFlight("a", f), sync("a"), advance(10),
                .fault(device: "b", request: .query, fault: .refuse(.unavailable)), sync("b"),
                expect(rows: ["b": [f.key: row(["filename": .string(f.filename)], dirty: false)]]),
            ])
    }

    // MARK: - §5.3 Merge

    /// A flight imported on a and pulled by b, both in sync, 20 s after the start.
    static func shared(_ f: Flight, _ fields: [String: FirestoreValue]? = nil) -> [ScenarioStep] {
        [importFlight("a", f, fields), sync("a"), advance(10), sync("b"), advance(10)]
    }

    static var sameFieldLaterWins: Scenario {
        let f = Flight(9)
        return scenario(
            "same-field-later-wins", "schema §5.3",
            "Both devices change comments: the later clientUpdatedAt wins, although the earlier edit is pushed last.",
            shared(f) + [
                edit("b", f, ["comments": .string("b: ridge run")]), advance(10),
                edit("a", f, ["comments": .string("a: wave")]), sync("a"), advance(5), sync("b"), advance(5), sync("a"),
                expect(
                    server: [f.path: ["comments": .string("a: wave"), "clientUpdatedAt": at(30)]],
                    rows: [
                        "a": [f.key: row(["comments": .string("a: wave")], dirty: false)],
                        "b": [f.key: row(["comments": .string("a: wave")], dirty: false)],
                    ]),
            ])
    }

    static var sameFieldTieServer: Scenario {
        let f = Flight(10)
        return scenario(
            "same-field-tie-server", "schema §5.5",
            "Both devices change comments at the same clientUpdatedAt: the tie goes to the server's value.",
            shared(f) + [
                edit("a", f, ["comments": .string("a: cloud street")]),
                edit("b", f, ["comments": .string("b: blue thermals")]),
                sync("a"), sync("b"),
                expect(
                    server: [f.path: ["comments": .string("a: cloud street")]],
                    rows: [
                        "a": [f.key: row(["comments": .string("a: cloud street")], dirty: false)],
                        "b": [f.key: row(["comments": .string("a: cloud street")], dirty: false)],
                    ]),
            ])
    }

    static var inLogbookOr: Scenario {
        let f = Flight(11)
        return scenario(
            "in-logbook-or", "schema §5.3",
            "inLogbook merges as local OR remote: one device removes the flight from the logbook, the other still has it there, and it stays in the logbook.",
            shared(f) + [
                edit("a", f, ["inLogbook": .boolean(false)]), sync("a"), advance(10),
                edit("b", f, ["comments": .string("Keep this one.")]), sync("b"), advance(10), sync("a"),
                expect(
                    server: [f.path: ["inLogbook": .boolean(true), "comments": .string("Keep this one.")]],
                    rows: ["a": [f.key: row(["inLogbook": .boolean(true)], dirty: false)]]),
            ])
    }

    static var earliestImportedAt: Scenario {
        let f = Flight(12)
        return scenario(
            "earliest-imported-at", "schema §5.3",
            "The same file imported on both devices: one document, importedAt and createdAt the earliest, the object counted once.",
            [
                importFlight("b", f), advance(60), importFlight("a", f), sync("a"), advance(10), sync("b"),
                advance(10), sync("a"),
                expect(
                    server: [
                        f.path: ["importedAt": at(0), "createdAt": at(0), "igc": f.igcMap(uploaded: true)]
                    ],
                    rows: ["a": [f.key: row(["importedAt": at(0)], dirty: false)]], objects: [f.object: true],
                    storageBytes: f.gzBytes, serverCounts: [.flights: 1]),
            ])
    }

    static var lastOpenedLatest: Scenario {
        let f = Flight(13)
        return scenario(
            "last-opened-latest", "schema §5.3",
            "Both devices open the flight: lastOpenedAt is the latest open on any device.",
            shared(f) + [
                .open(device: "a", id: f.id), advance(10), .open(device: "b", id: f.id), advance(10),
                sync("b"), sync("a"), sync("b"),
                expect(
                    server: [f.path: ["lastOpenedAt": at(30)]],
                    rows: [
                        "a": [f.key: row(["lastOpenedAt": at(30)], dirty: false)],
                        "b": [f.key: row(["lastOpenedAt": at(30)], dirty: false)],
                    ]),
            ])
    }

    static var summaryHigherVersion: Scenario {
        let f = Flight(14)
        return scenario(
            "summary-higher-version", "schema §5.3",
            "Two analyses of one flight: the summary with the higher analysisVersion wins whole, although the lower one was made later.",
            shared(f) + [
                edit("a", f, ["summary": summary(version: 3, distance: 512_437.0)]), advance(10),
                edit("b", f, ["summary": summary(version: 2, distance: 498_120.5)]),
                sync("a"), sync("b"), sync("a"),
                expect(
                    server: [f.path: ["summary": summary(version: 3, distance: 512_437.0)]],
                    rows: ["b": [f.key: row(["summary": summary(version: 3, distance: 512_437.0)], dirty: false)]]),
            ])
    }

    static var trackPreviewFailed: Scenario {
        let f = Flight(15)
        let preview = Data((0..<96).map { UInt8(($0 * 37 + 11) % 251) })
        return scenario(
            "track-preview-failed", "schema §5.5",
            "A failed track preview (version -1) made later never replaces a real one (version 2).",
            shared(f) + [
                edit("a", f, ["trackPreview": .bytes(preview), "trackPreviewVersion": .integer(2)]), advance(10),
                edit("b", f, ["trackPreview": .null, "trackPreviewVersion": .integer(-1)]),
                sync("a"), sync("b"), sync("a"),
                expect(
                    server: [f.path: ["trackPreview": .bytes(preview), "trackPreviewVersion": .integer(2)]],
                    rows: [
                        "b": [
                            f.key: row(
                                ["trackPreview": .bytes(preview), "trackPreviewVersion": .integer(2)], dirty: false)
                        ]
                    ]),
            ])
    }

    static let taskURL = "https://www.soaringspot.com/en_gb/aachen-2026/tasks/club/task-3-on-2026-08-04"

    static var taskDocument: FirestoreWrite? {
        serverDocument(
            .tasks, DocumentIds.taskId(externalUrl: taskURL),
            ["name": .string("Task 3 Club"), "externalUrl": .string(taskURL), "distance": .double(287.3e3)],
            clientSeconds: 15)
    }

    static var taskPulledAfterFlight: Scenario {
        let f = Flight(16)
        let task = DocumentIds.taskId(externalUrl: taskURL)
        let flight = serverDocument(.flights, f.id, f.fields(["taskId": .string(task)]), clientSeconds: 15)
        return scenario(
            "task-pulled-after-flight", "schema §5.5",
            "A flight arrives before its task: it is stored without the task (taskId deferred, never pushed as null) and gets it when the task arrives.",
            [
                sync("b"), advance(20),
                .serverCommit(writes: flight.map { [$0] } ?? [], lateBySeconds: nil), advance(5), sync("b"),
                expect(
                    server: [f.path: ["taskId": .string(task)]],
                    rows: ["b": [f.key: row(["taskId": .null], dirty: false)]], commits: ["b": [1]]),
                advance(10), .serverCommit(writes: taskDocument.map { [$0] } ?? [], lateBySeconds: nil), advance(5),
                sync("b"),
                expect(
                    server: [f.path: ["taskId": .string(task)]],
                    rows: ["b": [f.key: row(["taskId": .string(task)], dirty: false)]], commits: ["b": []]),
            ])
    }

    static var taskDeferralDroppedByEdit: Scenario {
        let f = Flight(17)
        let task = DocumentIds.taskId(externalUrl: taskURL)
        let flight = serverDocument(.flights, f.id, f.fields(["taskId": .string(task)]), clientSeconds: 15)
        return scenario(
            "task-deferral-dropped-by-edit", "schema §5.5",
            "A flight waiting for its task is changed by the pilot first: the pending assignment is dropped, the flight stays without a task.",
            [
                sync("b"), advance(20),
                .serverCommit(writes: flight.map { [$0] } ?? [], lateBySeconds: nil), advance(5), pull("b"),
                edit("b", f, ["taskId": .null, "comments": .string("Wrong task, landed out.")]), advance(10),
                .serverCommit(writes: taskDocument.map { [$0] } ?? [], lateBySeconds: nil), advance(5), sync("b"),
                expect(
                    server: [f.path: ["taskId": .null, "comments": .string("Wrong task, landed out.")]],
                    rows: ["b": [f.key: row(["taskId": .null], dirty: false)]]),
            ])
    }

    static var settingsLargerT: Scenario {
        func entry(_ v: FirestoreValue, _ t: Int64, _ d: String) -> FirestoreValue {
            .map(["v": v, "t": .integer(t), "d": .string("device-\(d)")])
        }
        let ms = start.seconds * 1000
        let aValues: FirestoreValue = .map([
            "showOptimizedTrack": entry(.boolean(true), ms + 10_000, "a"),
            "showThermals": entry(.boolean(false), ms + 2_000, "a"),
            "flarmLoggerInterval": entry(.integer(2), ms + 5_000, "a"),
        ])
        let bValues: FirestoreValue = .map([
            "showOptimizedTrack": entry(.boolean(false), ms + 4_000, "b"),
            "showThermals": entry(.boolean(true), ms + 8_000, "b"),
            "flarmLoggerInterval": entry(.integer(4), ms + 5_000, "b"),
        ])
        let id = SchemaConstants.settingsDocumentId
        let merged: FirestoreValue = .map([
            "showOptimizedTrack": entry(.boolean(true), ms + 10_000, "a"),
            "showThermals": entry(.boolean(true), ms + 8_000, "b"),
            "flarmLoggerInterval": entry(.integer(2), ms + 5_000, "a"),
        ])
        return scenario(
            "settings-larger-t", "schema §5.3",
            "Settings merge per key: the larger t wins; the same t with another value goes to the cloud's entry.",
            [
                .save(device: "a", collection: .settings, id: id, changes: ["values": aValues]),
                .save(device: "b", collection: .settings, id: id, changes: ["values": bValues]),
                sync("a"), advance(10), sync("b"), advance(10), sync("a"),
                expect(
                    server: ["users/\(uid)/settings/\(id)": ["values": merged]],
                    rows: [
                        "a": ["settings/\(id)": row(["values": merged], dirty: false)],
                        "b": ["settings/\(id)": row(["values": merged], dirty: false)],
                    ]),
            ])
    }

    // MARK: - §5.5 Recents

    static var recentsPast50: Scenario {
        let flights = (0..<52).map { Flight(100 + $0) }
        func opened(_ i: Int) -> FirestoreValue { at(Int64(-5_000 + 60 * i)) }
        // The two oldest: a logbook flight (keeps the record, loses its date), a recents-only one (tombstoned).
        let steps: [ScenarioStep] =
            flights[0..<26].enumerated().map { i, f in
                importFlight("a", f, f.fields(inLogbook: i == 0, ["lastOpenedAt": opened(i)]))
            } + [sync("a"), advance(10)]
            + flights[26...].enumerated().map { i, f in
                importFlight("b", f, f.fields(inLogbook: false, ["lastOpenedAt": opened(26 + i)]))
            } + [sync("b"), advance(10), sync("c"), advance(10), sync("a"), advance(10), sync("b")]
        let f0 = flights[0]
        let f1 = flights[1]
        let f2 = flights[2]
        return scenario(
            "recents-past-50", "schema §5.5",
            "52 opened flights from two devices: after the pull at most 50 keep lastOpenedAt; the oldest logbook flight loses its date, the oldest recents-only flight is tombstoned, on every device (c holds only flights that arrived by sync).",
            devices: two + [Scenario.Device(name: "c", platform: .ios)],
            steps + [
                expect(
                    server: [
                        f0.path: ["inLogbook": .boolean(true), "lastOpenedAt": .null, "deleted": .boolean(false)],
                        f1.path: ["deleted": .boolean(true)],
                        f2.path: ["lastOpenedAt": opened(2), "deleted": .boolean(false)],
                        flights[51].path: ["lastOpenedAt": opened(51)],
                    ],
                    rows: [
                        "a": [
                            f0.key: row(["lastOpenedAt": .null], dirty: false),
                            f1.key: row(["deleted": .boolean(true)], dirty: false),
                        ],
                        "b": [
                            f0.key: row(["lastOpenedAt": .null], dirty: false),
                            f1.key: row(["deleted": .boolean(true)], dirty: false),
                        ],
                        "c": [
                            f0.key: row(["lastOpenedAt": .null], dirty: false),
                            f1.key: row(["deleted": .boolean(true)], dirty: false),
                            f2.key: row(["lastOpenedAt": opened(2)], dirty: false),
                        ],
                    ], objects: [f1.object: false, f2.object: true], serverCounts: [.flights: 51])
            ])
    }

    static var recentsStranded: Scenario {
        let stranded = Flight(20)
        let local = Flight(21)
        let write = serverDocument(.flights, stranded.id, stranded.fields(inLogbook: false), clientSeconds: 5)
        return scenario(
            "recents-stranded", "schema §5.5",
            "A recents-only flight that arrived by sync without lastOpenedAt is stranded and tombstoned; one made on this device is left alone.",
            [
                .serverCommit(writes: write.map { [$0] } ?? [], lateBySeconds: nil), advance(10),
                importFlight("b", local, local.fields(inLogbook: false)), sync("b"),
                expect(
                    server: [stranded.path: ["deleted": .boolean(true)], local.path: ["deleted": .boolean(false)]],
                    rows: ["b": [stranded.key: row(["deleted": .boolean(true)], dirty: false), local.key: row([:])]]),
            ])
    }

    static var clearLastOpenedTravels: Scenario {
        let f = Flight(22)
        return scenario(
            "clear-last-opened-travels", "schema §5.5",
            "Remove from Recents on a logbook flight clears lastOpenedAt; the other device left the agreed date as it was, so the clear wins there too.",
            [
                importFlight("a", f, f.fields(["lastOpenedAt": at(-600)])), sync("a"), advance(10), sync("b"),
                advance(10), edit("a", f, ["lastOpenedAt": .null]), sync("a"), advance(10), sync("b"),
                expect(
                    server: [f.path: ["lastOpenedAt": .null, "inLogbook": .boolean(true)]],
                    rows: ["b": [f.key: row(["lastOpenedAt": .null], dirty: false)]]),
            ])
    }

    // MARK: - §5.4 Deletes

    static var deleteTombstone: Scenario {
        let f = Flight(23)
        return scenario(
            "delete-tombstone", "schema §5.4",
            "A delete is a tombstone (common fields, deleted, deletedAt) in its own batch with the storageBytes decrement; the IGC object is deleted.",
            shared(f, f.fields(["comments": .string("Soon gone.")])) + [
                .delete(device: "a", collection: .flights, id: f.id), sync("a"),
                expect(
                    server: [
                        f.path: [
                            "deleted": .boolean(true), "deletedAt": at(20), "comments": .null, "igc": .null,
                            "updatedBy": .string("device-a"),
                        ]
                    ], objects: [f.object: false], storageBytes: 0, commits: ["a": [1, 2, 1, 2]]),
                advance(10), sync("b"),
                expect(rows: ["b": [f.key: row(["deleted": .boolean(true), "deletedAt": at(20)], dirty: false)]]),
            ])
    }

    static var deleteAgainstEdit: Scenario {
        let f = Flight(24)
        return scenario(
            "delete-against-edit", "schema §5.4",
            "One device deletes the flight, the other edits it later: the delete wins on both.",
            shared(f) + [
                .delete(device: "a", collection: .flights, id: f.id), advance(10),
                edit("b", f, ["comments": .string("Edited after the delete.")]), sync("a"), advance(5), sync("b"),
                advance(5), sync("a"),
                expect(
                    server: [f.path: ["deleted": .boolean(true), "comments": .null]],
                    rows: [
                        "a": [f.key: row(["deleted": .boolean(true)], dirty: false)],
                        "b": [f.key: row(["deleted": .boolean(true), "comments": .null], dirty: false)],
                    ], objects: [f.object: false], storageBytes: 0),
            ])
    }

    static var reimportAfterDelete: Scenario {
        let f = Flight(25)
        return scenario(
            "reimport-after-delete", "schema §5.4",
            "A flight deleted on one device is imported again after the delete: the new record lives again and its file is uploaded and counted again.",
            shared(f) + [
                .delete(device: "b", collection: .flights, id: f.id), sync("b"), advance(10), sync("a"),
                expect(
                    rows: ["a": [f.key: row(["deleted": .boolean(true)])]], objects: [f.object: false], storageBytes: 0),
                advance(60), importFlight("a", f), sync("a"), advance(10), sync("b"),
                expect(
                    server: [
                        f.path: ["deleted": .boolean(false), "deletedAt": .null, "igc": f.igcMap(uploaded: true)]
                    ],
                    rows: [
                        "b": [f.key: row(["deleted": .boolean(false), "filename": .string(f.filename)], dirty: false)]
                    ],
                    objects: [f.object: true], storageBytes: f.gzBytes),
            ])
    }

    static var mapFileSharedContent: Scenario {
        let content = Data(
            """
            name,code,country,lat,lon,elev,style,rwdir,rwlen,freq,desc
            "Aachen Merzbruck",EDKA,DE,5049.383N,00611.183E,189.0m,5,070,520.0m,122.880,
            "Duren Hurtgenwald",EDKN,DE,5043.433N,00628.950E,346.0m,2,070,450.0m,123.650,
            "Monschau",MONSCH,DE,5033.067N,00614.533E,560.0m,1,,,,

            """.utf8)
        let hash = DocumentIds.contentHash(contentBytes: content)
        let object = (try? BlobPaths.contentObjectPath(uid: uid, contentHash: hash)) ?? ""
        let gz = (try? ContentBlob.build(uid: uid, contentBytes: content).map.gzBytes) ?? 0
        let userFields: [String: FirestoreValue] = [
            "type": .string("WAYPOINTS"), "source": .string("USER"), "filename": .string("eifel.cup"),
            "itemCount": .integer(3), "isVisible": .boolean(true),
        ]
        let downloadedFields: [String: FirestoreValue] = [
            "type": .string("WAYPOINTS"), "source": .string("XCSOAR"), "filename": .string("Germany_West.cup"),
            "itemCount": .integer(3), "isVisible": .boolean(false),
        ]
        func id(_ fields: [String: FirestoreValue]) -> String {
            var f = fields
            f["contentHash"] = .string(hash)
            return (try? DocumentIds.documentId(collection: .mapFiles, fields: f).id) ?? ""
        }
        let user = id(userFields)
        let downloaded = id(downloadedFields)
        return scenario(
            "map-file-shared-content", "schema §5.4",
            "Two map files with the same content share one object: deleting one keeps it, deleting the last removes it and its bytes.",
            [
                .importMapFile(device: "a", content: content, fields: userFields),
                .importMapFile(device: "a", content: content, fields: downloadedFields), sync("a"),
                expect(
                    server: [
                        "users/\(uid)/mapFiles/\(user)": ["contentHash": .string(hash)],
                        "users/\(uid)/mapFiles/\(downloaded)": ["contentHash": .string(hash)],
                    ], objects: [object: true], storageBytes: gz, serverCounts: [.mapFiles: 2]),
                advance(10), .delete(device: "a", collection: .mapFiles, id: user), sync("a"),
                expect(
                    server: ["users/\(uid)/mapFiles/\(user)": ["deleted": .boolean(true)]], objects: [object: true],
                    storageBytes: gz, serverCounts: [.mapFiles: 1]),
                advance(10), .delete(device: "a", collection: .mapFiles, id: downloaded), sync("a"),
                expect(objects: [object: false], storageBytes: 0, serverCounts: [.mapFiles: 0]),
            ])
    }

    static var tombstonePurge: Scenario {
        let f = Flight(26)
        let kept = Flight(29)
        let days = SchemaConstants.tombstoneRetentionDays
        return scenario(
            "tombstone-purge", "schema §5.4",
            "A tombstone is kept \(days) days, then purged on the server and on every device; a live flight not edited for as long stays.",
            [importFlight("a", kept)] + shared(f) + [
                .delete(device: "a", collection: .flights, id: f.id), sync("a"), advance(10), sync("b"),
                advance((days - 1) * 86_400), sync("a"),
                expect(
                    server: [f.path: ["deleted": .boolean(true)]],
                    rows: ["a": [f.key: row(["deleted": .boolean(true)])]]),
                advance(2 * 86_400), sync("a"), advance(10), sync("b"),
                // A live flight nobody edited for as long stays: only tombstones are purged.
                expect(
                    server: [
                        f.path: nil, kept.path: ["deleted": .boolean(false), "filename": .string(kept.filename)],
                    ],
                    rows: [
                        "a": [f.key: nil, kept.key: row([:])],
                        "b": [f.key: nil, kept.key: row(["deleted": .boolean(false)])],
                    ],
                    objects: [kept.object: true]),
            ])
    }

    // MARK: - §6 Storage cap, §3 quota

    static var storageCapThenPro: Scenario {
        let f = Flight(27)
        // Another device reserved a 99,999,900-byte map file whose upload is still pending.
        let bigContent = String(repeating: "0", count: 64)
        let reserved: Int64 = SchemaLimits.storageCapBytes - 100
        let bigMap: FirestoreValue = .map([
            "path": .string((try? BlobPaths.contentObjectPath(uid: uid, contentHash: bigContent)) ?? ""),
            "gzBytes": .integer(reserved),
            "sizeBytes": .integer(reserved + 5_000), "uploaded": .boolean(false),
        ])
        let mapFileId =
            (try? DocumentIds.documentId(
                collection: .mapFiles,
                fields: ["type": .string("AIRSPACE"), "source": .string("USER"), "contentHash": .string(bigContent)]
            ).id) ?? ""
        let mapFile = serverDocument(
            .mapFiles, mapFileId,
            [
                "type": .string("AIRSPACE"), "source": .string("USER"), "filename": .string("europe.txt"),
                "contentHash": .string(bigContent), "content": bigMap,
            ], clientSeconds: 0)
        let profile = try? FirestoreWrite(
            path: profilePath,
            fields: [
                "schema": .integer(SchemaConstants.schemaVersion), "createdAt": at(-86_400), "lastSeenAt": at(0),
                "platforms": .array([.string("android")]), "storageBytes": .integer(reserved),
                "storageRef": .map(["collection": .string("mapFiles"), "id": .string(mapFileId)]),
            ])
        return scenario(
            "storage-cap-then-pro", "schema §6",
            "A free user at the 100,000,000-byte cap: the flight's metadata syncs, its file stays local; once the token says Pro the file is reserved and uploaded.",
            [
                .serverCommit(writes: [profile, mapFile].compactMap { $0 }, lateBySeconds: nil), advance(10),
                importFlight("a", f), sync("a"),
                expect(
                    server: [f.path: ["igc": .null, "filename": .string(f.filename)]],
                    rows: ["a": [f.key: row(["igc": .null], dirty: false)]], objects: [f.object: false],
                    storageBytes: reserved),
                advance(60), .entitlements(device: "a", [SchemaConstants.proEntitlement]), sync("a"),
                expect(
                    server: [f.path: ["igc": f.igcMap(uploaded: true)]], objects: [f.object: true],
                    storageBytes: reserved + f.gzBytes),
            ])
    }

    static var quotaPause: Scenario {
        let f = Flight(28)
        return scenario(
            "quota-pause", "schema §3",
            "A daily quota error (RESOURCE_EXHAUSTED) pauses sync until the next day by the device clock; nothing is lost.",
            [
                importFlight("a", f), .fault(device: "a", request: .commit, fault: .refuse(.resourceExhausted)),
                sync("a", error: paused), advance(3_600), sync("a", error: paused),
                // One commit was tried (the profile's creation) and refused; the paused sync sends nothing.
                expect(
                    server: [f.path: nil], rows: ["a": [f.key: row(["filename": .string(f.filename)], dirty: true)]],
                    commits: ["a": [1]]),
                // 2026-10-20T15:03:07Z + 32,213 s = 2026-10-21T00:00:00Z: the next day.
                advance(32_213), sync("a"),
                expect(
                    server: [f.path: ["igc": f.igcMap(uploaded: true)]],
                    rows: ["a": [f.key: row(["igc": f.igcMap(uploaded: true)], dirty: false)]],
                    objects: [f.object: true], storageBytes: f.gzBytes, commits: ["a": [1, 2, 1]]),
            ])
    }
}
