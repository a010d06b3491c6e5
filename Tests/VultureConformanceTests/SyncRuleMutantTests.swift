import Foundation
import Testing
import VultureConformance
import VultureSchemaCore
import VultureSyncSchema

/// Seeded faults in the engine-rule operations (merge, trim, tombstones, duplicates), one per row of
/// `Spec/merge-rules.tsv` and per refinement; each is caught by the named case of Goldens/vectors
/// (run with the other mutants by MutantTests.mutantIsCaught).

/// A member of a case input map.
func member(_ c: ConformanceCase, _ key: String) -> FirestoreValue? { c.input.mapValue?[key] }

/// A document member (`local`, `remote`, `base`) of a `merge.document` input; empty when absent.
func side(_ c: ConformanceCase, _ key: String) -> [String: FirestoreValue] { member(c, key)?.mapValue ?? [:] }

/// Changes `merge.document` outputs of cases of `collection` (any when nil): the whole output map.
func mergeOutput(
    _ collection: String? = nil,
    _ change: @escaping @Sendable (ConformanceCase, inout [String: FirestoreValue]) -> Void
) -> @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer {
    { c, answer in
        guard c.op == "merge.document", case .output(.map(var out)) = answer else { return answer }
        if let collection, member(c, "collection") != .string(collection) { return answer }
        change(c, &out)
        return .output(.map(out))
    }
}

/// Changes the merged `document` of `merge.document` outputs.
func mergedDocument(
    _ collection: String? = nil,
    _ change: @escaping @Sendable (ConformanceCase, inout [String: FirestoreValue]) -> Void
) -> @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer {
    mergeOutput(collection) { c, out in
        var doc = out["document"]?.mapValue ?? [:]
        change(c, &doc)
        out["document"] = .map(doc)
    }
}

/// Changes the output of another operation.
func output(
    _ op: String, _ change: @escaping @Sendable (ConformanceCase, inout [String: FirestoreValue]) -> Void
) -> @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer {
    { c, answer in
        guard c.op == op, case .output(.map(var out)) = answer else { return answer }
        change(c, &out)
        return .output(.map(out))
    }
}

func timestamps(_ values: [FirestoreValue?]) -> [FirestoreTimestamp] {
    values.compactMap { if case .timestamp(let t)? = $0 { t } else { nil } }
}

/// The id of the golden case `id` with its level (`required.` or `recommended.`, as its pins make it).
func leveled(_ id: String) -> String {
    let cases = (try? MutantTests.suite.get().cases) ?? []
    return cases.first { $0.id == "recommended." + id }?.id ?? "required." + id
}

/// The latest time of `field` on either side instead of the earliest.
func latestInsteadOfEarliest(_ row: String, _ collection: String, _ field: String) -> Mutant {
    Mutant(
        name: "\(row): latest for earliest", caughtBy: leveled("merge.\(row).earliest-wins"),
        fault: mergedDocument(collection) { c, d in
            if let t = timestamps([side(c, "local")[field], side(c, "remote")[field]]).max() {
                d[field] = .timestamp(t)
            }
        })
}

/// A clear that does not travel: the latest date of either side wherever the merge gave null.
func clearStays(_ row: String, _ collection: String, _ field: String) -> Mutant {
    Mutant(
        name: "\(row): a clear that does not travel", caughtBy: leveled("merge.\(row).clear-travels"),
        fault: mergedDocument(collection) { c, d in
            guard d[field] == .null, let t = timestamps([side(c, "local")[field], side(c, "remote")[field]]).max()
            else { return }
            d[field] = .timestamp(t)
        })
}

/// A blob map dropped when one side has none.
func mapDropped(_ row: String, _ collection: String, _ field: String) -> Mutant {
    Mutant(
        name: "\(row): a missing map drops the other", caughtBy: leveled("merge.\(row).missing-map-takes-other"),
        fault: mergedDocument(collection) { c, d in
            if side(c, "local")[field]?.mapValue == nil || side(c, "remote")[field]?.mapValue == nil {
                d[field] = .null
            }
        })
}

/// `uploaded` taken from one side instead of OR-ed.
func uploadedFrom(_ row: String, _ collection: String, _ field: String, _ from: String, caughtBy: String) -> Mutant {
    Mutant(
        name: "\(row): uploaded from \(from), not OR-ed", caughtBy: leveled("merge.\(row).\(caughtBy)"),
        fault: mergedDocument(collection) { c, d in
            guard var map = d[field]?.mapValue, let up = side(c, from)[field]?.mapValue?["uploaded"] else { return }
            map["uploaded"] = up
            d[field] = .map(map)
        })
}

/// The recents trim, sorted by date alone (input order on a tie), as a faulty testee would.
func trimWithoutIdTieBreak(_ c: ConformanceCase) -> FirestoreValue {
    var dated: [(offset: Int, opened: FirestoreTimestamp, row: [String: FirestoreValue])] = []
    for (offset, value) in (member(c, "rows")?.arrayElements ?? []).enumerated() {
        guard let row = value.mapValue, case .timestamp(let opened)? = row["lastOpenedAt"] else { continue }
        dated.append((offset, opened, row))
    }
    dated.sort { a, b in a.opened != b.opened ? a.opened > b.opened : a.offset < b.offset }
    var changes: [FirestoreValue] = []
    for entry in dated.dropFirst(Int(SchemaLimits.recentsMax)) {
        let logbook = entry.row["inLogbook"] == .boolean(true)
        changes.append(
            .map([
                "id": entry.row["id"] ?? .null, "action": .string(logbook ? "clearLastOpenedAt" : "tombstone"),
                "reason": .string("cap"),
            ]))
    }
    return .map(["changes": .array(changes)])
}

let syncRuleMutants: [Mutant] = [
    Mutant(
        name: "any.any: a both-sides tie goes to the device", caughtBy: "required.merge.any.any.tie-goes-to-server",
        fault: mergedDocument { c, d in
            let (b, l, r) = (side(c, "base"), side(c, "local"), side(c, "remote"))
            guard l["clientUpdatedAt"] == r["clientUpdatedAt"] else { return }
            for (k, v) in l where v != r[k] && v != b[k] && r[k] != b[k] { d[k] = v }
        }),
    Mutant(
        name: "any.any: clocks compared at milliseconds", caughtBy: "required.merge.any.any.microseconds-decide",
        fault: mergedDocument { c, d in
            let (b, l, r) = (side(c, "base"), side(c, "local"), side(c, "remote"))
            let clocks = timestamps([l["clientUpdatedAt"], r["clientUpdatedAt"]])
            guard clocks.count == 2, clocks[0].seconds == clocks[1].seconds,
                clocks[0].microseconds / 1000 == clocks[1].microseconds / 1000
            else { return }
            for (k, v) in r where v != l[k] && v != b[k] && l[k] != b[k] { d[k] = v }
        }),
    Mutant(
        name: "any.any: unknown fields dropped", caughtBy: "required.merge.any.any.unknown-fields-kept",
        fault: mergedDocument { _, d in
            for k in ["glideRatio", "winglets", "x-ios"] { d.removeValue(forKey: k) }
        }),
    Mutant(
        name: "any.deleted: an edit wins over a delete", caughtBy: "required.merge.any.deleted.delete-wins-over-edit",
        fault: mergedDocument { c, d in
            guard d["deleted"] == .boolean(true) else { return }
            for key in ["local", "remote"] where side(c, key)["deleted"] == .boolean(false) { d = side(c, key) }
        }),
    Mutant(
        name: "any.deleted: a re-import does not revive",
        caughtBy: "required.merge.any.deleted.reimport-after-delete-lives",
        fault: mergeOutput { c, out in
            guard out["revived"] == .boolean(true) else { return }
            out["document"] = .map(side(c, "remote"))
            out["revived"] = .boolean(false)
        }),
    Mutant(
        name: "any.clientUpdatedAt: the merged clock from the server",
        caughtBy: "recommended.merge.any.clientUpdatedAt.earlier-remote-clock-ignored",
        fault: mergedDocument { c, d in d["clientUpdatedAt"] = side(c, "remote")["clientUpdatedAt"] }),
    Mutant(
        name: "flight.inLogbook: AND for OR", caughtBy: "required.merge.flight.inLogbook.or-true-wins",
        fault: mergedDocument("flights") { c, d in
            guard case .boolean(let l)? = side(c, "local")["inLogbook"],
                case .boolean(let r)? = side(c, "remote")["inLogbook"]
            else { return }
            d["inLogbook"] = .boolean(l && r)
        }),
    latestInsteadOfEarliest("flight.createdAt", "flights", "createdAt"),
    latestInsteadOfEarliest("flight.importedAt", "flights", "importedAt"),
    latestInsteadOfEarliest("task.importedAt", "tasks", "importedAt"),
    latestInsteadOfEarliest("mapFile.importedAt", "mapFiles", "importedAt"),
    clearStays("flight.lastOpenedAt", "flights", "lastOpenedAt"),
    clearStays("recentCompetition.lastOpenedAt", "recentCompetitions", "lastOpenedAt"),
    clearStays("homebase.usedAt", "homebases", "usedAt"),
    Mutant(
        name: "flight.summary: the server's summary whatever its version",
        caughtBy: "required.merge.flight.summary.higher-local-kept",
        fault: mergedDocument("flights") { c, d in
            if let s = side(c, "remote")["summary"] { d["summary"] = s }
        }),
    Mutant(
        name: "flight.trackPreview: versions ranked as plain integers (-1 below 0)",
        caughtBy: "required.merge.flight.trackPreview.failed-beats-not-made",
        fault: mergedDocument("flights") { c, d in
            guard case .integer(let l)? = side(c, "local")["trackPreviewVersion"],
                case .integer(let r)? = side(c, "remote")["trackPreviewVersion"], l != r
            else { return }
            let winner = side(c, l > r ? "local" : "remote")
            d["trackPreviewVersion"] = winner["trackPreviewVersion"]
            d["trackPreview"] = winner["trackPreview"]
        }),
    Mutant(
        name: "flight.trackPreviewVersion: the version decided apart from its preview",
        caughtBy: "required.merge.flight.trackPreviewVersion.moves-with-preview",
        fault: mergedDocument("flights") { c, d in
            let (l, r) = (side(c, "local"), side(c, "remote"))
            let clocks = timestamps([l["clientUpdatedAt"], r["clientUpdatedAt"]])
            guard clocks.count == 2 else { return }
            d["trackPreviewVersion"] = (clocks[0] > clocks[1] ? l : r)["trackPreviewVersion"]
        }),
    mapDropped("flight.igc", "flights", "igc"),
    uploadedFrom("flight.igc.uploaded", "flights", "igc", "local", caughtBy: "uploaded-or-ed"),
    mapDropped("mapFile.content", "mapFiles", "content"),
    uploadedFrom("mapFile.content.uploaded", "mapFiles", "content", "remote", caughtBy: "local-true-kept"),
    Mutant(
        name: "flight.taskId: assigned before the task arrives",
        caughtBy: "required.merge.flight.taskId.task-missing-deferred",
        fault: mergeOutput("flights") { _, out in
            guard case .string(let id)? = out["deferredTaskId"], var d = out["document"]?.mapValue else { return }
            d["taskId"] = .string(id)
            out["document"] = .map(d)
            out["deferredTaskId"] = .null
        }),
    Mutant(
        name: "flight.taskId: a pending assignment forgotten",
        caughtBy: "recommended.merge.flight.taskId.pending-counts-as-local",
        fault: mergeOutput("flights") { c, out in
            if case .string? = member(c, "deferredTaskId") { out["deferredTaskId"] = .null }
        }),
    Mutant(
        name: "settings.values.any: an equal t goes to the device",
        caughtBy: "required.merge.settings.values.any.tie-goes-to-server",
        fault: mergedDocument("settings") { c, d in
            let l = side(c, "local")["values"]?.mapValue ?? [:]
            let r = side(c, "remote")["values"]?.mapValue ?? [:]
            var values = d["values"]?.mapValue ?? [:]
            for (k, entry) in l where r[k] != nil && r[k] != entry && r[k]?.mapValue?["t"] == entry.mapValue?["t"] {
                values[k] = entry
            }
            d["values"] = .map(values)
        }),
    Mutant(
        name: "mapFile.contentHash: an empty hash kept",
        caughtBy: "required.merge.mapFile.contentHash.empty-written-as-null",
        fault: mergedDocument("mapFiles") { c, d in
            let empty = [side(c, "local")["contentHash"], side(c, "remote")["contentHash"]].contains(.string(""))
            if empty && d["contentHash"] == .null { d["contentHash"] = .string("") }
        }),
    Mutant(
        name: "trim: no id tie-break (input order)", caughtBy: "recommended.trim.tie-by-id",
        fault: { c, answer in
            guard c.op == "recents.trim", case .output = answer else { return answer }
            return .output(trimWithoutIdTieBreak(c))
        }),
    Mutant(
        name: "trim: one flight beyond the cap kept", caughtBy: "required.trim.edge-51-recents-only",
        fault: output("recents.trim") { _, out in
            guard case .array(let changes)? = out["changes"], changes.count == 1 else { return }
            out["changes"] = .array(changes.filter { $0.mapValue?["reason"] != .string("cap") })
        }),
    Mutant(
        name: "trim: a logbook flight beyond the cap tombstoned", caughtBy: "required.trim.edge-51-logbook",
        fault: output("recents.trim") { _, out in
            guard case .array(let changes)? = out["changes"] else { return }
            out["changes"] = .array(
                changes.map { ch in
                    var m = ch.mapValue ?? [:]
                    if m["action"] == .string("clearLastOpenedAt") { m["action"] = .string("tombstone") }
                    return .map(m)
                })
        }),
    Mutant(
        name: "trim: local rows swept as stranded", caughtBy: "required.trim.stranded-local-left-alone",
        fault: output("recents.trim") { c, out in
            guard case .array(var changes)? = out["changes"], case .array(let rows)? = member(c, "rows") else { return }
            for row in rows {
                guard let m = row.mapValue, m["origin"] == .string("local"), m["lastOpenedAt"] == .null,
                    m["inLogbook"] == .boolean(false)
                else { continue }
                changes.append(
                    .map(["id": m["id"] ?? .null, "action": .string("tombstone"), "reason": .string("stranded")]))
            }
            out["changes"] = .array(changes)
        }),
    Mutant(
        name: "tombstones: the purge cutoff inclusive", caughtBy: "required.tombstones.purge.boundary-kept",
        fault: output("tombstones.purge") { c, out in
            guard case .array(let tombstones)? = member(c, "tombstones"), let cutoff = out["cutoff"],
                case .array(var batches)? = out["batches"]
            else { return }
            let atCutoff = tombstones.filter { $0.mapValue?["deletedAt"] == cutoff }.compactMap { $0.mapValue?["name"] }
            if !atCutoff.isEmpty { batches.append(.map(["names": .array(atCutoff)])) }
            out["batches"] = .array(batches)
        }),
    Mutant(
        name: "tombstones: purge batches of 500", caughtBy: "required.tombstones.purge.batches",
        fault: output("tombstones.purge") { _, out in
            guard case .array(let batches)? = out["batches"] else { return }
            let all = batches.flatMap { $0.mapValue?["names"]?.arrayElements ?? [] }
            out["batches"] = .array(
                stride(from: 0, to: all.count, by: 500).map {
                    .map(["names": .array(Array(all[$0..<min($0 + 500, all.count)]))])
                })
        }),
    Mutant(
        name: "tombstones: a shared content object deleted",
        caughtBy: "required.tombstones.delete.shared-content-stays",
        fault: output("tombstones.delete") { c, out in
            guard out["deleteObjects"] == .array([]),
                case .map(let content)? = member(c, "document")?.mapValue?["content"], let path = content["path"]
            else { return }
            out["deleteObjects"] = .array([path])
            if case .integer(let gz)? = content["gzBytes"] { out["storageBytesDelta"] = .integer(-gz) }
        }),
    Mutant(
        name: "tombstones: storageBytes not lowered", caughtBy: "required.tombstones.delete.flight",
        fault: output("tombstones.delete") { _, out in out["storageBytesDelta"] = .integer(0) }),
    Mutant(
        name: "duplicates: the latest import kept", caughtBy: "required.duplicates.keep-earliest-import",
        fault: output("duplicates.r4") { _, out in
            guard case .array(let groups)? = out["groups"] else { return }
            out["groups"] = .array(
                groups.map { g in
                    guard var m = g.mapValue, case .array(let t)? = m["tombstone"], t.count == 1, let keep = m["keep"]
                    else { return g }
                    m["keep"] = t[0]
                    m["tombstone"] = .array([keep])
                    return .map(m)
                })
        }),
    Mutant(
        name: "duplicates: two unnamed pilots differ", caughtBy: "recommended.duplicates.null-pilots-match",
        fault: output("duplicates.r4") { c, out in
            guard case .array(let flights)? = member(c, "flights") else { return }
            let unnamed = flights.allSatisfy { $0.mapValue?["document"]?.mapValue?["pilotName"] == .null }
            if unnamed { out["groups"] = .array([]) }
        }),
    Mutant(
        name: "duplicates: the other's fields not merged", caughtBy: "recommended.duplicates.user-fields-merged",
        fault: output("duplicates.r4") { c, out in
            guard case .array(let groups)? = out["groups"], case .array(let flights)? = member(c, "flights") else {
                return
            }
            out["groups"] = .array(
                groups.map { g in
                    guard var m = g.mapValue,
                        let kept = flights.first(where: { $0.mapValue?["id"] == m["keep"] })?.mapValue?["document"]
                    else { return g }
                    m["document"] = kept
                    return .map(m)
                })
        }),
]

extension FirestoreValue {
    /// The elements of an array, or nil.
    var arrayElements: [FirestoreValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
}
