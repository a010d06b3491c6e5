import Foundation
import VultureSchemaCore

/// The generated regions of the engine contract (`Goldens/ENGINE.md`, hand-written around them):
/// every row of `Spec/sync-rules.tsv` by area, in the words of its `meaning`, with the pins that
/// name it; the per-field merge rules of `Spec/merge-rules.tsv`; and the pins an engine meets
/// (those naming a sync or merge rule), with their kind, choice and reason.
struct EngineContractEmitter {
    let spec: SchemaSpec

    static let pagePath = "Goldens/ENGINE.md"

    /// The page's generated regions.
    func regions() -> [GeneratedFile] {
        [
            GeneratedFile(
                relativePath: Self.pagePath, contents: rules().joined(separator: "\n") + "\n", region: "engine-rules"),
            GeneratedFile(
                relativePath: Self.pagePath, contents: merge().joined(separator: "\n") + "\n", region: "engine-merge"),
            GeneratedFile(
                relativePath: Self.pagePath, contents: pins().joined(separator: "\n") + "\n", region: "engine-pins"),
        ]
    }

    /// A heading for each area, in `SyncRuleArea` order.
    static let titles: [SyncRuleArea: String] = [
        .local: "The pilot's changes on the device", .push: "Push", .profile: "The profile", .pull: "Pull",
        .merge: "What the merge reads besides the three documents", .trim: "The recents trim",
        .tombstones: "Tombstones and the purge", .duplicates: "The R4 duplicate pass", .errors: "Failed requests",
    ]

    /// The pins whose subject names a sync rule or a merge rule: the ones an engine meets.
    var enginePins: [PinSpec] {
        spec.pins.filter { $0.subject.contains("sync-rules.tsv") || $0.subject.contains("merge-rules.tsv") }
    }

    func pinsNaming(_ rule: SyncRuleSpec) -> [PinSpec] {
        spec.pins.filter { pin in
            guard let range = pin.subject.range(of: "sync-rules.tsv") else { return false }
            let names = pin.subject[range.upperBound...].split(whereSeparator: { ",; ".contains($0) }).map(String.init)
            return names.contains(rule.name)
        }
    }

    /// What a row's value says, in words: the steps, the match, the order, the rank, the number, the keys.
    func valueText(_ rule: SyncRuleSpec) -> String? {
        let subject = rule.subject.map { "`\($0)`" } ?? ""
        switch rule.kind {
        case .sequence: return "Steps: " + rule.steps.map { "`\($0)`" }.joined(separator: " → ") + "."
        case .criterion:
            return "\(subject) \(rule.word == "equalNonNull" ? "set and equal" : "equal (null equals null)")."
        case .order: return "Ordered by \(subject), \(rule.word ?? "")."
        case .rankBy: return "\(subject) ranked by `\(rule.word ?? "")`."
        case .parameter:
            guard let p = spec.syncRuleParameter(rule) else { return nil }
            let named = rule.value.flatMap { if case .string(let s) = $0 { " (`\(s)`)" } else { nil } } ?? ""
            return "Value: \(p.value)\(named)."
        case .keyedBy:
            guard case .array(let names)? = rule.value else { return nil }
            return "Kept per "
                + names.compactMap { if case .string(let n) = $0 { "`\(n)`" } else { nil } }.joined(separator: ", ")
                + "."
        case .fact: return nil
        }
    }

    func rules() -> [String] {
        var out = [
            "Every row of `Spec/sync-rules.tsv`, by area: its name, what an engine does, the seed section it comes "
                + "from, and the pins that state it precisely (`schema`: required of every engine) or record this "
                + "project's choice (`choice`, `open`: only recommended scenarios rest on it)."
        ]
        let order: [SyncRuleArea] = [.local, .push, .profile, .pull, .merge, .trim, .tombstones, .duplicates, .errors]
        for area in order + SyncRuleArea.allCases.filter({ !order.contains($0) }) {
            let rows = spec.syncRules.filter { $0.area == area }
            guard !rows.isEmpty else { continue }
            out += ["", "### \(Self.titles[area] ?? area.rawValue)", ""]
            for r in rows {
                var line = "- **`\(r.name)`** — \(r.meaning)"
                if let value = valueText(r) { line += " " + value }
                line += " *(\(r.source))*"
                let pins = pinsNaming(r)
                if !pins.isEmpty {
                    line +=
                        " Pinned: " + pins.map { "`\($0.name)` (\($0.kind.rawValue))" }.joined(separator: ", ") + "."
                }
                out.append(line)
            }
        }
        return out
    }

    func merge() -> [String] {
        var out = [
            "Each field of a pulled document with a row is decided by its row of `Spec/merge-rules.tsv` (a field "
                + "path the table does not name follows the row for every field, `* *`); `tie` is who wins equal "
                + "clocks or equal rank.",
            "",
            "| document | field | rule | tie | meaning | source |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for r in spec.mergeRules {
            out.append(
                "| `\(r.document ?? "*")` | `\(r.fieldPath ?? "*")` | `\(r.rule.rawValue)` | \(r.tie?.rawValue ?? "–") | "
                    + ProtocolTablesEmitter.cell(r.meaning) + " | " + ProtocolTablesEmitter.cell(r.source) + " |")
        }
        return out
    }

    func pins() -> [String] {
        var out = [
            "The pins of `Spec/pins.tsv` that name a sync or merge rule. A `schema` pin states the seed precisely "
                + "and binds every engine; a `choice` (or `open`) pin is what the reference engine does where the seed "
                + "leaves room: an engine may choose otherwise and still pass every required scenario, and only the "
                + "recommended scenarios that name the pin check it.",
            "",
            "| pin | kind | subject | the choice | why |",
            "| --- | --- | --- | --- | --- |",
        ]
        for p in enginePins {
            out.append(
                "| `\(p.name)` | \(p.kind.rawValue) | \(ProtocolTablesEmitter.cell(p.subject)) | "
                    + ProtocolTablesEmitter.cell(p.choice) + " | " + ProtocolTablesEmitter.cell(p.reason) + " |")
        }
        return out
    }
}
