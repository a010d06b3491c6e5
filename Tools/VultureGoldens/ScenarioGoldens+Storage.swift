// The scenarios of the storage cap (schema §6) and the daily quota (schema §3).
import Foundation
import VultureFirestore
import VultureFirestoreTesting
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

extension ScenarioGoldens {
    static var storageCapThenPro: Scenario {
        let f = Flight(27)
        // Other devices reserved four map files of 24,999,975 gzipped bytes each (99,999,900 in all), whose
        // uploads are still pending: each object stays under the 32,000,000-byte object cap
        // (limits.tsv storageObjectMaxBytes), so every seeded document is valid.
        let reserved: Int64 = SchemaLimits.storageCapBytes - 100
        let parts: Int64 = 4
        let mapFiles: [(id: String, write: FirestoreWrite?)] = (0..<parts).map { k in
            let hash = String(repeating: String(k), count: 64)
            let map: FirestoreValue = .map([
                "path": .string((try? BlobPaths.contentObjectPath(uid: uid, contentHash: hash)) ?? ""),
                "gzBytes": .integer(reserved / parts),
                "sizeBytes": .integer(reserved / parts + 5_000), "uploaded": .boolean(false),
            ])
            let id =
                (try? DocumentIds.documentId(
                    collection: .mapFiles,
                    fields: ["type": .string("AIRSPACE"), "source": .string("USER"), "contentHash": .string(hash)]
                ).id) ?? ""
            let write = serverDocument(
                .mapFiles, id,
                [
                    "type": .string("AIRSPACE"), "source": .string("USER"), "filename": .string("europe-\(k).txt"),
                    "contentHash": .string(hash), "content": map,
                ], clientSeconds: 0)
            return (id, write)
        }
        let mapFileId = mapFiles.last?.id ?? ""
        let profile = try? FirestoreWrite(
            path: profilePath,
            fields: [
                "schema": .integer(SchemaConstants.schemaVersion), "createdAt": at(-86_400), "lastSeenAt": at(0),
                "platforms": .array([.string("android")]), "storageBytes": .integer(reserved),
                "storageRef": .map(["collection": .string("mapFiles"), "id": .string(mapFileId)]),
            ])
        return scenario(
            "storage-cap-then-pro", "schema §6",
            "A free user at the 100,000,000-byte cap: the flight's metadata syncs and the row is clean, its file stays local; once the token says Pro the file is reserved and uploaded.",
            [
                .serverCommit(writes: ([profile] + mapFiles.map(\.write)).compactMap { $0 }, lateBySeconds: nil),
                advance(10),
                importFlight("a", f), sync("a"),
                expect(
                    server: [f.path: ["igc": .null, "filename": .string(f.filename)]],
                    rows: ["a": [f.key: row(["igc": .null], dirty: false, file: true)]], objects: [f.object: false],
                    storageBytes: .value(reserved)),
                advance(60), .entitlements(device: "a", [SchemaConstants.proEntitlement]), sync("a"),
                expect(
                    server: [f.path: f.igc(uploaded: true)], objects: [f.object: true], storageBytes: .counted,
                    converged: ["a"]),
            ])
    }

    /// The sync that meets the daily quota error: it ends paused, or with the quota's status (how it
    /// reports the error the seed leaves free; the pause after it is checked).
    static let quotaMet = StepOutcomes([paused, FirestoreStatus.resourceExhausted.rawValue])

    static var quotaPause: Scenario {
        let f = Flight(28)
        return scenario(
            "quota-pause", "schema §3",
            "A daily quota error (RESOURCE_EXHAUSTED) pauses sync until the next day: the sync that met it ends paused or with that status, an hour later the sync is still paused and sends nothing, two days later it runs; nothing is lost.",
            [
                importFlight("a", f), .fault(device: "a", request: .commit, fault: .refuse(.resourceExhausted)),
                sync("a", error: quotaMet), expect(server: [f.path: nil]),
                advance(3_600), sync("a", error: .failure(paused)),
                expect(
                    server: [f.path: nil], rows: ["a": [f.key: row(["filename": .string(f.filename)], dirty: true)]],
                    requests: ["a": 0]),
                advance(2 * 86_400), sync("a"),
                expect(
                    server: [f.path: f.igc(uploaded: true)],
                    rows: ["a": [f.key: row(f.igc(uploaded: true), dirty: false)]], objects: [f.object: true],
                    storageBytes: .counted, converged: ["a"]),
            ])
    }

    /// schema §3 "pauses sync until the next day": the pause is the device's, kept when the app is
    /// killed and started again.
    static var quotaPauseSurvivesRestart: Scenario {
        let f = Flight(65)
        return scenario(
            "quota-pause-survives-restart", "schema §3",
            "A daily quota error pauses sync until the next day, across a restart of the app: an hour later, restarted, the sync is still paused and sends nothing; two days later it runs and nothing is lost.",
            [
                importFlight("a", f), .fault(device: "a", request: .commit, fault: .refuse(.resourceExhausted)),
                sync("a", error: quotaMet), expect(server: [f.path: nil]),
                advance(3_600), .restart(device: "a"), sync("a", error: .failure(paused)),
                expect(server: [f.path: nil], requests: ["a": 0]),
                advance(2 * 86_400), sync("a"),
                expect(server: [f.path: f.igc(uploaded: true)], objects: [f.object: true], converged: ["a"]),
            ])
    }

    static var quotaPauseNextUTCDay: Scenario {
        let f = Flight(48)
        return scenario(
            "quota-pause-next-utc-day", "schema §3",
            "A daily quota error pauses sync until 00:00 UTC of the next day by the device clock: one second before it the sync is still paused, at midnight it runs.",
            pins: [.quotaPauseNextUTCDay],
            [
                importFlight("a", f), .fault(device: "a", request: .commit, fault: .refuse(.resourceExhausted)),
                sync("a", error: quotaMet), expect(server: [f.path: nil]),
                // 2026-10-20T14:03:07Z + 35,812 s = 2026-10-20T23:59:59Z.
                advance(35_812), sync("a", error: .failure(paused)), expect(server: [f.path: nil], requests: ["a": 0]),
                advance(1), sync("a"),
                expect(server: [f.path: f.igc(uploaded: true)], converged: ["a"]),
            ])
    }
}
