import Foundation
import VultureFirestore
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

// Scenarios in which another client commits documents that break the schema (schema §2): a pull
// must not stop at them, and (pin malformedDocumentHeld) a device keeps what it had.
extension ScenarioGoldens {
    /// A flight document another client wrote, broken four ways, one per flight: a wrong type, a
    /// missing required field, a string over its limit, a value outside its enum.
    static func malformedFlightWrites(_ flights: [Flight], clientSeconds: Int64) -> [FirestoreWrite] {
        var out: [FirestoreWrite] = []
        for (index, f) in flights.enumerated() {
            guard let valid = serverDocument(.flights, f.id, f.fields(), clientSeconds: clientSeconds),
                var fields = valid.fields
            else { continue }
            switch index % 4 {
            case 0: fields["rating"] = .string("five")
            case 1: fields["updatedBy"] = nil
            case 2: fields["comments"] = .string(String(repeating: "x", count: Int(SchemaLimits.commentsMaxChars) + 1))
            default: fields["platform"] = .string("windows")
            }
            if let write = try? FirestoreWrite(path: valid.path, fields: fields) { out.append(write) }
        }
        return out
    }

    static var malformedDocumentsDoNotStopThePull: Scenario {
        let broken = (0..<4).map { Flight(300 + $0) }
        let valid = [Flight(310), Flight(311)]
        let later = Flight(312)
        let validWrites = valid.compactMap { serverDocument(.flights, $0.id, $0.fields(), clientSeconds: -60) }
        return scenario(
            "malformed-documents-do-not-stop-the-pull", "schema §2, §5.2",
            "Another client commits four flights that break the schema (a wrong type, a missing required field, comments over 10,000 characters, a platform outside its enum) beside two valid ones: the sync succeeds, the valid flights arrive, a flight committed later arrives too, and the device's own edit is pushed. Recommended: the seed says nothing of a document that breaks the schema (pin malformedDocumentPassed).",
            pins: [.malformedDocumentPassed],
            [
                .serverCommit(
                    writes: malformedFlightWrites(broken, clientSeconds: -60) + validWrites, lateBySeconds: nil),
                advance(10), sync("b"),
                expect(rows: [
                    "b": [valid[0].key: row(["filename": .string(valid[0].filename)]), valid[1].key: row([:])]
                ]),
                advance(10),
                .serverCommit(
                    writes: [serverDocument(.flights, later.id, later.fields(), clientSeconds: 20)].compactMap { $0 },
                    lateBySeconds: nil),
                advance(10), edit("b", valid[0], ["comments": .string("b: thermals over the quarry")]), sync("b"),
                advance(10), sync("b"),
                expect(
                    server: [valid[0].path: ["comments": .string("b: thermals over the quarry")]],
                    rows: ["b": [later.key: row(["filename": .string(later.filename)], dirty: false)]]),
            ])
    }

    static var malformedDocumentHeld: Scenario {
        let f = Flight(320)
        let other = Flight(321)
        // Another client's edits of some fields (merge writes), so the flight keeps its blob map.
        func webEdit(_ fields: [String: FirestoreValue], clientSeconds: Int64) -> FirestoreWrite? {
            let all = with(
                fields,
                [
                    "updatedAt": .serverTimestamp, "clientUpdatedAt": at(clientSeconds),
                    "updatedBy": .string("web-1"),
                ])
            return try? FirestoreWrite(
                path: f.path, fields: all, mask: all.keys.sorted().map { FieldPath(unchecked: [$0]) })
        }
        let broken = webEdit(["comments": .string("web: rewritten"), "rating": .string("five")], clientSeconds: 25)
        let fixed = webEdit(["rating": .integer(0), "isFavorite": .boolean(true)], clientSeconds: 80)
        return scenario(
            "malformed-document-held", "schema §2, §5.3",
            "A flight both devices hold is overwritten by another client with a rating that is not an integer: device b keeps what it had and its own edit, does not write over the document it cannot read, and still receives a valid flight of the same commit; once a valid version arrives, b merges it and pushes its edit.",
            pins: [.malformedDocumentHeld],
            shared(f, f.fields(["comments": .string("a: first flight of the season")])) + [
                .serverCommit(
                    writes: [broken, serverDocument(.flights, other.id, other.fields(), clientSeconds: 25)]
                        .compactMap { $0 }, lateBySeconds: nil),
                advance(10), edit("b", f, ["gliderRegistration": .string("D-KB04")]), sync("b"),
                expect(
                    server: [f.path: ["rating": .string("five"), "comments": .string("web: rewritten")]],
                    rows: [
                        "b": [
                            f.key: row(
                                [
                                    "gliderRegistration": .string("D-KB04"),
                                    "comments": .string("a: first flight of the season"),
                                ],
                                dirty: true),
                            other.key: row([:], dirty: false),
                        ]
                    ]),
                advance(10), .serverCommit(writes: [fixed].compactMap { $0 }, lateBySeconds: nil), advance(10),
                sync("b"), advance(10), sync("a"),
                expect(
                    server: [
                        f.path: [
                            "gliderRegistration": .string("D-KB04"), "comments": .string("web: rewritten"),
                            "isFavorite": .boolean(true),
                        ]
                    ], converged: ["a", "b"]),
            ])
    }
}
