import Foundation
import Testing
import VultureConformance
import VultureReference
import VultureSchemaCore
import VultureSyncSchema

/// The goldens travel as resources of VultureConformance, and a failure list travels with the test
/// bundle or sits beside the test file (README "In your own Swift tests").
@Suite struct BundledGoldensTests {
    static let repositoryGoldens = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Goldens")

    /// The files of the Goldens/ folder the suite loads, relative to it, sorted.
    static func goldenFiles(under root: URL) throws -> [String] {
        var paths = ["VERSION"]
        for folder in ["schema", "vectors"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
            paths += names.filter { $0.hasSuffix(".json") }.sorted().map { "\(folder)/\($0)" }
        }
        return paths
    }

    /// The bundle is a copy made by the build, not the checkout: same files, same bytes, elsewhere.
    @Test func theBundledGoldensAreACopyOfGoldens() throws {
        let bundled = GoldenSuite.defaultRoot.standardizedFileURL
        #expect(bundled.path != Self.repositoryGoldens.standardizedFileURL.path)
        #expect(bundled.path.hasSuffix(".resources") || bundled.path.contains(".bundle"), "\(bundled.path)")
        let files = try Self.goldenFiles(under: Self.repositoryGoldens)
        #expect(try Self.goldenFiles(under: bundled) == files)
        #expect(files.count > 10)
        for path in files {
            let inBundle = try Data(contentsOf: bundled.appendingPathComponent(path))
            let inCheckout = try Data(contentsOf: Self.repositoryGoldens.appendingPathComponent(path))
            #expect(inBundle == inCheckout, "\(path) differs between the bundle and Goldens/")
        }
        #expect(
            try GoldenSuite.load().cases.map(\.id) == GoldenSuite.load(from: Self.repositoryGoldens).cases.map(\.id))
    }

    /// The reference implementation, except that one case's document comes back as null.
    struct OneCaseWrong: ConformanceImplementation {
        var reference = ReferenceImplementation(schema: .vulture)
        mutating func answer(_ testCase: ConformanceCase) -> ImplementationAnswer {
            testCase.id == "required.schema.flight.android.write" ? .output(.null) : reference.answer(testCase)
        }
        mutating func answer(_ testCase: ConformanceCase, server: EngineServerChannel) -> ImplementationAnswer {
            reference.answer(testCase, server: server)
        }
    }

    @Test func aFailureListLoadsFromTheTestBundleAndFromTheTestsFolder() throws {
        let suite = try GoldenSuite.load()
        let fromBundle = try FailureList.load(resource: "known-failures.txt", in: .module)
        let fromFolder = try FailureList.load(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("known-failures.txt"))
        #expect(fromBundle.entries == ["required.schema.flight.android.write": 3])
        #expect(fromFolder.entries == fromBundle.entries)
        #expect(fromBundle.file.hasSuffix("known-failures.txt") && fromBundle.file != fromFolder.file)

        var wrong = OneCaseWrong()
        let listed = ConformanceRunner.run(suite.cases, on: &wrong, failureList: fromBundle)
        #expect(listed.exitStatus == 0)
        // A listed failure counts as skipped.
        #expect(listed.summary.line == "\(suite.cases.count - 1) passed, 0 failed, 1 skipped")
        #expect(listed.reconciliation.isExact)

        // The README's list (no entries) does not excuse the wrong case.
        let none = try FailureList.load(resource: "failure-list.txt", in: .module)
        #expect(none.entries.isEmpty)
        let unlisted = ConformanceRunner.run(suite.cases, on: &wrong, failureList: none)
        #expect(unlisted.exitStatus == 1)
        #expect(unlisted.reconciliation.unexpectedFailures == ["required.schema.flight.android.write"])
    }

    @Test func aMissingBundleResourceIsNamed() {
        #expect {
            try FailureList.load(resource: "no-such-list.txt", in: .module)
        } throws: { error in
            let message = "\(error)"
            return message.hasPrefix("no-such-list.txt: no resource no-such-list.txt in ")
                && message.hasSuffix("; list it in the test target's resources")
        }
    }
}
