// The scenarios of schema §5.1 (push) and of the profile and Storage objects of §2.
import Foundation
import VultureFirestore
import VultureFirestoreTesting
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

extension ScenarioGoldens {
    // MARK: - §5.1 Push

    static var firstSync520Writes: Scenario {
        let bases = (1...520).map(homebase)
        return scenario(
            "first-sync-520-writes", "schema §5.1",
            "A first sync of 520 new home bases goes out in batches the runner checks (at most 400 writes each) and creates the profile; the other device pulls them all and adds its platform.",
            bases.map { .save(device: "a", collection: .homebases, id: nil, changes: $0.fields) } + [
                sync("a"),
                expect(
                    server: [
                        bases[0].path: bases[0].fields, bases[519].path: bases[519].fields,
                        profilePath: [
                            "schema": .integer(SchemaConstants.schemaVersion),
                            "platforms": .array([.string("android")]),
                            "storageBytes": .integer(0),
                        ],
                    ], serverCounts: [.homebases: 520], converged: ["a"]),
                advance(30), sync("b"),
                expect(
                    server: [profilePath: ["platforms": .array([.string("android"), .string("ios")])]],
                    rows: [
                        "b": [
                            bases[0].key: row(bases[0].fields, dirty: false),
                            bases[399].key: row(bases[399].fields, dirty: false),
                            bases[519].key: row(bases[519].fields, dirty: false),
                        ]
                    ], converged: ["a", "b"]),
            ])
    }

    static var pushOrder: Scenario {
        let f = Flight(1)
        let url = "https://www.soaringspot.com/en_gb/aachen-2026/tasks/club/task-1-on-2026-08-02"
        let task = DocumentIds.taskId(externalUrl: url)
        return scenario(
            "push-order", "schema §5.1",
            "A task and the flight naming it: the runner checks that no commit of the push writes the task after the flight (collection order), and the other device gets the flight with its task at once.",
            [
                importFlight("a", f, f.fields(["taskId": .string(task)])),
                .save(
                    device: "a", collection: .tasks, id: nil,
                    changes: [
                        "name": .string("Task 1 Club"), "externalUrl": .string(url), "distance": .double(300.5e3),
                        "externalName": .string("Aachen 2026"),
                    ]),
                sync("a"),
                expect(
                    server: [
                        f.path: ["taskId": .string(task)],
                        SyncCollection.tasks.documentPath(uid: uid, id: task): ["name": .string("Task 1 Club")],
                    ]),
                advance(10), sync("b"),
                expect(rows: ["b": [f.key: row(["taskId": .string(task)], dirty: false)]], converged: ["a", "b"]),
            ])
    }

    static var reserveUploadMark: Scenario {
        let f = Flight(2)
        return scenario(
            "reserve-upload-mark", "schema §5.1",
            "An imported flight: reserved (the record with uploaded false and the storageBytes increment naming it, in one batch: the runner checks it), uploaded, then marked uploaded; the other device's first sync keeps the count and it downloads the file on open.",
            [
                importFlight("a", f), sync("a"),
                expect(
                    server: [f.path: with(f.igc(uploaded: true), ["filename": .string(f.filename)])],
                    rows: ["a": [f.key: row(f.igc(uploaded: true), dirty: false, file: true)]],
                    objects: [f.object: true], storageBytes: .counted),
                advance(60), sync("b"), open("b", f),
                expect(
                    rows: [
                        "b": [
                            f.key: row(with(f.igc(uploaded: true), ["lastOpenedAt": at(60)]), dirty: true, file: true)
                        ]
                    ],
                    storageBytes: .counted),
            ])
    }

    static var uploadCrashedThenRetry: Scenario {
        let f = Flight(3)
        return scenario(
            "upload-crashed-then-retry", "schema §5.1",
            "The reserve lands, the upload fails (the sync may try it again at once or leave it) and the app restarts: a later sync uploads and marks the file without counting it twice.",
            [
                importFlight("a", f),
                .storageFault(device: "a", request: .upload, failure: .unavailable),
                syncOrFail("a", uploadUnavailable),
                .restart(device: "a"), advance(300), sync("a"),
                expect(
                    server: [f.path: f.igc(uploaded: true)], rows: ["a": [f.key: row([:], dirty: false, file: true)]],
                    objects: [f.object: true], storageBytes: .counted, converged: ["a"]),
            ])
    }

    static var reserveAnswerLost: Scenario {
        let f = Flight(4)
        return scenario(
            "reserve-answer-lost", "schema §5.1",
            "The reserve batch is applied but its answer is lost (the sync may retry, or stop with an error of its choice: how an engine meets a lost answer the seed leaves free): once a later sync is done the file is uploaded and counted once.",
            [
                sync("a"), importFlight("a", f),
                .fault(device: "a", request: .commit, fault: .loseAcknowledgement),
                sync("a", error: StepOutcomes([nil, "*"])), advance(10), sync("a"),
                expect(
                    server: [f.path: f.igc(uploaded: true)], objects: [f.object: true], storageBytes: .counted,
                    converged: ["a"]),
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
                    ], converged: ["a", "b"]),
            ])
    }

    /// Another client (a newer app version) adds `glideRatio` to the flight, a field this schema does not know.
    static func newerField(_ f: Flight, clientSeconds: Int64) -> FirestoreWrite? {
        try? FirestoreWrite(
            path: f.path,
            fields: [
                "glideRatio": .double(48.5), "updatedAt": .serverTimestamp, "clientUpdatedAt": at(clientSeconds),
            ],
            mask: [
                FieldPath(unchecked: ["glideRatio"]), FieldPath(unchecked: ["updatedAt"]),
                FieldPath(unchecked: ["clientUpdatedAt"]),
            ])
    }

    static var unknownFieldSurvives: Scenario {
        let f = Flight(6)
        return scenario(
            "unknown-field-survives", "schema §5.1",
            "A newer app version adds a field this schema does not know; an edit of another field never removes it from the server, and the other device receives the edit. What a device keeps of a field it does not know is its own affair (a reader ignores it, schema §2), so only the server's document holds it here.",
            [
                importFlight("a", f), sync("a"), advance(30),
                .serverCommit(writes: newerField(f, clientSeconds: 30).map { [$0] } ?? [], lateBySeconds: nil),
                advance(10), edit("a", f, ["comments": .string("Final glide from Monschau.")]), sync("a"),
                advance(10), sync("b"),
                expect(
                    server: [f.path: ["glideRatio": .double(48.5), "comments": .string("Final glide from Monschau.")]],
                    rows: ["b": [f.key: row(["comments": .string("Final glide from Monschau.")], dirty: false)]]),
            ])
    }

    static var pushAloneKeepsOtherFields: Scenario {
        let f = Flight(30)
        return scenario(
            "push-alone-keeps-other-fields", "schema §5.1",
            "A device pushes an edit without pulling first, after another device changed another field and a newer app added one: its write sends only the field it changed (a field-merge), so both others stay on the server. The devices' rows are checked at the fields this schema knows (a reader ignores the others, schema §2).",
            shared(f) + [
                edit("a", f, ["rating": .integer(4)]), sync("a"), advance(10),
                .serverCommit(writes: newerField(f, clientSeconds: 30).map { [$0] } ?? [], lateBySeconds: nil),
                advance(10), edit("b", f, ["comments": .string("Ridge lift all the way to Bitburg.")]), push("b"),
                expect(server: [
                    f.path: [
                        "rating": .integer(4), "comments": .string("Ridge lift all the way to Bitburg."),
                        "glideRatio": .double(48.5),
                    ]
                ]),
                advance(10), sync("b"), sync("a"),
                expect(
                    rows: [
                        "a": [
                            f.key: row(
                                ["rating": .integer(4), "comments": .string("Ridge lift all the way to Bitburg.")],
                                dirty: false)
                        ],
                        "b": [f.key: row(["rating": .integer(4)], dirty: false)],
                    ], converged: ["a", "b"]),
            ])
    }

    static var storageBytesTwoDevices: Scenario {
        let f1 = Flight(31)
        let f2 = Flight(32)
        return scenario(
            "storage-bytes-two-devices", "schema §2 profile",
            "Two devices reserve a file each; the second pushes without reading the profile again: storageBytes moves by increment, so it counts both files (a value computed from an old read would lose one).",
            [
                sync("a"), sync("b"), importFlight("a", f1), importFlight("b", f2), sync("a"), advance(10), push("b"),
                expect(
                    server: [f1.path: f1.igc(uploaded: true), f2.path: f2.igc(uploaded: true)],
                    objects: [f1.object: true, f2.object: true], storageBytes: .counted),
                advance(10), sync("a"), sync("b"),
                expect(storageBytes: .counted, converged: ["a", "b"]),
            ])
    }

    static var batchPayloadUnder4MB: Scenario {
        // Six tasks with notes of 950,000 characters each (the step's fill): 5.7 MB, so more than one batch.
        let tasks = (1...6).map { i -> (url: String, id: String) in
            let url = "https://www.soaringspot.com/en_gb/eifel-2026/tasks/open/task-\(i)-on-2026-08-0\(i)"
            return (url, DocumentIds.taskId(externalUrl: url))
        }
        return scenario(
            "batch-payload-under-4mb", "schema §3",
            "Six tasks with notes of 950,000 characters each (5.7 MB) are pushed in batches of at most 4 MB of estimated payload (the runner checks each commit), and pulled by the other device.",
            tasks.enumerated().map { i, t in
                .save(
                    device: "a", collection: .tasks, id: nil,
                    changes: [
                        "name": .string("Task \(i + 1) Open"), "externalUrl": .string(t.url),
                        "distance": .double(250e3 + Double(i) * 10e3),
                    ], fill: ["notes": 950_000])
            } + [
                sync("a"),
                expect(
                    server: [
                        SyncCollection.tasks.documentPath(uid: uid, id: tasks[5].id): ["name": .string("Task 6 Open")]
                    ],
                    serverCounts: [.tasks: 6]),
                advance(10), sync("b"),
                expect(
                    rows: ["b": ["tasks/\(tasks[0].id)": row(["name": .string("Task 1 Open")], dirty: false)]],
                    converged: ["a", "b"]),
            ])
    }

    // MARK: - §2 The profile

    static var profileLastSeenDaily: Scenario {
        return scenario(
            "profile-last-seen-daily", "schema §2 profile",
            "The first sync creates the profile (schema, createdAt and lastSeenAt the device's now, platforms, storageBytes 0); a sync an hour later leaves lastSeenAt, one a day later moves it.",
            [
                sync("a"),
                expect(server: [
                    profilePath: [
                        "schema": .integer(SchemaConstants.schemaVersion), "createdAt": at(0), "lastSeenAt": at(0),
                        "platforms": .array([.string("android")]), "storageBytes": .integer(0),
                    ]
                ]),
                advance(3_600), sync("a"),
                expect(server: [profilePath: ["lastSeenAt": at(0), "createdAt": at(0)]]),
                advance(90_000), sync("a"),
                expect(server: [profilePath: ["lastSeenAt": at(93_600), "createdAt": at(0)]]),
            ])
    }

    // MARK: - §2 Storage objects

    /// Gzipped bytes that are not the flight's file (a wrong object at its path).
    static let wrongObject = (try? Gzip.compress(Data("not the file this path names\r\n".utf8))) ?? Data()

    static var retryOverwritesObject: Scenario {
        let f = Flight(33)
        return scenario(
            "retry-overwrites-object", "schema §2 Storage objects",
            "A wrong object already sits at the flight's path (left by another client): the upload overwrites it (the path is the content's hash, so an upload replaces what is there), and the other device downloads the right file.",
            [
                .serverUpload(path: f.object, bytes: wrongObject), importFlight("a", f), sync("a"), advance(10),
                sync("b"), open("b", f),
                expect(
                    server: [f.path: f.igc(uploaded: true)],
                    rows: ["b": [f.key: row(f.igc(uploaded: true), file: true)]], objects: [f.object: true],
                    storageBytes: .counted),
            ])
    }

    /// A flight another client reserved (its upload pending): the record with `uploaded` false and the profile's count.
    static func reservedElsewhere(_ f: Flight) -> [FirestoreWrite] {
        var map = f.igcMapValue(uploaded: false)
        map["gzBytes"] = .integer(f.gzBytes)
        let record = serverDocument(.flights, f.id, f.fields(["igc": .map(map)]), clientSeconds: 0)
        let profile = try? FirestoreWrite(
            path: profilePath,
            fields: [
                "storageBytes": .increment(.integer(f.gzBytes)),
                "storageRef": .map(["collection": .string("flights"), "id": .string(f.id)]),
            ],
            mask: [FieldPath(unchecked: ["storageBytes"]), FieldPath(unchecked: ["storageRef"])])
        return [record, profile].compactMap { $0 }
    }

    /// The write of another client marking a flight uploaded.
    static func markedElsewhere(_ f: Flight, clientSeconds: Int64) -> FirestoreWrite? {
        var map = f.igcMapValue(uploaded: true)
        map["gzBytes"] = .integer(f.gzBytes)
        return try? FirestoreWrite(
            path: f.path,
            fields: ["igc": .map(map), "updatedAt": .serverTimestamp, "clientUpdatedAt": at(clientSeconds)],
            mask: [
                FieldPath(unchecked: ["igc"]), FieldPath(unchecked: ["updatedAt"]),
                FieldPath(unchecked: ["clientUpdatedAt"]),
            ])
    }

    static var downloadWaitsForUploaded: Scenario {
        let f = Flight(34)
        let gz = (try? IGCBlob.build(uid: uid, igcBytes: f.igc).gzipped) ?? Data()
        return scenario(
            "download-waits-for-uploaded", "schema §5.1",
            "Another client reserved a flight and its object is already in the bucket, but the record does not say uploaded yet: a device that opens the flight does not download it (the open may report that the file is not there yet); once the record says uploaded, it does.",
            [
                .serverCommit(writes: reservedElsewhere(f), lateBySeconds: nil),
                .serverUpload(path: f.object, bytes: gz),
                advance(10), sync("b"), open("b", f, error: StepOutcomes([nil, "*"])),
                expect(rows: ["b": [f.key: row(f.igc(uploaded: false), file: false)]]),
                advance(10),
                .serverCommit(writes: markedElsewhere(f, clientSeconds: 20).map { [$0] } ?? [], lateBySeconds: nil),
                advance(10), sync("b"), open("b", f),
                expect(rows: ["b": [f.key: row(f.igc(uploaded: true), file: true)]]),
            ])
    }

    static var downloadChecked: Scenario {
        let f = Flight(35)
        return scenario(
            "download-checked", "schema §2 Storage objects",
            "A record says uploaded but the object at its path is not the flight's file: the download's SHA-256 differs from the flight id, so the device discards it (the open may report the failure).",
            [
                .serverCommit(writes: reservedElsewhere(f), lateBySeconds: nil),
                .serverUpload(path: f.object, bytes: wrongObject),
                .serverCommit(writes: markedElsewhere(f, clientSeconds: 5).map { [$0] } ?? [], lateBySeconds: nil),
                advance(10), sync("b"), open("b", f, error: StepOutcomes([nil, "*"])),
                expect(rows: ["b": [f.key: row(f.igc(uploaded: true), file: false)]]),
            ])
    }
}
