import Foundation
import Testing
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// Failures explain themselves: hints name real fields as real, an id failure shows the text the
/// reference hashed, every failure carries its note, pins and input, and the JSON report has the
/// expected and actual answers as fields.
@Suite struct FailureReportTests {
    static let suite = Result { try GoldenSuite.load() }

    static func testCase(_ id: String) throws -> ConformanceCase {
        try #require(try suite.get().cases.first { $0.id == id }, "no case \(id)")
    }

    /// The hint of an `unexpected` difference at `pointer` when the answer adds `value` there.
    static func hint(adding key: String, _ value: FirestoreValue, in path: [String], to id: String) throws -> String? {
        let c = try testCase(id)
        guard case .output(let golden) = c.expected else { return nil }
        func add(_ v: FirestoreValue, _ rest: ArraySlice<String>) -> FirestoreValue {
            guard case .map(var m) = v else { return v }
            guard let first = rest.first else {
                m[key] = value
                return .map(m)
            }
            m[first] = add(m[first] ?? .map([:]), rest.dropFirst())
            return .map(m)
        }
        guard case .failed(_, let differences) = c.judge(.output(add(golden, path[...]))) else { return nil }
        return differences.first { $0.kind == .unexpected }?.hint
    }

    @Test func hintsNameRealFieldsAsReal() throws {
        // A summary without thermalAltitudeGained (decode case): the field is real, only absent here.
        let optional = try Self.hint(
            adding: "thermalAltitudeGained", .integer(1), in: ["summary"],
            to: "required.decode.flight.thermal-altitude-absent")
        #expect(
            optional
                == "FlightSummary.thermalAltitudeGained is a field of the schema (optional, nullable), but the golden does not have it here"
        )
        let homeBase = try Self.hint(
            adding: "VultureHomebaseLatitude", .double(0), in: ["kvs"],
            to: "recommended.settings.to-ios.home-base-null")
        #expect(
            homeBase
                == "VultureHomebaseLatitude is an iOS key of the settings key homeBase, but the golden does not write it here"
        )
        let invented = try Self.hint(
            adding: "glideRatio", .double(40), in: ["document"], to: "required.schema.flight.android.write")
        #expect(invented == "the schema has no such field here")
        let misspelt = try Self.hint(
            adding: "waterBalast", .integer(0), in: ["document"], to: "required.schema.flight.android.write")
        #expect(misspelt == "did you mean waterBallast?")
        let settingsKey = try Self.hint(
            adding: "showAirspaceLabelz", .map([:]), in: ["document", "values"],
            to: "required.schema.settings.ios.stored")
        #expect(settingsKey == "the schema has no such field here")
        let blob = try Self.hint(adding: "size", .integer(0), in: [], to: "required.blobs.metadata.igc")
        #expect(blob == "the golden has no such member here")
    }

    @Test func anIdFailureShowsTheExactHashedText() throws {
        let c = try Self.testCase("required.ids.homebase.next-line")
        let result = CaseResult(
            id: c.id, section: c.section, outcome: c.judge(.output(.string(String(repeating: "0", count: 64)))),
            testCase: c, answer: .output(.string(String(repeating: "0", count: 64))))
        let lines = ConformanceRunner.failureLines(result)
        #expect(lines.contains(#"  the reference hashed "\u0085bierset" (9 UTF-8 bytes)"#), "\(lines)")
        #expect(lines.contains("  note: U+0085 is not whitespace to Kotlin: kept; Swift and Python trim it"))
        #expect(lines.contains { $0.hasPrefix("  rests on pin homebaseNormalization (schema): name.trim()") })
        #expect(lines.last == #"  input: {"name": "\u0085Bierset"}"#)
        // A required case skipped is a failure too, explained as any other.
        var skipping = MutantImplementation(fault: { _, _ in .skipped(reason: "not implemented") })
        let skipped = ConformanceRunner.run([c], on: &skipping).results[0]
        #expect(ConformanceRunner.failureLines(skipped).last == #"  input: {"name": "\u0085Bierset"}"#)
        let bom = try Self.testCase("required.ids.homebase.byte-order-mark")
        #expect(
            FailureExplanation.hashedText(op: bom.op, input: bom.input)
                == #""\ufeffbierset\ufeff" (13 UTF-8 bytes)"#)
        let mapFile = try Self.testCase("recommended.ids.map-file.xcsoar-airspace")
        #expect(
            FailureExplanation.hashedText(op: mapFile.op, input: mapFile.input)
                == #""XCSOAR|AIRSPACE|germany.txt" (27 UTF-8 bytes)"#)
    }

    @Test func aLongInputIsCutAndARejectionExplained() throws {
        let c = try Self.testCase("required.ids.recent-competition.too-long")
        let result = CaseResult(
            id: c.id, section: c.section, outcome: c.judge(.output(.string("x"))), testCase: c,
            answer: .output(.string("x")))
        let lines = ConformanceRunner.failureLines(result)
        #expect(lines.contains("  expected rejection id.too-long: A document id over Firestore's 1,500 UTF-8 bytes."))
        let input = try #require(lines.last)
        #expect(input.hasSuffix("… (772 characters; the JSON report has all of it)"), "\(input)")
        #expect(input.count < 400)
    }

    @Test func theJSONReportCarriesExpectedAndActualAsFields() throws {
        let c = try Self.testCase("required.ids.recent-competition.slash")
        let answer = ImplementationAnswer.error(code: "id.empty", message: "empty")
        let result = CaseResult(id: c.id, section: c.section, outcome: c.judge(answer), testCase: c, answer: answer)
        let json = try CanonicalJSON.decode(
            Array(
                RunReport.json([result], summary: RunSummary(failed: 1), reconciliation: nil, suiteVersion: "1.0.0")
                    .utf8))
        let entry = try #require(
            json[fieldPath: "cases"].flatMap { if case .array(let a) = $0 { a.first } else { nil } })
        #expect(entry[fieldPath: "expectedError"] == .string("id.contains-slash"))
        #expect(entry[fieldPath: "actualError"] == .string("id.empty"))
        #expect(entry[fieldPath: "expected.error"] == .string("id.contains-slash"))
        #expect(entry[fieldPath: "actual.error.message"] == .string("empty"))
        #expect(entry[fieldPath: "input.competitionId"] == .string("sgp/2026"))
        #expect(entry[fieldPath: "op"] == .string("id.recentCompetition"))
        #expect(entry[fieldPath: "area"] == .string("ids.recentCompetition"))
        #expect(entry[fieldPath: "note"] == .string("a document id cannot hold '/'"))
        #expect(entry[fieldPath: "pins"] == .array([.string("recentCompetitionIdValidity")]))
    }

    @Test func areasAndWritersSelectCases() throws {
        let cases = try Self.suite.get().cases
        #expect(try Self.testCase("required.schema.flight.ios.write").area == "schema.flights")
        #expect(try Self.testCase("required.ids.homebase.trim").isIn(area: "ids"))
        #expect(try !Self.testCase("required.ids.homebase.trim").isIn(area: "id"))
        #expect(try Self.testCase("required.schema.flight.ios.write").writerPlatform == "ios")
        #expect(try Self.testCase("required.ids.homebase.trim").writerPlatform == nil)
        let flights = cases.filter { $0.isIn(area: "schema.flights") }
        #expect(flights.count > 10)
        #expect(flights.allSatisfy { ["encode", "decode", "validate", "merge.payload"].contains($0.op) })
        // Every encode-like case exists for both writers.
        let written = cases.filter { $0.writerPlatform != nil }
        #expect(written.filter { $0.writerPlatform == "ios" }.count == written.count / 2)
    }

    /// A failure list written for a run makes the same run pass (`--write-failure-list` then `--failure-list`).
    @Test func aWrittenFailureListMakesTheRunExact() throws {
        var implementation = MutantImplementation(fault: { c, answer in
            c.op == "id.homebase" || c.op == "settings.merge" ? .skipped(reason: "not yet") : answer
        })
        let cases = try Self.suite.get().cases
        let first = ConformanceRunner.run(cases, on: &implementation)
        #expect(first.exitStatus == 1)
        let text = FailureList.text(for: first, header: ["test"])
        #expect(text.contains("\n# ids.homebase\nrequired.ids.homebase.plain  # skipped: not yet\n"))
        let list = try FailureList(text: text, file: "written.txt")
        #expect(list.entries.count == first.results.filter { $0.outcome.isFailed }.count)
        let second = ConformanceRunner.run(cases, on: &implementation, failureList: list)
        #expect(second.exitStatus == 0)
        #expect(second.reconciliation.isExact)
    }
}
