import Foundation
import Testing
import VultureFirestore
import VultureScenarios
import VultureSchemaCore
import VultureSimulation
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

/// Every scenario golden of Goldens/scenarios/ (Goldens/FORMAT.md, Scenarios): the reference engine
/// replays it on the in-memory backend with every expectation holding, and the simulation replays it
/// with every invariant kept.
@Suite struct ScenarioGoldenTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Goldens/scenarios")

    static var files: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test func thereAreAtLeast25CoveringEverySyncRuleSection() throws {
        #expect(Self.files.count >= 25)
        let sections = Set(try Self.files.map { try Scenario(contentsOf: $0).section })
        for section in [
            "schema §3", "schema §5.1", "schema §5.2", "schema §5.3", "schema §5.4", "schema §5.5", "schema §6",
        ] {
            #expect(sections.contains(section), "no scenario pins \(section)")
        }
    }

    @Test(arguments: files) func theReferenceEngineMeetsEveryExpectation(_ file: URL) throws {
        let scenario = try Scenario(contentsOf: file)
        let name = file.deletingPathExtension().lastPathComponent
        #expect(scenario.id == "scenario.\(name)")
        let expects = scenario.steps.filter { if case .expect = $0 { true } else { false } }
        #expect(!expects.isEmpty)
        let result = ScenarioReplay.run(scenario, backend: InMemoryScenarioBackend(start: scenario.start))
        #expect(result.failures == [], "\(file.lastPathComponent)")
    }

    /// The engine reaching Firestore through the Firebase SDKs' surface alone (snapshots without
    /// times, batches without preconditions, transactions) meets every expectation too: nothing the
    /// engine does needs more than an app on the SDKs has (README "The sync engine").
    @Test(arguments: files) func theEngineOverTheSDKSurfaceMeetsEveryExpectation(_ file: URL) throws {
        let scenario = try Scenario(contentsOf: file)
        let result = ScenarioReplay.run(
            scenario, backend: InMemoryScenarioBackend(start: scenario.start), sdkSurface: true)
        #expect(result.failures == [], "\(file.lastPathComponent)")
    }

    @Test(arguments: files) func theSimulationKeepsEveryInvariant(_ file: URL) throws {
        let scenario = try Scenario(contentsOf: file)
        let broken = try Simulation.check(scenario)
        #expect(
            broken == nil,
            "\(file.lastPathComponent): step \(broken?.step ?? -1): \(broken.map { "\($0.violation)" } ?? "")")
    }

    /// A broken expectation fails the replay with its pointer (a golden cannot pass by accident).
    @Test func aWrongExpectationFails() throws {
        let file = Self.folder.appendingPathComponent("reserve-upload-mark.json")
        var value = try CanonicalJSON.decode(try Data(contentsOf: file), file: file.lastPathComponent)
        guard case .map(var root) = value, case .array(var steps)? = root["steps"],
            let index = steps.lastIndex(where: { $0.mapValue?["op"] == .string("expect") }),
            case .map(var expect) = steps[index]
        else {
            Issue.record("reserve-upload-mark.json has no expect step")
            return
        }
        expect["storageBytes"] = .integer(1)
        steps[index] = .map(expect)
        root["steps"] = .array(steps)
        value = .map(root)
        let scenario = try Scenario(value, file: file.lastPathComponent)
        let result = ScenarioReplay.run(scenario, backend: InMemoryScenarioBackend(start: scenario.start))
        #expect(result.failures.count == 1)
        #expect(result.failures.first?.hasPrefix("/steps/\(index)/storageBytes: expected 1, actual ") == true)
    }

    /// A file with a broken step is refused with its file name and the step's JSON pointer.
    @Test func aBrokenStepNamesItsFileAndPointer() throws {
        let source = Self.folder.appendingPathComponent("quota-pause.json")
        var text = try String(contentsOf: source, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"op\": \"advance\"", with: "\"op\": \"wait\"")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = dir.appendingPathComponent("quota-pause.json")
        try Data(text.utf8).write(to: broken)
        do {
            _ = try Scenario(contentsOf: broken)
            Issue.record("accepted an unknown op")
        } catch {
            #expect(error.file == "quota-pause.json")
            // The first advance is step 4: import, fault, the paused sync, an expect.
            #expect(error.pointer == "/steps/4/op")
            #expect(error.description.hasPrefix("quota-pause.json: /steps/4/op: unknown op wait"))
        }
    }
}
