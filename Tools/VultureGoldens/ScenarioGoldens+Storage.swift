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
            "A free user at the 100,000,000-byte cap: the flight's metadata syncs and the row is clean, its file stays local; once the token says Pro the file is reserved and uploaded.",
            [
                .serverCommit(writes: [profile, mapFile].compactMap { $0 }, lateBySeconds: nil), advance(10),
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
