import Foundation
import Testing
import VultureFirestore
import VultureScenarios
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

@Suite struct ScenarioReplayTests {
    static let start = FirestoreValue.timestamp(
        FirestoreTimestamp(seconds: 1_792_504_987, microseconds: 0, orEpoch: ()))

    static func scenario(_ steps: [FirestoreValue]) -> FirestoreValue {
        .map([
            "formatVersion": .integer(2), "id": .string("scenario.test"), "section": .string("schema §5"),
            "note": .string("test"), "pins": .array([]),
            "config": .map([
                "uid": .string("u1"), "start": start,
                "devices": .array([
                    .map(["name": .string("a"), "platform": .string("android")]),
                    .map(["name": .string("b"), "platform": .string("ios")]),
                ]),
            ]),
            "steps": .array(steps),
        ])
    }

    /// A homebase saved on device a is, after both sync, on the server and on device b.
    static func homebaseScenario() throws -> Scenario {
        let id = DocumentIds.homebaseId(name: "Aachen")
        return try Scenario(homebaseSteps(id))
    }

    static func homebaseSteps(_ id: String) -> FirestoreValue {
        Self.scenario([
            .map([
                "op": .string("save"), "device": .string("a"), "collection": .string("homebases"),
                "changes": .map(["name": .string("Aachen"), "latitude": .double(50.8), "longitude": .double(6.2)]),
            ]),
            .map(["op": .string("sync"), "device": .string("a")]),
            .map(["op": .string("advance"), "seconds": .integer(5)]),
            .map(["op": .string("sync"), "device": .string("b")]),
            .map([
                "op": .string("expect"),
                "server": .map(["users/u1/homebases/\(id)": .map(["name": .string("Aachen"), "usedAt": .null])]),
                "rows": .map([
                    "b": .map([
                        "homebases/\(id)": .map(["fields": .map(["latitude": .double(50.8)]), "dirty": .boolean(false)])
                    ])
                ]),
            ]),
        ])
    }

    @Test func aHomebaseSavedOnOneDeviceIsOnTheOther() throws {
        let id = DocumentIds.homebaseId(name: "Aachen")
        let scenario = try Self.homebaseScenario()
        let result = ScenarioReplay.run(scenario, backend: InMemoryScenarioBackend(start: scenario.start))
        #expect(result.failures == [])

        // A wrong expectation is reported with its pointer.
        let wrong = try Scenario(
            Self.scenario([
                .map([
                    "op": .string("expect"),
                    "server": .map(["users/u1/homebases/\(id)": .map(["name": .string("Aachen")])]),
                ])
            ]))
        let failed = ScenarioReplay.run(wrong, backend: InMemoryScenarioBackend(start: wrong.start))
        #expect(failed.failures == ["/steps/0/server/users~1u1~1homebases~1\(id): expected a document, found none"])
    }

    @Test func malformedStepsNameTheirPointer() {
        #expect(throws: ScenarioError.self) {
            try Scenario(Self.scenario([.map(["op": .string("jump"), "device": .string("a")])]))
        }
        do {
            _ = try Scenario(Self.scenario([.map(["op": .string("sync"), "device": .string("z")])]))
            Issue.record("accepted an unknown device")
        } catch {
            #expect(error.description == "/steps/0/device: no device z in config.devices")
        }
        // A device name is one pointer token: its `/` is escaped (found by the scenario fuzz target).
        do {
            _ = try Scenario(
                Self.scenario([.map(["op": .string("expect"), "rows": .map(["b/x~y": .map([:])])])]))
            Issue.record("accepted an unknown device")
        } catch {
            #expect(error.description == "/steps/0/rows/b~1x~0y: no device b/x~y in config.devices")
        }
    }
}
