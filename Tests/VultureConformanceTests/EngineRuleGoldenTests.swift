import Foundation
import Testing
import VultureConformance
import VultureReference
import VultureSyncSchema

/// The engine-rule goldens cover the tables: every row of `Spec/merge-rules.tsv` has at least three
/// cases in Goldens/vectors/merge.json and a seeded fault one of them catches; the trim, tombstone
/// and duplicate vectors exist and the reference answers every case.
@Suite struct EngineRuleGoldenTests {
    static let suite = Result { try GoldenSuite.load() }

    /// `flight.igc.uploaded`, `any.deleted`, `settings.values.any`: the row part of a merge case id.
    static func rowKey(_ rule: MergeRule) -> String {
        var document = "any"
        if var name = rule.documentType {
            if name.hasSuffix("Document") { name.removeLast("Document".count) }
            document = name.prefix(1).lowercased() + name.dropFirst()
        }
        return document + "." + (rule.fieldPath ?? "any").replacingOccurrences(of: "*", with: "any")
    }

    /// The merge cases of a row: `LEVEL.merge.ROW.NAME` (LEVEL `required` or `recommended`) with NAME one
    /// segment.
    static func cases(of rule: MergeRule, in ids: [String]) -> [String] {
        ["required", "recommended"].flatMap { level in
            let prefix = "\(level).merge.\(rowKey(rule))."
            return ids.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains(".") }
        }
    }

    @Test func everyMergeRuleRowHasThreeCases() throws {
        let ids = try Self.suite.get().cases.filter { $0.op == "merge.document" }.map(\.id)
        for rule in MergeRule.all {
            #expect(Self.cases(of: rule, in: ids).count >= 3, "\(Self.rowKey(rule)) has too few cases")
        }
        let rowKeys = Set(MergeRule.all.map(Self.rowKey))
        let unattributed = ids.filter { id in
            !MergeRule.all.contains { !Self.cases(of: $0, in: [id]).isEmpty } && !id.hasPrefix("required.merge.input.")
                && !id.hasPrefix("recommended.merge.input.")
        }
        #expect(unattributed.isEmpty, "cases naming no row of \(rowKeys.sorted()): \(unattributed)")
    }

    @Test func everyMergeRuleRowHasAMutantItsCasesCatch() {
        for rule in MergeRule.all {
            let catchers = syncRuleMutants.map(\.caughtBy)
            #expect(!Self.cases(of: rule, in: catchers).isEmpty, "no seeded fault for \(Self.rowKey(rule))")
        }
    }

    @Test func theEngineRuleFilesHoldTheirOperations() throws {
        let suite = try Self.suite.get()
        let ops = ["merge.document", "recents.trim", "tombstones.purge", "tombstones.delete", "duplicates.r4"]
        for file in ["vectors/merge.json", "vectors/trim.json", "vectors/tombstones.json", "vectors/duplicates.json"] {
            #expect(suite.files.contains { $0.path == file }, "\(file) missing")
        }
        for op in ops {
            #expect(suite.cases.filter { $0.op == op }.count >= 3, "\(op) has too few cases")
        }
        var reference = ReferenceImplementation(schema: .vulture)
        let run = ConformanceRunner.run(suite.cases.filter { ops.contains($0.op) }, on: &reference)
        #expect(run.exitStatus == 0)
        #expect(run.results.allSatisfy { !$0.outcome.isFailed })
    }
}
