// The scenarios of schema §5.2 (pull).
import Foundation
import VultureFirestore
import VultureFirestoreTesting
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

extension ScenarioGoldens {
    static var pullPageEdgeTies: Scenario {
        let bases = (1...501).map(homebase)
        let sorted = bases.sorted { $0.id < $1.id }
        return scenario(
            "pull-page-edge-ties", "schema §5.2",
            "501 home bases committed at one instant share one updatedAt across the page edge of 500: the next page continues after (updatedAt, name), and a pull within the overlap ends (the runner's request budget fails a pull that asks for the same page again and again).",
            bases.map { .save(device: "a", collection: .homebases, id: nil, changes: $0.fields) } + [
                sync("a"),
                expect(server: [sorted[0].path: ["updatedAt": at(0)], sorted[500].path: ["updatedAt": at(0)]]),
                advance(20), sync("b"),
                expect(
                    rows: [
                        "b": [
                            sorted[499].key: row(sorted[499].fields, dirty: false),
                            sorted[500].key: row(sorted[500].fields, dirty: false),
                            sorted[0].key: row(sorted[0].fields, dirty: false),
                        ]
                    ], converged: ["b"]),
                advance(20), sync("b"),
                expect(rows: ["b": [sorted[500].key: row(sorted[500].fields, dirty: false)]], converged: ["b"]),
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
                expect(rows: ["b": [f.key: row(["isFavorite": .boolean(true)], dirty: true)]]),
                sync("b"),
                expect(server: [f.path: ["isFavorite": .boolean(true)]], converged: ["b"]),
            ])
    }

    static var retriedQuery: Scenario {
        let f = Flight(8)
        return scenario(
            "retried-query", "schema §5.2",
            "A pull query meets UNAVAILABLE once: the sync retries it and completes, or stops with UNAVAILABLE and the next sync completes.",
            [
                importFlight("a", f), sync("a"), advance(10),
                .fault(device: "b", request: .query, fault: .refuse(.unavailable)), syncOrFail("b", unavailable),
                advance(10), sync("b"),
                expect(rows: ["b": [f.key: row(["filename": .string(f.filename)], dirty: false)]], converged: ["b"]),
            ])
    }

    static var cursorPerCollection: Scenario {
        let base = homebase(5)
        let f = Flight(36)
        let url = "https://www.soaringspot.com/en_gb/eifel-2026/tasks/club/task-9-on-2026-08-09"
        let task = DocumentIds.taskId(externalUrl: url)
        return scenario(
            "cursor-per-collection", "schema §5.2",
            "Each collection keeps its own cursor: a task written five minutes after a flight does not move the flights' cursor past the flight, which the pull still brings.",
            [
                .save(device: "a", collection: .homebases, id: nil, changes: base.fields), sync("a"), advance(10),
                sync("b"), advance(10), importFlight("a", f), sync("a"), advance(300),
                .save(
                    device: "a", collection: .tasks, id: nil,
                    changes: ["name": .string("Task 9 Club"), "externalUrl": .string(url)]),
                sync("a"), advance(10), sync("b"),
                expect(
                    rows: [
                        "b": [
                            f.key: row(["filename": .string(f.filename)], dirty: false),
                            "tasks/\(task)": row(["name": .string("Task 9 Club")], dirty: false),
                        ]
                    ], converged: ["a", "b"]),
            ])
    }
}
