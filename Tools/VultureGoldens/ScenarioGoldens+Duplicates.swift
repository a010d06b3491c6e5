// The scenarios of the R4 duplicate pass (schema §4, risk R4).
import Foundation
import VultureFirestore
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

extension ScenarioGoldens {
    /// The fields two copies of one flight under two ids share (schema §4: the same filename,
    /// summary.takeoffAt and pilotName), in the logbook, imported at `imported` seconds.
    static func twin(
        _ filename: String, pilot: String, imported: Int64, inLogbook: Bool = true,
        _ more: [String: FirestoreValue] = [:]
    ) -> [String: FirestoreValue] {
        with(
            [
                "filename": .string(filename), "pilotName": .string(pilot), "inLogbook": .boolean(inLogbook),
                "summary": summary(version: 2, distance: 301_250.0), "importedAt": at(imported),
                "createdAt": at(imported),
            ], more)
    }

    static var r4DuplicatesFirstIOSPull: Scenario {
        // The same flights under two ids: the Android id of the original bytes, the iOS id of the
        // re-encoded text (here two other files with the same header values).
        let x = Flight(50)
        let xIOS = Flight(51)
        let y = Flight(52)
        let yIOS = Flight(53)
        let first = [
            serverDocument(
                .flights, x.id, twin("2026-08-01-XCS-AAA-01.igc", pilot: "Jérôme Rocher", imported: -7_200),
                clientSeconds: -7_200),
            serverDocument(
                .flights, xIOS.id,
                twin(
                    "2026-08-01-XCS-AAA-01.igc", pilot: "Jérôme Rocher", imported: -3_600,
                    ["isFavorite": .boolean(true)]
                ), clientSeconds: -3_600),
        ].compactMap { $0 }
        let later = [
            serverDocument(
                .flights, y.id, twin("2026-08-02-XCS-AAA-02.igc", pilot: "Jérôme Rocher", imported: 30),
                clientSeconds: 30),
            serverDocument(
                .flights, yIOS.id, twin("2026-08-02-XCS-AAA-02.igc", pilot: "Jérôme Rocher", imported: 40),
                clientSeconds: 40),
        ].compactMap { $0 }
        return scenario(
            "r4-duplicates-first-ios-pull", "schema §4",
            "Two copies of one flight under two ids are in the pulled logbook: after iOS's first full pull it keeps the one imported first and tombstones the other (Android runs no such pass); the check runs once, so a pair that arrives later stays.",
            [
                .serverCommit(writes: first, lateBySeconds: nil), advance(10), sync("a"),
                expect(server: [x.path: ["deleted": .boolean(false)], xIOS.path: ["deleted": .boolean(false)]]),
                advance(10), sync("b"),
                expect(
                    server: [x.path: ["deleted": .boolean(false)], xIOS.path: ["deleted": .boolean(true)]],
                    serverCounts: [.flights: 1]),
                advance(10), .serverCommit(writes: later, lateBySeconds: nil), advance(10), sync("b"), sync("a"),
                expect(
                    server: [
                        x.path: ["deleted": .boolean(false)], xIOS.path: ["deleted": .boolean(true)],
                        y.path: ["deleted": .boolean(false)], yIOS.path: ["deleted": .boolean(false)],
                    ], serverCounts: [.flights: 3], converged: ["a", "b"]),
            ])
    }

    /// schema §4: duplicates share the filename, summary.takeoffAt and pilotName, and the kept flight
    /// takes the other's user fields by the merge rules. Every field the two copies differ in was
    /// changed at a different clientUpdatedAt, so the outcome does not rest on which copy the merge
    /// takes as local (pin duplicatesMergeSides).
    static var r4SamePilotMerged: Scenario {
        let x = Flight(61)
        let xIOS = Flight(62)
        let p = Flight(63)
        let q = Flight(64)
        let filename = "2026-08-04-XCS-AAA-04.igc"
        let two = "2026-08-05-XCS-AAA-05.igc"
        let pulled = [
            serverDocument(
                .flights, x.id, twin(filename, pilot: "Jérôme Rocher", imported: -7_200), clientSeconds: -7_200),
            serverDocument(
                .flights, xIOS.id,
                twin(
                    filename, pilot: "Jérôme Rocher", imported: -3_600,
                    ["isFavorite": .boolean(true), "comments": .string("Wave over the Eifel.")]),
                clientSeconds: -3_600),
            // The same filename and takeoff, another pilot: two flights, not duplicates.
            serverDocument(.flights, p.id, twin(two, pilot: "Anna Weber", imported: -7_200), clientSeconds: -7_200),
            serverDocument(.flights, q.id, twin(two, pilot: "Jonas Keller", imported: -3_600), clientSeconds: -3_600),
        ].compactMap { $0 }
        return scenario(
            "r4-same-pilot-merged", "schema §4",
            "After iOS's first full pull the copy imported later is merged into the one imported first (its favourite mark and comment kept there) and tombstoned; two flights with the same filename and takeoff but another pilotName are not duplicates and both stay.",
            [
                .serverCommit(writes: pulled, lateBySeconds: nil), advance(10), sync("b"),
                expect(
                    server: [
                        x.path: [
                            "deleted": .boolean(false), "isFavorite": .boolean(true),
                            "comments": .string("Wave over the Eifel."),
                        ],
                        xIOS.path: ["deleted": .boolean(true)],
                        p.path: ["deleted": .boolean(false), "pilotName": .string("Anna Weber")],
                        q.path: ["deleted": .boolean(false), "pilotName": .string("Jonas Keller")],
                    ], serverCounts: [.flights: 3]),
                advance(10), sync("a"),
                expect(
                    rows: ["a": [x.key: row(["isFavorite": .boolean(true)], dirty: false)]],
                    serverCounts: [.flights: 3],
                    converged: ["a", "b"]),
            ])
    }

    /// schema §4: the duplicate check is one-time, marked done by a local flag; the flag outlives a
    /// restart of the app, so a pair that arrives after it stays.
    static var r4OnceAcrossRestart: Scenario {
        let x = Flight(66)
        let xIOS = Flight(67)
        let y = Flight(68)
        let yIOS = Flight(69)
        let pilot = "Jérôme Rocher"
        let first = [
            serverDocument(
                .flights, x.id, twin("2026-08-06-XCS-AAA-06.igc", pilot: pilot, imported: -7_200),
                clientSeconds: -7_200),
            serverDocument(
                .flights, xIOS.id, twin("2026-08-06-XCS-AAA-06.igc", pilot: pilot, imported: -3_600),
                clientSeconds: -3_600),
        ].compactMap { $0 }
        let later = [
            serverDocument(
                .flights, y.id, twin("2026-08-07-XCS-AAA-07.igc", pilot: pilot, imported: 30), clientSeconds: 30),
            serverDocument(
                .flights, yIOS.id, twin("2026-08-07-XCS-AAA-07.igc", pilot: pilot, imported: 40), clientSeconds: 40),
        ].compactMap { $0 }
        return scenario(
            "r4-once-across-restart", "schema §4",
            "The duplicate check runs once, after iOS's first full pull, and stays done when the app is restarted: a pair that arrives after the restart stays.",
            [
                .serverCommit(writes: first, lateBySeconds: nil), advance(10), sync("b"),
                expect(server: [x.path: ["deleted": .boolean(false)], xIOS.path: ["deleted": .boolean(true)]]),
                advance(10), .restart(device: "b"), .serverCommit(writes: later, lateBySeconds: nil), advance(10),
                sync("b"),
                expect(
                    server: [y.path: ["deleted": .boolean(false)], yIOS.path: ["deleted": .boolean(false)]],
                    serverCounts: [.flights: 3], converged: ["b"]),
            ])
    }

    static var r4LogbookOnly: Scenario {
        let x = Flight(54)
        let recent = Flight(55)
        let local = Flight(56)
        let filename = "2026-08-03-XCS-AAA-03.igc"
        let pilot = "Jérôme Rocher"
        let pulled = [
            serverDocument(.flights, x.id, twin(filename, pilot: pilot, imported: -7_200), clientSeconds: -7_200),
            serverDocument(
                .flights, recent.id,
                twin(filename, pilot: pilot, imported: -3_600, inLogbook: false, ["lastOpenedAt": at(-3_600)]),
                clientSeconds: -3_600),
        ].compactMap { $0 }
        return scenario(
            "r4-logbook-only", "schema §4",
            "The duplicate check runs on the logbook after iOS's first full pull: a copy the iOS device imported into its logbook before it first synced is merged into the pulled flight and tombstoned, while a recents-only copy (not in the logbook) is left alone.",
            pins: [.duplicatesLogbookScope],
            [
                .serverCommit(writes: pulled, lateBySeconds: nil), advance(10),
                importFlight("b", local, twin(filename, pilot: pilot, imported: 10)), sync("b"),
                expect(
                    server: [
                        x.path: ["deleted": .boolean(false)],
                        recent.path: ["deleted": .boolean(false), "inLogbook": .boolean(false)],
                    ],
                    rows: ["b": [local.key: row(["deleted": .boolean(true)])]], serverCounts: [.flights: 2],
                    converged: ["b"]),
            ])
    }
}
