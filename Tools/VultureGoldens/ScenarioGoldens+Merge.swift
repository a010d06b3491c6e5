// The scenarios of schema §5.3 and §5.5 (the merge and its refinements).
import Foundation
import VultureFirestore
import VultureFirestoreTesting
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

extension ScenarioGoldens {
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
                    server: [f.path: ["comments": .string("a: wave")]],
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
                    server: [f.path: with(f.igc(uploaded: true), ["importedAt": at(0), "createdAt": at(0)])],
                    rows: ["a": [f.key: row(["importedAt": at(0)], dirty: false)]], objects: [f.object: true],
                    storageBytes: .counted, serverCounts: [.flights: 1], converged: ["a", "b"]),
            ])
    }

    static var lastOpenedLatest: Scenario {
        let f = Flight(13)
        return scenario(
            "last-opened-latest", "schema §5.3",
            "Both devices open the flight: lastOpenedAt is the latest open on any device.",
            shared(f) + [
                open("a", f), advance(10), open("b", f), advance(10),
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

    /// schema §5.3 "summary (the whole map): the higher analysisVersion; a tie keeps the local one".
    /// The clocks differ, so neither the default rule nor the tie of §5.5 ("ties go to the server")
    /// would keep b's summary.
    static var summaryTieKeepsLocal: Scenario {
        let f = Flight(72)
        let mine = summary(version: 2, distance: 301_250.0)
        let later = summary(version: 2, distance: 301_975.5)
        return scenario(
            "summary-tie-keeps-local", "schema §5.3",
            "Both devices re-analyse the flight with the same analysisVersion, b first and a 10 s later, and a syncs first. A tie keeps the local summary: b keeps its own whole, although the server's was made later, and pushes it.",
            shared(f) + [
                edit("b", f, ["summary": mine]), advance(10), edit("a", f, ["summary": later]),
                sync("a"), advance(10), sync("b"),
                expect(
                    server: [f.path: ["summary": mine]],
                    rows: ["b": [f.key: row(["summary": mine], dirty: false)]]),
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

    /// schema §5.5 "Track preview ranking … A tie keeps the local preview": two previews of one
    /// trackPreviewVersion made 10 s apart.
    static var trackPreviewTieKeepsLocal: Scenario {
        let f = Flight(73)
        let mine = Data((0..<80).map { UInt8(($0 * 29 + 7) % 251) })
        let later = Data((0..<88).map { UInt8(($0 * 53 + 3) % 251) })
        let kept: [String: FirestoreValue] = ["trackPreview": .bytes(mine), "trackPreviewVersion": .integer(2)]
        return scenario(
            "track-preview-tie-keeps-local", "schema §5.5",
            "Both devices make a track preview of the same trackPreviewVersion 2 with other bytes, b first and a 10 s later, and a syncs first. A tie keeps the local preview: b keeps its own bytes, although the server's were made later, and pushes them.",
            shared(f) + [
                edit("b", f, ["trackPreview": .bytes(mine), "trackPreviewVersion": .integer(2)]), advance(10),
                edit("a", f, ["trackPreview": .bytes(later), "trackPreviewVersion": .integer(2)]),
                sync("a"), advance(10), sync("b"),
                expect(server: [f.path: kept], rows: ["b": [f.key: row(kept, dirty: false)]]),
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
            "A flight arrives on device a (Android) before its task: it is stored without the task (the foreign key; taskId deferred, never pushed as null) and gets it when the task arrives.",
            [
                sync("a"), advance(20),
                .serverCommit(writes: flight.map { [$0] } ?? [], lateBySeconds: nil), advance(5), sync("a"),
                expect(
                    server: [f.path: ["taskId": .string(task)]],
                    rows: ["a": [f.key: row(["taskId": .null], dirty: false)]]),
                advance(10), .serverCommit(writes: taskDocument.map { [$0] } ?? [], lateBySeconds: nil), advance(5),
                sync("a"),
                expect(
                    server: [f.path: ["taskId": .string(task)]],
                    rows: ["a": [f.key: row(["taskId": .string(task)], dirty: false)]]),
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
                    server: [SyncCollection.settings.documentPath(uid: uid, id: id): ["values": merged]],
                    rows: [
                        "a": ["settings/\(id)": row(["values": merged], dirty: false)],
                        "b": ["settings/\(id)": row(["values": merged], dirty: false)],
                    ]),
            ])
    }

    static var sameFieldMicroseconds: Scenario {
        let f = Flight(39)
        return scenario(
            "same-field-microseconds", "schema §5.3",
            "Both devices change comments within one millisecond, 500 µs apart: clientUpdatedAt is compared at microseconds (Firestore's precision), so the later edit wins though the earlier one was pushed first.",
            shared(f) + [
                advance(0, microseconds: 400), edit("a", f, ["comments": .string("a: first")]),
                advance(0, microseconds: 500), edit("b", f, ["comments": .string("b: 500 µs later")]),
                sync("a"), advance(5), sync("b"), advance(5), sync("a"),
                expect(
                    server: [f.path: ["comments": .string("b: 500 µs later")]],
                    rows: [
                        "a": [f.key: row(["comments": .string("b: 500 µs later")], dirty: false)],
                        "b": [f.key: row(["comments": .string("b: 500 µs later")], dirty: false)],
                    ], converged: ["a", "b"]),
            ])
    }

    static var skewedClockDecides: Scenario {
        let f = Flight(40)
        return scenario(
            "skewed-clock-decides", "schema §5.3",
            "Device b's clock runs an hour ahead: its edit carries the later clientUpdatedAt and wins over a's, although a edited later in real time and pushed last.",
            devices: [
                Scenario.Device(name: "a", platform: .android),
                Scenario.Device(name: "b", platform: .ios, clockOffsetSeconds: 3_600),
            ],
            shared(f) + [
                edit("b", f, ["comments": .string("b: clock ahead")]), advance(10),
                edit("a", f, ["comments": .string("a: edited later")]), sync("b"), advance(5), sync("a"),
                advance(5), sync("b"),
                expect(
                    server: [f.path: ["comments": .string("b: clock ahead")]],
                    rows: [
                        "a": [f.key: row(["comments": .string("b: clock ahead")], dirty: false)],
                        "b": [f.key: row(["comments": .string("b: clock ahead")], dirty: false)],
                    ], converged: ["a", "b"]),
            ])
    }

    static var uploadedOrOnSecondImport: Scenario {
        let f = Flight(37)
        return scenario(
            "uploaded-or-on-second-import", "schema §5.3",
            "a imports and uploads a flight; b imported the same file later and pushes without pulling (its upload would fail; the push may end in an error of the engine's choice): the record is a's, and igc.uploaded merges as local OR remote, so it stays true whatever b's later clientUpdatedAt says.",
            [
                importFlight("a", f), sync("a"), advance(30), importFlight("b", f),
                .storageFault(device: "b", request: .upload, failure: .unavailable),
                push("b", error: StepOutcomes([nil, "*"])),
                expect(server: [f.path: f.igc(uploaded: true)], objects: [f.object: true]),
                .clearFaults(device: "b"), advance(10), sync("b"), sync("a"),
                expect(
                    server: [f.path: f.igc(uploaded: true)],
                    rows: [
                        "a": [f.key: row(f.igc(uploaded: true), dirty: false)],
                        "b": [f.key: row(f.igc(uploaded: true), dirty: false, file: true)],
                    ], storageBytes: .counted, serverCounts: [.flights: 1], converged: ["a", "b"]),
            ])
    }

    static var latestDateNotLatestEdit: Scenario {
        let f = Flight(38)
        let base = homebase(6)
        let used: (Int64) -> [String: FirestoreValue] = { with(base.fields, ["usedAt": at($0)]) }
        return scenario(
            "latest-date-not-latest-edit", "schema §5.3",
            "lastOpenedAt and usedAt are the latest on any device, whichever side edited last: b opens the flight and uses the home base after a, then a edits both records; the later dates stay.",
            [
                importFlight("a", f), .save(device: "a", collection: .homebases, id: nil, changes: used(0)), sync("a"),
                advance(10), sync("b"), advance(10),
                open("a", f), .save(device: "a", collection: .homebases, id: base.id, changes: ["usedAt": at(20)]),
                advance(10),
                open("b", f), .save(device: "b", collection: .homebases, id: base.id, changes: ["usedAt": at(30)]),
                advance(10),
                edit("a", f, ["comments": .string("Opened on the phone, annotated on the tablet.")]),
                .save(device: "a", collection: .homebases, id: base.id, changes: ["latitude": .double(47.25)]),
                sync("a"), advance(5), sync("b"), advance(5), sync("a"),
                expect(
                    server: [
                        f.path: [
                            "lastOpenedAt": at(30),
                            "comments": .string("Opened on the phone, annotated on the tablet."),
                        ],
                        base.path: ["usedAt": at(30), "latitude": .double(47.25)],
                    ],
                    rows: [
                        "a": [f.key: row(["lastOpenedAt": at(30)]), base.key: row(["usedAt": at(30)])],
                        "b": [f.key: row(["lastOpenedAt": at(30)]), base.key: row(["usedAt": at(30)])],
                    ], converged: ["a", "b"]),
            ])
    }

    /// schema §5.5 "A clear of lastOpenedAt / usedAt travels": a home base's usedAt cleared on a
    /// reaches b, which left the agreed date as it was but holds another change of the record.
    static var clearUsedAtTravels: Scenario {
        let base = homebase(7)
        let cleared: [String: FirestoreValue] = ["usedAt": .null, "latitude": .double(47.5)]
        return scenario(
            "clear-used-at-travels", "schema §5.5",
            "Device a clears a home base's usedAt; device b left the agreed date as it was and moved the home base's latitude 10 s later. One side cleared the date and the other left the agreed value: the clear wins on b too, and both changes reach the server and a.",
            [
                .save(device: "a", collection: .homebases, id: nil, changes: with(base.fields, ["usedAt": at(0)])),
                sync("a"), advance(10), sync("b"), advance(10),
                .save(device: "a", collection: .homebases, id: base.id, changes: ["usedAt": .null]), advance(10),
                .save(device: "b", collection: .homebases, id: base.id, changes: ["latitude": .double(47.5)]),
                sync("a"), advance(10), sync("b"), advance(10), sync("a"),
                expect(
                    server: [base.path: cleared],
                    rows: ["a": [base.key: row(cleared, dirty: false)], "b": [base.key: row(cleared, dirty: false)]],
                    converged: ["a", "b"]),
            ])
    }

    /// schema §4: a home base's id is the SHA-256 of name.trim().lowercase(), so a name typed with
    /// other case and surrounding spaces on another device is the same home base (ASCII names, on
    /// which every platform's trim and lowercase agree).
    static var homebaseIdTrimmedLowercase: Scenario {
        let id = DocumentIds.homebaseId(name: "Eifel Ridge")
        let path = SyncCollection.homebases.documentPath(uid: uid, id: id)
        return scenario(
            "homebase-id-trimmed-lowercase", "schema §4",
            "Two devices save the home base \"Eifel Ridge\" and \"  eifel ridge \": its id is the SHA-256 of the trimmed, lowercased name, so both make one document, whose name is the later save's.",
            [
                .save(
                    device: "a", collection: .homebases, id: nil,
                    changes: [
                        "name": .string("Eifel Ridge"), "latitude": .double(50.41), "longitude": .double(6.72),
                        "usedAt": at(0),
                    ]),
                advance(10),
                .save(
                    device: "b", collection: .homebases, id: nil,
                    changes: [
                        "name": .string("  eifel ridge "), "latitude": .double(50.41), "longitude": .double(6.72),
                        "usedAt": at(10),
                    ]),
                sync("a"), advance(10), sync("b"), advance(10), sync("a"),
                expect(
                    server: [path: ["name": .string("  eifel ridge "), "usedAt": at(10)]],
                    rows: [
                        "a": ["homebases/\(id)": row(["name": .string("  eifel ridge ")], dirty: false)],
                        "b": ["homebases/\(id)": row(["name": .string("  eifel ridge ")], dirty: false)],
                    ], serverCounts: [.homebases: 1], converged: ["a", "b"]),
            ])
    }

    static var sameIdMadeOnTwoDevices: Scenario {
        let url = "https://www.soaringspot.com/en_gb/eifel-2026/tasks/open/task-7-on-2026-08-07"
        let task = DocumentIds.taskId(externalUrl: url)
        let name = "Field 077"
        let base = DocumentIds.homebaseId(name: name)
        return scenario(
            "same-id-made-on-two-devices", "schema §5.3",
            "Two devices make the same deterministic-id record offline (a task by externalUrl, a home base by name): merged as new on both sides, every field differing goes to the later clientUpdatedAt and usedAt to the latest, whichever device syncs first.",
            [
                .save(
                    device: "a", collection: .homebases, id: nil,
                    changes: [
                        "name": .string(name), "latitude": .double(47.1), "longitude": .double(7.1), "usedAt": at(0),
                    ]),
                .save(
                    device: "a", collection: .tasks, id: nil,
                    changes: ["name": .string("Task 7 (a)"), "externalUrl": .string(url), "distance": .double(300e3)]),
                advance(10),
                .save(
                    device: "b", collection: .homebases, id: nil,
                    changes: [
                        "name": .string(name), "latitude": .double(48.2), "longitude": .double(8.2), "usedAt": at(10),
                    ]),
                .save(
                    device: "b", collection: .tasks, id: nil,
                    changes: ["name": .string("Task 7 (b)"), "externalUrl": .string(url), "distance": .double(312e3)]),
                sync("a"), advance(10), sync("b"), advance(10), sync("a"),
                expect(
                    server: [
                        SyncCollection.homebases.documentPath(uid: uid, id: base): [
                            "latitude": .double(48.2), "longitude": .double(8.2), "usedAt": at(10),
                        ],
                        SyncCollection.tasks.documentPath(uid: uid, id: task): [
                            "name": .string("Task 7 (b)"), "distance": .double(312e3),
                        ],
                    ],
                    rows: [
                        "a": [
                            "homebases/\(base)": row(["latitude": .double(48.2)], dirty: false),
                            "tasks/\(task)": row(["name": .string("Task 7 (b)")], dirty: false),
                        ],
                        "b": [
                            "homebases/\(base)": row(["latitude": .double(48.2)], dirty: false),
                            "tasks/\(task)": row(["name": .string("Task 7 (b)")], dirty: false),
                        ],
                    ], converged: ["a", "b"]),
            ])
    }
}

extension ScenarioGoldens {
    /// A flight another client wrote without the fields a reader reads as their defaults (`isFavorite`,
    /// `waterBallast`; iOS and Google's SDKs may never write them), then wrote whole, those fields at
    /// their defaults, after device b changed them.
    static var absentReadsAsDefault: Scenario {
        let f = Flight(40)
        var sparse = f.fields()
        sparse["comments"] = .string("web: first notes")
        let first = serverDocument(.flights, f.id, sparse, clientSeconds: 0).flatMap { write -> FirestoreWrite? in
            guard var fields = write.fields else { return nil }
            for name in ["isFavorite", "waterBallast", "rating", "isRead"] { fields[name] = nil }
            return try? FirestoreWrite(path: write.path, fields: fields)
        }
        var whole = f.fields(["comments": .string("web: notes rewritten")])
        for (name, value) in ["isFavorite": FirestoreValue.boolean(false), "waterBallast": .integer(0)] {
            whole[name] = value
        }
        return scenario(
            "absent-reads-as-default", "schema §5.3; Goldens/FORMAT.md, The stored form",
            "A field absent from the agreed document reads as its default: device b sets isFavorite and waterBallast, then another client rewrites the whole flight with those fields at their defaults (unchanged to a reader) and new comments, later by clientUpdatedAt. b's values are changes on one side only and survive. Recommended: the seed gives no reader a fallback for an absent field (pin fieldDefaults).",
            pins: [.fieldDefaults],
            [
                .serverCommit(writes: [first].compactMap { $0 }, lateBySeconds: nil), advance(10), sync("a"),
                advance(10), sync("b"), advance(10),
                edit("b", f, ["isFavorite": .boolean(true), "waterBallast": .integer(80)]), advance(10),
                .serverCommit(
                    writes: [serverDocument(.flights, f.id, whole, clientSeconds: 50)].compactMap { $0 },
                    lateBySeconds: nil),
                advance(10), sync("b"), advance(10), sync("a"),
                expect(
                    server: [
                        f.path: [
                            "isFavorite": .boolean(true), "waterBallast": .integer(80),
                            "comments": .string("web: notes rewritten"),
                        ]
                    ], converged: ["a", "b"]),
            ])
    }
}
