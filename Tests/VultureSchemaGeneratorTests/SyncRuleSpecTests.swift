import Foundation
import Testing

@testable import VultureSchemaGenerator

/// `Spec/sync-rules.tsv`: read into typed rows, checked against the other tables, and generated into
/// `SyncRules.swift` (rows with typed values, the merge dispatch) and a section of `Goldens/SCHEMA.md`.
@Suite struct SyncRuleSpecTests {
    let spec: SchemaSpec

    init() throws { spec = try SchemaSpec.load(from: specDirectory) }

    func rule(_ name: String) throws -> SyncRuleSpec { try #require(spec.syncRules.first { $0.name == name }) }

    /// The load errors of a copy whose row `name` has cell `column` (0 area … 3 subject, 4 value) replaced, and its line.
    func errors(editing name: String, column: Int, to value: String) throws -> (line: Int, errors: [String]) {
        let copy = try SpecCopy()
        let area = try rule(name).area.rawValue
        let line = try copy.replaceLine("sync-rules.tsv", startingWith: "\(area)\t\(name)\t") {
            replacingCell($0, column: column, with: value)
        }
        return (line, copy.loadErrors().map(\.description))
    }

    @Test func rowsAreTyped() throws {
        #expect(try rule("pullThenPush").steps == ["pull", "push"])
        #expect(try rule("recentsCap").kind == .parameter)
        #expect(spec.syncRuleParameter(try rule("recentsCap"))?.value == 50)
        #expect(spec.syncRuleParameter(try rule("recentsCap"))?.swift == "SchemaLimits.recentsMax")
        #expect(spec.syncRuleParameter(try rule("purgeAge"))?.swift == "SchemaConstants.tombstoneRetentionDays")
        #expect(spec.syncRuleParameter(try rule("blobChangesPerBatch"))?.value == 1)
        #expect(try rule("recentsTieById").subject == SyncRuleSubject(parsing: "FlightDocument.__name__"))
        #expect(try rule("r4SameTakeoff").subject?.path == "summary.takeoffAt")
        #expect(try rule("r4SamePilot").word == "equal")
        #expect(try rule("summaryRank").word == "summary.analysisVersion")
        #expect(Set(spec.syncRules.map(\.area)) == Set(SyncRuleArea.allCases))
    }

    @Test func theThreeTrimRefinementsAndTheEngineOrderFactsAreRows() throws {
        for name in [
            "recentsTieById", "recentsStranded", "recentsServerRowsOnly", "pullThenPush", "cursorLargestUpdatedAt",
            "blobChangesPerBatch", "blobReserveUploadMark",
        ] {
            #expect(spec.syncRules.contains { $0.name == name }, "\(name)")
        }
        #expect(try rule("blobReserveUploadMark").steps == ["reserve", "upload", "markUploaded"])
        #expect(try rule("cursorLargestUpdatedAt").steps == [])
    }

    @Test func aSubjectNamingNoFieldIsRefused() throws {
        let (line, errors) = try errors(editing: "r4SamePilot", column: 3, to: "FlightDocument.pilot")
        #expect(
            errors == [
                "Spec/sync-rules.tsv:\(line): subject FlightDocument.pilot names a field that does not exist in fields.tsv"
            ])
    }

    @Test func aParameterNamingNoLimitIsRefused() throws {
        let (line, errors) = try errors(editing: "recentsCap", column: 4, to: "\"limits.recentMax\"")
        #expect(
            errors == [
                "Spec/sync-rules.tsv:\(line): a parameter is an integer, or \"limits.NAME\" / \"constants.NAME\" naming an integer row"
            ])
    }

    @Test func aCriterionWithAnUnknownMatchIsRefused() throws {
        let (line, errors) = try errors(editing: "r4SameFilename", column: 4, to: "\"similar\"")
        #expect(
            errors == ["Spec/sync-rules.tsv:\(line): a criterion row's value is one of \"equal\", \"equalNonNull\""])
    }

    @Test func aFactWithAValueIsRefused() throws {
        let (line, errors) = try errors(editing: "recentsStranded", column: 4, to: "true")
        #expect(errors == ["Spec/sync-rules.tsv:\(line): a fact row has no value (write -)"])
    }

    @Test func aRankedMergeRuleNeedsItsRankField() throws {
        let copy = try SpecCopy()
        try copy.edit("sync-rules.tsv") { lines in lines.removeAll { $0.hasPrefix("merge\tsummaryRank\t") } }
        let line = try copy.lineNumber("merge-rules.tsv", startingWith: "FlightDocument\tsummary\t")
        #expect(
            copy.loadErrors().map(\.description) == [
                "Spec/merge-rules.tsv:\(line): ranked merge rule for FlightDocument.summary has no rankBy row in sync-rules.tsv"
            ])
    }

    @Test func aBlobMapMergeRuleNeedsAnObjectIdentity() throws {
        let copy = try SpecCopy()
        try copy.edit("sync-rules.tsv") { lines in lines.removeAll { $0.hasPrefix("merge\tigcObjectIdentity\t") } }
        let line = try copy.lineNumber("merge-rules.tsv", startingWith: "FlightDocument\tigc\t")
        #expect(
            copy.loadErrors().map(\.description) == [
                "Spec/merge-rules.tsv:\(line): blob map merge rule for FlightDocument.igc has no object-identity criterion in sync-rules.tsv"
            ])
    }

    @Test func aRepeatedNameIsRefused() throws {
        let copy = try SpecCopy()
        let first = try copy.lineNumber("sync-rules.tsv", startingWith: "trim\trecentsStranded\t")
        let line = try copy.replaceLine("sync-rules.tsv", startingWith: "trim\trecentsAfterEveryPull\t") {
            replacingCell($0, column: 1, with: "recentsStranded")
        }
        #expect(
            copy.loadErrors().map(\.description) == [
                "Spec/sync-rules.tsv:\(line): sync rule recentsStranded repeats the one at Spec/sync-rules.tsv:\(first)"
            ])
    }

    @Test func generatedDispatchAndRowsFollowTheTables() throws {
        let files = SchemaGenerator.generate(spec: spec)
        let swift = try #require(files.first { $0.relativePath == SwiftSyncRulesEmitter.path }).contents
        #expect(swift.contains("case .recentsCap: SchemaLimits.recentsMax"))
        #expect(swift.contains("case .r4SamePilot: .equal"))
        #expect(swift.contains("if segments.count == 2, segments[0] == \"values\" {"))
        #expect(
            swift.contains(
                "case \"igc.uploaded\":\n                return MergeRule(\"FlightDocument\", \"igc.uploaded\", .logicalOr, nil)"
            ))
        #expect(swift.contains("case .flights: return [\"igc\"].contains(fieldPath)"))
        let page = try #require(files.first { $0.relativePath == "Goldens/SCHEMA.md" }).contents
        #expect(page.contains("## Sync rules"))
        #expect(page.contains("| trim | `recentsTieById` | order | `FlightDocument.__name__` | `\"ascending\"` |"))
        #expect(page.contains("**pinned:** `recentsTieOrder`"))
    }

    @Test func aNewMergeRowReachesTheDispatch() throws {
        let copy = try SpecCopy()
        try copy.edit("merge-rules.tsv") { lines in
            lines.append(
                "TaskDocument\tisStartProcessed\tlogicalOr\t-\tA processed start is never lost.\t000 §5.3")
        }
        let spec = try SchemaSpec.load(from: copy.directory)
        let swift = try #require(
            SchemaGenerator.generate(spec: spec).first { $0.relativePath == SwiftSyncRulesEmitter.path }
        ).contents
        #expect(
            swift.contains(
                "case \"isStartProcessed\":\n                return MergeRule(\"TaskDocument\", \"isStartProcessed\", .logicalOr, nil)"
            ))
    }
}
