import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSchemaGenerator

/// `Spec/rules.tsv`, `Spec/operations.tsv` and the pins' kinds: read, checked, and turned into the
/// Swift enums, the operation schemas and the protocol page's generated regions.
@Suite struct RegistryTableTests {
    @Test func theShapeNotationReadsAndWritesBack() throws {
        let text =
            "{kind: \"igc\"|\"content\", uid: string, recordId?: string, values: {*settingsKey: settingsEntry}, list: [integer]}"
        let shape = try OperationShape(parsing: text)
        #expect(shape.description == text)
        #expect(shape.namesUsed == ["string", "string", "settingsEntry", "integer"])
        for (bad, message) in [
            ("{a: strin}", "unknown shape 'strin'"), ("{a: string", "expected , or }"),
            ("{*foo: any}", "unknown key set 'foo'"),
            ("{a: string, a: integer}", "member a twice"), ("[string", "expected ]"),
        ] {
            #expect(throws: OperationShape.ParseError.self) { try OperationShape(parsing: bad) }
            do {
                _ = try OperationShape(parsing: bad)
            } catch {
                #expect(error.message.hasPrefix(message), "\(bad): \(error)")
            }
        }
    }

    @Test func tableProblemsStopTheGeneratorWithTheirLine() throws {
        let copy = try SpecCopy()
        let ruleLine = try copy.replaceLine("rules.tsv", startingWith: "json.syntax\t") {
            replacingCell($0, column: 1, with: "Rule.jsonSyntax")
        }
        let opLine = try copy.replaceLine("operations.tsv", startingWith: "id.flight\t") {
            replacingCell(replacingCell($0, column: 3, with: "{igc: byts}"), column: 5, with: "nope.*")
        }
        let encodeLine = try copy.replaceLine("operations.tsv", startingWith: "encode\t") {
            replacingCell($0, column: 3, with: "{form: form, fixture: fixture}")
        }
        let pinLine = try copy.replaceLine("pins.tsv", startingWith: "charCount\t") {
            replacingCell($0, column: 5, with: "maybe")
        }
        let errors = copy.loadErrors().map(\.description)
        #expect(
            errors.contains(
                "Spec/rules.tsv:\(ruleLine): swift item 'Rule.jsonSyntax' must be Enum.caseName with Enum one of InputRule, SchemaRule, ErrorCode"
            ), "\(errors)")
        #expect(errors.contains { $0.hasPrefix("Spec/operations.tsv:\(opLine): column 'input': unknown shape 'byts'") })
        #expect(
            errors.contains(
                "Spec/operations.tsv:\(encodeLine): op encode: a collection-dependent input needs a collection member"))
        #expect(errors.contains { $0.hasPrefix("Spec/pins.tsv:\(pinLine): unknown kind 'maybe'") })
    }

    @Test func anOperationsErrorMustNameARule() throws {
        let copy = try SpecCopy()
        let line = try copy.replaceLine("operations.tsv", startingWith: "id.flight\t") {
            replacingCell($0, column: 5, with: "nope.*,input.shape")
        }
        #expect(
            copy.loadErrors().map(\.description) == [
                "Spec/operations.tsv:\(line): op id.flight: error 'nope.*' matches no rule of rules.tsv"
            ])
    }

    /// A new rule row is a new enum case, a registry row, a line of both pages.
    @Test func anAddedRuleReachesTheEnumAndThePages() throws {
        let copy = try SpecCopy()
        try copy.edit("rules.tsv") { lines in
            lines.append(
                ["gzip.bomb", "ErrorCode.gzipBomb", "A stream too large.", "schema §2", "`x`", "000 §2"].joined(
                    separator: "\t"))
        }
        let files = SchemaGenerator.generate(spec: try SchemaSpec.load(from: copy.directory))
        let swift = try #require(files.first { $0.relativePath == SwiftRegistryEmitter.protocolPath }).contents
        #expect(swift.contains("    case gzipBomb = \"gzip.bomb\"\n"))
        #expect(swift.contains("            id: \"gzip.bomb\",\n"))
        let region = try #require(files.first { $0.region == "rules" }).contents
        #expect(region.contains("| `gzip.bomb` | A stream too large. | schema §2 | `x` |"))
        let page = try #require(files.first { $0.relativePath == "Goldens/SCHEMA.md" }).contents
        #expect(page.contains("| `gzip.bomb` | A stream too large. | schema §2 | `x` |"))
    }

    /// A hand-written page without its markers is an error for write and a report for check; a page
    /// with them gets the region spliced between them, the rest untouched.
    @Test func regionsAreSplicedBetweenTheirMarkers() throws {
        let copy = try SpecCopy()
        let page = copy.root.appendingPathComponent("Goldens/protocol/README.md")
        try FileManager.default.createDirectory(at: page.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("# Page\n\nhand-written\n".utf8).write(to: page)
        let files = SchemaGenerator.generate(spec: try SchemaSpec.load(from: specDirectory))
        let regions = files.filter { $0.region != nil && $0.relativePath == "Goldens/protocol/README.md" }
        #expect(throws: SchemaGenerator.RegionError.self) { try SchemaGenerator.write(files: regions, to: copy.root) }
        #expect(
            SchemaGenerator.check(files: regions, against: copy.root).allSatisfy { $0.hasPrefix("missing region: ") })
        var text = "# Page\n\nbefore\n"
        for r in regions {
            text +=
                GeneratedFile.regionStart(r.region!) + "\nold\n" + GeneratedFile.regionEnd(r.region!)
                + "\nafter \(r.region!)\n"
        }
        try Data(text.utf8).write(to: page)
        #expect(SchemaGenerator.check(files: regions, against: copy.root).count == 4)
        #expect(try SchemaGenerator.write(files: regions, to: copy.root) == ["Goldens/protocol/README.md"])
        #expect(SchemaGenerator.check(files: regions, against: copy.root).isEmpty)
        let written = try String(contentsOf: page, encoding: .utf8)
        #expect(written.hasPrefix("# Page\n\nbefore\n"))
        #expect(written.contains(GeneratedFile.regionEnd("rules") + "\nafter rules\n"))
        #expect(!written.contains("\nold\n"))
    }

    /// The encode fixture of each collection lists the inputs the reference encoder reads.
    @Test func fixtureInputsFollowFromTheTables() throws {
        let spec = try SchemaSpec.load(from: specDirectory)
        let emitter = OperationSchemaEmitter(spec: spec)
        func inputs(_ name: String) -> [String] {
            emitter.fixtureInputs(spec.collection(named: name)!).map(\.name)
        }
        #expect(inputs("flights") == ["igc"])
        #expect(inputs("mapFiles") == ["content", "fileId"])
        #expect(inputs("tasks") == ["taskId"])
        #expect(inputs("recentCompetitions") == ["competitionId"])
        #expect(inputs("users") == ["storageBytesBefore", "storageBytesDelta"])
        #expect(inputs("settings") == ["values"])
        #expect(inputs("homebases") == [])
        #expect(emitter.builtFields(of: "FlightDocument") == ["igc"])
    }
}
