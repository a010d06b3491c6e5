// The scenarios of the recents trim (schema §5.3, §5.5).
import Foundation
import VultureFirestore
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

extension ScenarioGoldens {
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

    /// 52 logbook flights another client wrote, all opened at one instant, reaching the two devices in
    /// different orders, neither of them the id order: the middle of the ids in a first commit that
    /// device a pulls, then the smallest and largest in a commit visible late (its `updatedAt` before
    /// the first's), which a's next pull brings last and device b, pulling once, first. An engine
    /// that ranks equal instants by arrival, earliest or latest first, clears dates in the middle of
    /// the id order on one of the devices. Both devices pull, trim, then sync.
    static func sameInstantSteps() -> (steps: [ScenarioStep], sorted: [Flight], opened: FirestoreValue) {
        let flights = (0..<52).map { Flight(200 + $0) }.sorted { $0.id < $1.id }
        let opened = at(-3_600)
        func writes(_ part: [Flight]) -> [FirestoreWrite] {
            part.compactMap { f in
                serverDocument(
                    .flights, f.id, f.fields(inLogbook: true, ["lastOpenedAt": opened]), clientSeconds: -3_600)
            }
        }
        let middle = Array(flights[13..<39])
        let ends = Array(flights[0..<13]) + Array(flights[39...])
        let steps: [ScenarioStep] = [
            .serverCommit(writes: writes(middle), lateBySeconds: nil), advance(10), pull("a"), advance(10),
            .serverCommit(writes: writes(ends), lateBySeconds: 60), advance(10), pull("b"), advance(10), pull("a"),
            advance(10), sync("a"), advance(10), sync("b"), advance(10), sync("a"),
        ]
        return (steps, flights, opened)
    }

    static var recentsTieSameInstant: Scenario {
        let (steps, sorted, opened) = sameInstantSteps()
        // Ranks 2…49 keep their dates whichever way equal instants are ranked by id.
        var server: [String: [String: FirestoreValue]?] = [:]
        for f in sorted[2..<50] { server[f.path] = ["lastOpenedAt": opened, "inLogbook": .boolean(true)] }
        return scenario(
            "recents-tie-same-instant", "schema §5.5",
            "52 logbook flights opened at one instant arrive on two devices in different orders, neither of them the id order: both trim by id, so they clear the same two dates and the 48 in the middle of the id order keep theirs everywhere.",
            steps + [expect(server: server, serverCounts: [.flights: 52], converged: ["a", "b"])])
    }

    static var recentsTieSmallerIdKeeps: Scenario {
        let (steps, sorted, opened) = sameInstantSteps()
        var server: [String: [String: FirestoreValue]?] = [:]
        for f in sorted[0..<2] { server[f.path] = ["lastOpenedAt": opened] }
        for f in sorted[50...] { server[f.path] = ["lastOpenedAt": .null, "inLogbook": .boolean(true)] }
        return scenario(
            "recents-tie-smaller-id-keeps", "schema §5.5",
            "Flights opened at the same instant are ranked by id in ascending UTF-8 byte order: of 52, the two largest ids lose their dates.",
            pins: [.recentsTieOrder], steps + [expect(server: server, converged: ["a", "b"])])
    }
}
