// The scenarios of schema §5.4 (deletes, tombstones and their purge).
import Foundation
import VultureFirestore
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

extension ScenarioGoldens {
    static var deleteTombstone: Scenario {
        let f = Flight(23)
        return scenario(
            "delete-tombstone", "schema §5.4",
            "A delete is a tombstone: the common fields, deleted and deletedAt, every other field gone (one a newer app added too); storageBytes falls in the tombstone's own batch (the runner checks it) and the IGC object is deleted.",
            shared(f, f.fields(["comments": .string("Soon gone.")])) + [
                .serverCommit(writes: newerField(f, clientSeconds: 15).map { [$0] } ?? [], lateBySeconds: nil),
                .delete(device: "a", collection: .flights, id: f.id), sync("a"),
                expect(
                    server: [
                        f.path: [
                            "deleted": .boolean(true), "deletedAt": at(20), "comments": .null, "igc": .null,
                            "glideRatio": .null, "filename": .null, "updatedBy": .string("device-a"),
                        ]
                    ], objects: [f.object: false], storageBytes: .value(0)),
                advance(10), sync("b"),
                expect(
                    rows: ["b": [f.key: row(["deleted": .boolean(true), "deletedAt": at(20)], dirty: false)]],
                    converged: ["a", "b"]),
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
                    ], objects: [f.object: false], storageBytes: .value(0), converged: ["a", "b"]),
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
                    rows: ["a": [f.key: row(["deleted": .boolean(true)])]], objects: [f.object: false],
                    storageBytes: .value(0)),
                advance(60), importFlight("a", f), sync("a"), advance(10), sync("b"),
                expect(
                    server: [f.path: with(f.igc(uploaded: true), ["deleted": .boolean(false), "deletedAt": .null])],
                    rows: [
                        "b": [f.key: row(["deleted": .boolean(false), "filename": .string(f.filename)], dirty: false)]
                    ],
                    objects: [f.object: true], storageBytes: .counted, converged: ["a", "b"]),
            ])
    }

    /// The content of a small CUP file that two map files share in the shared-content scenarios.
    static let sharedMapContent = Data(
        """
        name,code,country,lat,lon,elev,style,rwdir,rwlen,freq,desc
        "Aachen Merzbruck",EDKA,DE,5049.383N,00611.183E,189.0m,5,070,520.0m,122.880,
        "Duren Hurtgenwald",EDKN,DE,5043.433N,00628.950E,346.0m,2,070,450.0m,123.650,
        "Monschau",MONSCH,DE,5033.067N,00614.533E,560.0m,1,,,,

        """.utf8)

    /// The same outcome as `map-file-shared-content` without naming a document, so that it rests on no
    /// pinned id string: one object for the content, counted once, on the second device too.
    static var mapFileSharedContentCountedOnce: Scenario {
        let hash = DocumentIds.contentHash(contentBytes: sharedMapContent)
        let object = (try? BlobPaths.contentObjectPath(uid: uid, contentHash: hash)) ?? ""
        func fields(_ source: String, _ filename: String) -> [String: FirestoreValue] {
            [
                "type": .string("WAYPOINTS"), "source": .string(source), "filename": .string(filename),
                "itemCount": .integer(3), "isVisible": .boolean(true),
            ]
        }
        return scenario(
            "map-file-shared-content-counted-once", "schema §2, §5.1",
            "Two map files with the same content, imported on two devices, share one object at files/{contentHash}.gz, and storageBytes counts it once: the second reserve moves it by 0.",
            [
                .importMapFile(device: "a", content: sharedMapContent, fields: fields("USER", "eifel.cup")), sync("a"),
                advance(10),
                .importMapFile(device: "b", content: sharedMapContent, fields: fields("XCSOAR", "Germany_West.cup")),
                sync("b"), advance(10), sync("a"),
                expect(
                    objects: [object: true], storageBytes: .counted, serverCounts: [.mapFiles: 2],
                    converged: ["a", "b"]),
            ])
    }

    /// A map file deleted while another live map file has the same content keeps the object (schema §2,
    /// §5.4). The second map file is another client's, so the scenario deletes it by the id that client
    /// gave it and names no id the engine makes.
    static var mapFileSharedContentKeptOnDelete: Scenario {
        let built = try? ContentBlob.build(uid: uid, contentBytes: sharedMapContent)
        let hash = built?.contentHash ?? ""
        let object = built?.map.path ?? ""
        let mine: [String: FirestoreValue] = [
            "type": .string("WAYPOINTS"), "source": .string("USER"), "filename": .string("eifel.cup"),
            "itemCount": .integer(3), "isVisible": .boolean(true),
        ]
        var theirs: [String: FirestoreValue] = [
            "type": .string("WAYPOINTS"), "source": .string("XCSOAR"), "filename": .string("Germany_West.cup"),
            "itemCount": .integer(3), "isVisible": .boolean(false), "contentHash": .string(hash),
        ]
        let other = (try? DocumentIds.documentId(collection: .mapFiles, fields: theirs).id) ?? ""
        let otherPath = SyncCollection.mapFiles.documentPath(uid: uid, id: other)
        // Another client's map file naming the object device a uploaded: a shared object, counted once.
        theirs["content"] = .map([
            "path": .string(object), "sizeBytes": .integer(built?.map.sizeBytes ?? 0),
            "gzBytes": .integer(built?.map.gzBytes ?? 0), "uploaded": .boolean(true),
        ])
        return scenario(
            "map-file-shared-content-kept-on-delete", "schema §2, §5.4",
            "Deleting a map file whose content another live map file shares keeps the object files/{contentHash}.gz and its bytes in storageBytes; the other map file still names it.",
            [
                .importMapFile(device: "a", content: sharedMapContent, fields: mine), sync("a"), advance(10),
                .serverCommit(
                    writes: [serverDocument(.mapFiles, other, theirs, clientSeconds: 10)].compactMap { $0 },
                    lateBySeconds: nil),
                advance(10), sync("b"), .delete(device: "b", collection: .mapFiles, id: other), sync("b"),
                expect(
                    server: [otherPath: ["deleted": .boolean(true), "content": .null]], objects: [object: true],
                    storageBytes: .counted, serverCounts: [.mapFiles: 1]),
                advance(10), sync("a"),
                expect(
                    objects: [object: true], storageBytes: .counted, serverCounts: [.mapFiles: 1],
                    converged: ["a", "b"]),
            ])
    }

    static var mapFileSharedContent: Scenario {
        let content = sharedMapContent
        let hash = DocumentIds.contentHash(contentBytes: content)
        let object = (try? BlobPaths.contentObjectPath(uid: uid, contentHash: hash)) ?? ""
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
            "Two map files with the same content share one object, counted once (the second reserve moves storageBytes by 0): deleting one keeps it, deleting the last removes it and its bytes. The ids follow the pinned map-file id strings.",
            pins: [.mapFileIdUser, .mapFileIdDownloaded],
            [
                .importMapFile(device: "a", content: content, fields: userFields),
                .importMapFile(device: "a", content: content, fields: downloadedFields), sync("a"),
                expect(
                    server: [
                        SyncCollection.mapFiles.documentPath(uid: uid, id: user): ["contentHash": .string(hash)],
                        SyncCollection.mapFiles.documentPath(uid: uid, id: downloaded): ["contentHash": .string(hash)],
                    ], objects: [object: true], storageBytes: .counted, serverCounts: [.mapFiles: 2]),
                advance(10), .delete(device: "a", collection: .mapFiles, id: user), sync("a"),
                expect(
                    server: [SyncCollection.mapFiles.documentPath(uid: uid, id: user): ["deleted": .boolean(true)]],
                    objects: [object: true],
                    storageBytes: .counted, serverCounts: [.mapFiles: 1]),
                advance(10), .delete(device: "a", collection: .mapFiles, id: downloaded), sync("a"),
                expect(objects: [object: false], storageBytes: .value(0), serverCounts: [.mapFiles: 0]),
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

    static var reimportAfterLocalDelete: Scenario {
        let f = Flight(41)
        return scenario(
            "reimport-after-local-delete", "schema §5.4",
            "A flight both devices agreed on is deleted on b; a, not yet knowing, deletes it too and imports it again after b's delete: a's row was created after the remote deletedAt, so it lives again everywhere and its file is uploaded and counted again.",
            shared(f) + [
                .delete(device: "b", collection: .flights, id: f.id), sync("b"), advance(10),
                .delete(device: "a", collection: .flights, id: f.id), advance(10), importFlight("a", f), sync("a"),
                advance(10), sync("b"),
                expect(
                    server: [f.path: with(f.igc(uploaded: true), ["deleted": .boolean(false), "deletedAt": .null])],
                    rows: [
                        "a": [f.key: row(["deleted": .boolean(false)], dirty: false, file: true)],
                        "b": [f.key: row(["deleted": .boolean(false), "filename": .string(f.filename)], dirty: false)],
                    ],
                    objects: [f.object: true], storageBytes: .counted, converged: ["a", "b"]),
            ])
    }

    static var deleteAgainstSkewedClock: Scenario {
        let f = Flight(42)
        return scenario(
            "delete-against-skewed-clock", "schema §5.4",
            "b's clock runs an hour ahead, so the flight arrived there \"after\" a's later delete by the clocks: a pulled row is no re-import, so the delete wins on b too and the flight does not come back.",
            devices: [
                Scenario.Device(name: "a", platform: .android),
                Scenario.Device(name: "b", platform: .ios, clockOffsetSeconds: 3_600),
            ],
            shared(f) + [
                .delete(device: "a", collection: .flights, id: f.id), sync("a"), advance(10), sync("b"), advance(10),
                sync("a"),
                expect(
                    server: [f.path: ["deleted": .boolean(true)]],
                    rows: [
                        "a": [f.key: row(["deleted": .boolean(true)], dirty: false)],
                        "b": [f.key: row(["deleted": .boolean(true)], dirty: false)],
                    ], objects: [f.object: false], storageBytes: .value(0), converged: ["a", "b"]),
            ])
    }

    static var purgeByDeletedAt: Scenario {
        let f = Flight(43)
        let days = SchemaConstants.tombstoneRetentionDays
        return scenario(
            "purge-by-deleted-at", "schema §5.4",
            "A delete made offline is pushed \(days + 1) days later: its deletedAt is older than the retention, so the purge (deletedAt < now − \(days) days) removes it by the sync after the push, on the server and on the device (where in a sync the purge runs is the engine's choice).",
            [
                importFlight("a", f), sync("a"), advance(10), .delete(device: "a", collection: .flights, id: f.id),
                advance((days + 1) * 86_400), sync("a"), advance(10), sync("a"),
                expect(server: [f.path: nil], rows: ["a": [f.key: nil]], objects: [f.object: false]),
            ])
    }

    /// schema §5.4 "deletedAt < now − 90 days": a tombstone exactly the retention old stays, one
    /// second older goes (on the server and on the device).
    static var purgeEdgeExclusive: Scenario {
        let f = Flight(70)
        let days = SchemaConstants.tombstoneRetentionDays
        return scenario(
            "purge-edge-exclusive", "schema §5.4",
            "The purge takes tombstones with deletedAt < now − \(days) days, strictly: a tombstone exactly \(days) days old stays on the server and on the device; a second later it goes.",
            [
                importFlight("a", f), sync("a"), .delete(device: "a", collection: .flights, id: f.id), sync("a"),
                advance(days * 86_400), sync("a"),
                expect(
                    server: [f.path: ["deleted": .boolean(true)]],
                    rows: ["a": [f.key: row(["deleted": .boolean(true)])]]),
                advance(1), sync("a"),
                expect(server: [f.path: nil], rows: ["a": [f.key: nil]]),
            ])
    }

    static var purgeOver400: Scenario {
        let bases = (1_000..<1_450).map(homebase)
        let days = SchemaConstants.tombstoneRetentionDays
        return scenario(
            "purge-over-400", "schema §5.4",
            "450 tombstones reach the retention together: the purge deletes them in batches of at most 400 writes (the runner checks every commit), on the server and on the device.",
            bases.map { .save(device: "a", collection: .homebases, id: nil, changes: $0.fields) } + [sync("a")]
                + bases.map { .delete(device: "a", collection: .homebases, id: $0.id) } + [
                    sync("a"), expect(serverCounts: [.homebases: 0]),
                    advance((days + 1) * 86_400), sync("a"),
                    expect(
                        server: [bases[0].path: nil, bases[449].path: nil],
                        rows: ["a": [bases[0].key: nil, bases[449].key: nil]]),
                ])
    }

    /// b keeps a flight agreed while it is away; meanwhile a deletes it and the tombstone is purged.
    static func longAbsenceSteps(_ f: Flight) -> [ScenarioStep] {
        let days = SchemaConstants.tombstoneRetentionDays
        return shared(f) + [
            .delete(device: "a", collection: .flights, id: f.id), sync("a"), advance((days + 1) * 86_400), sync("a"),
            expect(server: [f.path: nil]),
            advance(10 * 86_400), sync("b"), advance(10), sync("a"),
        ]
    }

    static var longAbsenceConverges: Scenario {
        let f = Flight(44)
        return scenario(
            "long-absence-converges", "schema §5.4",
            "b is away longer than the retention while a deletes a flight and its tombstone is purged: after both sync, they agree with the server, whether the flight came back (schema §5.4 accepts that) or is gone everywhere.",
            longAbsenceSteps(f) + [expect(converged: ["a", "b"])])
    }

    static var longAbsenceBringsBack: Scenario {
        let f = Flight(47)
        return scenario(
            "long-absence-brings-back", "schema §5.4",
            "A device back after more than the retention pulls in full and pushes a record the server lost (its tombstone purged) as new: the deleted flight comes back on every device, without its object.",
            pins: [.longAbsenceFullPull],
            longAbsenceSteps(f) + [
                expect(
                    server: [f.path: ["deleted": .boolean(false), "igc": .null]],
                    rows: ["a": [f.key: row(["deleted": .boolean(false)])]], storageBytes: .counted,
                    converged: ["a", "b"])
            ])
    }
}
