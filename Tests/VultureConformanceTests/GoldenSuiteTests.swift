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

    /// A goldens folder that lacks a part of the layout, or holds no case, is refused by name, not
    /// run as a smaller suite that passes; the parts it has are still read first.
    @Test func goldensMissingAPartOrEveryCaseAreRefused() throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("vulture-goldens-part-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        try fm.copyItem(
            at: GoldenSuite.defaultRoot.appendingPathComponent("VERSION"), to: dir.appendingPathComponent("VERSION"))
        let layout = "a goldens folder holds VERSION, schema/, vectors/, scenarios/ (Goldens/README.md)"
        #expect {
            try GoldenSuite.load(from: dir)
        } throws: { "\($0)" == "no schema/ or vectors/ or scenarios/ folder; \(layout)" }
        try fm.copyItem(
            at: GoldenSuite.defaultRoot.appendingPathComponent("schema"), to: dir.appendingPathComponent("schema"))
        #expect {
            try GoldenSuite.load(from: dir)
        } throws: { "\($0)" == "no vectors/ or scenarios/ folder; \(layout)" }
        // Every part present but empty: zero cases.
        try fm.removeItem(at: dir.appendingPathComponent("schema"))
        for folder in GoldenSuite.folders {
            try fm.createDirectory(at: dir.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        #expect {
            try GoldenSuite.load(from: dir)
        } throws: { "\($0)" == "no case: schema/, vectors/, scenarios/ hold no *.json golden" }
        // Every part present, one with cases: a subset is a suite.
        try fm.removeItem(at: dir.appendingPathComponent("schema"))
        try fm.copyItem(
            at: GoldenSuite.defaultRoot.appendingPathComponent("schema"), to: dir.appendingPathComponent("schema"))
        let subset = try GoldenSuite.load(from: dir)
        #expect(subset.cases.count == 32)
        #expect(subset.cases.allSatisfy { $0.op == "encode" })
    }

    /// A missing goldens folder or VERSION says why in the system's words, with no empty pointer.
    @Test func unreadableGoldensSayWhy() throws {
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("vulture-goldens-noversion-\(UUID().uuidString)")
        #expect {
            try GoldenSuite.load(from: dir)
        } throws: { "\($0)" == "No such file or directory" }
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        #expect {
            try GoldenSuite.load(from: dir)
        } throws: { "\($0)" == "VERSION: cannot read the suite version: No such file or directory" }
        try fm.createDirectory(at: dir.appendingPathComponent("VERSION"), withIntermediateDirectories: true)
        #expect {
            try GoldenSuite.load(from: dir)
        } throws: { "\($0)" == "VERSION: cannot read the suite version: Is a directory" }
    }
}
