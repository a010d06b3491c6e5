import Foundation
import Testing
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// The runner judges a merge write by its effect on the case's stored base (Goldens/FORMAT.md,
/// "Writes"): the golden's write and the testee's are applied to it and the results compared.
@Suite struct WriteEffectTests {
    static let suite = Result { try GoldenSuite.load() }

    /// The results of the merge.payload cases `ids` under `fault`.
    func run(
        _ ids: [String], _ fault: @escaping @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer
    ) throws -> [String: CaseResult] {
        var implementation = MutantImplementation(fault: fault)
        let run = ConformanceRunner.run(try Self.suite.get().cases, on: &implementation, only: Set(ids))
        #expect(run.results.count == ids.count)
        return Dictionary(uniqueKeysWithValues: run.results.map { ($0.id, $0) })
    }

    func failure(_ r: CaseResult?) -> (message: String, differences: [ValueDifference])? {
        if case .failed(let m, let d)? = r?.outcome { return (m, d) }
        return nil
    }

    /// The SDK's `set(fields, merge: true)` of the golden's fields: a mask of every leaf path.
    static let leafMerge = mergeWrite { _, fields, mask, _ in
        guard let w = try? FirestoreWrite.set(fields, merge: true) else { return }
        mask = w.mask?.map(\.description)
    }

    @Test func leafMergeOfSummaryFailsNamingTheStaleKey() throws {
        let id = "required.merge-payload.flight.optional-removed.android"
        let results = try run([id, "required.merge-payload.flight.comments.android"], Self.leafMerge)
        // Where no nested map changed, a leaf merge has the golden's effect.
        #expect(results["required.merge-payload.flight.comments.android"]?.outcome == .passed)
        let f = try #require(failure(results[id]))
        #expect(f.message.contains("stale nested key summary.thermalAltitudeGained"))
        #expect(f.message.contains("replace summary with mergeFields/update"))
        #expect(f.differences.count == 1)
        let d = try #require(f.differences.first)
        #expect(d.pointer == "/effect/summary/thermalAltitudeGained")
        #expect(d.kind == .unexpected)
        #expect(d.actual == .integer(9_615))
        var implementation = MutantImplementation(fault: Self.leafMerge)
        let run = ConformanceRunner.run(try Self.suite.get().cases, on: &implementation, only: [id])
        let lines = ConformanceRunner.report(run, failureList: nil)
        #expect(lines.contains { $0.contains("FAIL") && $0.contains("stale nested key summary.thermalAltitudeGained") })
        #expect(lines.last == "0 passed, 1 failed")
    }

    @Test func leafMaskWithDeleteOfTheRemovedKeyPasses() throws {
        // Judged by effect: a leaf mask plus the removed key as a mask path without a value (a $delete).
        let deleting = mergeWrite { _, fields, mask, _ in
            guard let w = try? FirestoreWrite.set(fields, merge: true) else { return }
            mask = (w.mask?.map(\.description) ?? []) + ["summary.thermalAltitudeGained"]
        }
        let results = try run(
            [
                "required.merge-payload.flight.optional-removed.android",
                "required.merge-payload.flight.optional-removed.ios",
            ], deleting)
        #expect(results.values.allSatisfy { $0.outcome == .passed })
    }

    @Test func fullSetFailsNamingTheRemovedUnknownFields() throws {
        let id = "required.merge-payload.flight.newer-fields-kept.ios"
        // The whole local document without a mask (the encode of the edited record, a set()).
        let full = try #require(mutants.first { $0.name.hasPrefix("a merge write that sends the whole document") })
        let f = try #require(failure(try run([id], full.fault)[id]))
        let pointers = f.differences.map(\.pointer)
        #expect(pointers == ["/effect/glideRatio", "/effect/winglets"])
        #expect(f.differences.allSatisfy { $0.kind == .missing })
        #expect(f.differences[0].expected == .double(42.5))
        #expect(f.message.contains("removed unknown field glideRatio"))
        #expect(f.message.contains("a field this schema version does not know"))
    }

    @Test func emptyValuesMapWipesEverySetting() throws {
        let id = "required.merge-payload.settings.no-change.android"
        let wipe = mergeWrite { _, fields, mask, _ in
            fields["values"] = .map([:])
            mask = (mask ?? []) + ["values"]
        }
        let f = try #require(failure(try run([id], wipe)[id]))
        #expect(f.differences.count == 1)
        let d = try #require(f.differences.first)
        #expect(d.pointer == "/effect/values")
        #expect(d.actual == .map([:]))
        // The stored base holds all 42 keys and a newer version's key; all of them are wiped.
        #expect(d.expected?.mapValue?.count == SyncSchema.vulture.settingsKeys.count + 1)
        #expect(f.message.contains("empty-map wipe at values"))
    }

    @Test func storageBytesSetByValueLosesTheOtherReservation() throws {
        let id = "required.merge-payload.profile.storage-reserve.android"
        // The total the writer read (12,408,221) plus its delta, as a value.
        let total = mergeWrite { _, fields, _, _ in
            guard case .increment(.integer(let n))? = fields["storageBytes"] else { return }
            fields["storageBytes"] = .integer(12_408_221 + n)
        }
        let f = try #require(failure(try run([id], total)[id]))
        #expect(f.differences.count == 1)
        let d = try #require(f.differences.first)
        #expect(d.pointer == "/effect/storageBytes")
        #expect(d.expected == .integer(12_408_221 + 4_120 + 83_095))
        #expect(d.actual == .integer(12_408_221 + 83_095))
        #expect(f.message.contains("storageBytes must move by $increment"))
    }

    @Test func counterWriteWithoutPreconditionCreatesAProfile() throws {
        let id = "required.merge-payload.profile.storage-reserve.ios"
        let unguarded = mergeWrite { _, _, _, precondition in precondition = nil }
        let f = try #require(failure(try run([id], unguarded)[id]))
        #expect(f.differences.count == 1)
        #expect(f.differences.first?.kind == .unexpected)
        #expect(f.message.contains("fails with NOT_FOUND (precondition exists: true)"))
        #expect(
            f.differences.first?.actual?.mapValue?["storageBytes"] == .integer(83_095),
            "on a missing profile the write without a precondition creates one holding the increment")
    }

    @Test func mergeFieldsAndUpdateFormsPass() throws {
        // update(): the golden's fields at their own paths, with exists: true — the same effect on the base.
        let update = mergeWrite { _, _, _, precondition in precondition = .map(["exists": .boolean(true)]) }
        let ids = [
            "required.merge-payload.flight.summary.android", "required.merge-payload.flight.optional-removed.ios",
            "required.merge-payload.settings.no-change.ios",
        ]
        let results = try run(ids, update)
        #expect(ids.allSatisfy { results[$0]?.outcome == .passed })
    }

    @Test func effectDifferencesOnAPlainBase() throws {
        let base: [String: FirestoreValue] = [
            "summary": .map(["a": .integer(1), "b": .integer(2)]), "x": .string("newer"),
        ]
        let path = "users/u1/flights/f1"
        let golden = try FirestoreWrite.set(
            ["summary": .map(["a": .integer(3)])], mergeFields: [FieldPath(["summary"])], path: path)
        let leaf = try FirestoreWrite.set(["summary": .map(["a": .integer(3)])], merge: true, path: path)
        let t = try FirestoreTimestamp(seconds: 1_793_527_200, microseconds: 0)
        let d = WriteEffect.differences(
            expected: golden, actual: leaf, base: base, path: path, requestTime: t)
        #expect(d.map(\.pointer) == ["/effect/summary/b"])
        #expect(d.first?.hint?.hasPrefix("stale nested key summary.b") == true)
        let same = WriteEffect.differences(
            expected: golden, actual: golden, base: base, path: path, requestTime: t)
        #expect(same.isEmpty)
    }
}
