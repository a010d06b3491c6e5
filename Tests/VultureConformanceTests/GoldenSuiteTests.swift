import Foundation
import Testing
import VultureConformance
import VultureReference
import VultureSchemaCore
import VultureSyncSchema

@Suite struct GoldenSuiteTests {
    static let suite = Result { try GoldenSuite.load() }

    @Test func goldensLoadWithASemanticVersion() throws {
        let suite = try Self.suite.get()
        #expect(suite.version.split(separator: ".").count == 3)
        #expect(suite.cases.count >= 40)
    }

    /// Checked-in goldens are byte-canonical: reading and writing one gives its bytes back.
    @Test func everyGoldenFileIsByteCanonical() throws {
        let suite = try Self.suite.get()
        for (path, value) in suite.files {
            let bytes = try Data(contentsOf: GoldenSuite.defaultRoot.appendingPathComponent(path))
            #expect(CanonicalJSON.encode(value) == [UInt8](bytes), "\(path) is not byte-canonical")
        }
    }

    /// Every case id is hierarchical, required or recommended, and names its schema section.
    @Test func caseIdsAndSections() throws {
        for c in try Self.suite.get().cases {
            #expect(c.id.hasPrefix("required.") || c.id.hasPrefix("recommended."), "\(c.id)")
            #expect(c.id.split(separator: ".").count >= 3, "\(c.id)")
            #expect(c.section.hasPrefix("schema §"), "\(c.id): \(c.section)")
        }
    }

    /// The reference implementation passes the whole suite.
    @Test func referenceImplementationPassesEveryCase() throws {
        let suite = try Self.suite.get()
        var reference = ReferenceImplementation(schema: .vulture)
        let run = ConformanceRunner.run(suite.cases, on: &reference)
        let failures = run.results.filter { !$0.outcome.isPassed }.map { "\($0.id): \($0.outcome)" }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        #expect(run.exitStatus == 0)
    }

    @Test func malformedVectorFileIsNamed() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-goldens-bad-\(getpid())")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("vectors"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("1.0.0\n".utf8).write(to: dir.appendingPathComponent("VERSION"))
        try Data(
            "{\"area\": \"x\", \"cases\": [{\"id\": \"required.x.y\", \"section\": \"schema §1\", \"op\": \"o\", \"input\": {}}]}"
                .utf8
        )
        .write(to: dir.appendingPathComponent("vectors/x.json"))
        #expect {
            try GoldenSuite.load(from: dir)
        } throws: { error in
            "\(error)" == "vectors/x.json: /cases/0: a case has exactly one of output and error (a rule id)"
        }
    }
}
