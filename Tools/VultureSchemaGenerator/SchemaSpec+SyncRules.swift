import VultureSchemaCore

/// The areas of `Spec/sync-rules.tsv`: which part of the engine a row governs, in the order the
/// engine contract (`Goldens/ENGINE.md`) presents them.
public enum SyncRuleArea: String, Hashable, Sendable, CaseIterable {
    /// The pilot's changes on the device: imports, saves, deletes, opens (schema §2, §5.4).
    case local
    /// What the per-field merge reads besides the three documents (schema §5.3, §5.5).
    case merge
    /// The recents trim (schema §5.3, §5.5).
    case trim
    /// Tombstones, their Storage objects and the purge (schema §5.4).
    case tombstones
    /// The R4 duplicate pass (schema §4).
    case duplicates
    /// Push (schema §5.1).
    case push
    /// The profile document: its creation, platforms, lastSeenAt, storageBytes (schema §2, §6).
    case profile
    /// Pull (schema §5.2).
    case pull
    /// Failed requests: retries, the daily quota pause, Storage failures (schema §3, §5.1).
    case errors
}

/// What a row of `Spec/sync-rules.tsv` states, and so what its `value` holds.
public enum SyncRuleKind: String, Hashable, Sendable, CaseIterable {
    /// Steps in order: a JSON array of step names.
    case sequence
    /// Two documents agree on the subject field: `"equal"` or `"equalNonNull"`.
    case criterion
    /// One key of the area's sort (rows in table order): `"ascending"` or `"descending"`; null last.
    case order
    /// The integer field (a path string in the same document) ranking the subject's merge rule.
    case rankBy
    /// An integer: a literal, or `"limits.NAME"` / `"constants.NAME"`.
    case parameter
    /// What the subject value is kept per: a JSON array of names.
    case keyedBy
    /// A rule the runtime follows as written; no value.
    case fact
}

/// The field a sync rule is about: `FlightDocument.summary.takeoffAt`, or `FlightDocument.__name__`
/// for the document id.
public struct SyncRuleSubject: Hashable, Sendable, CustomStringConvertible {
    /// The pseudo-field naming the document id (Firestore's `__name__`).
    public static let documentId = "__name__"

    /// A document type of `collections.tsv`, or `CommonFields`.
    public var owner: String
    /// A field path inside the owner (as in `fields.tsv`), or ``documentId``.
    public var path: String

    /// `Owner.path` split at its first `.`; nil when there is no `.`.
    public init?(parsing text: String) {
        guard let dot = text.firstIndex(of: "."), dot != text.startIndex, text.index(after: dot) != text.endIndex
        else { return nil }
        owner = String(text[..<dot])
        path = String(text[text.index(after: dot)...])
    }

    /// `Owner.path`.
    public var description: String { "\(owner).\(path)" }
}

/// One row of `Spec/sync-rules.tsv`.
public struct SyncRuleSpec: Hashable, Sendable {
    /// The part of the engine the row governs.
    public var area: SyncRuleArea
    /// Unique rule name (a Swift case name in the generated code).
    public var name: String
    /// What the row states.
    public var kind: SyncRuleKind
    /// The field the rule is about; nil for `-`.
    public var subject: SyncRuleSubject?
    /// The value cell as a typed JSON literal; nil for `-`.
    public var value: FirestoreValue?
    /// One-line meaning.
    public var meaning: String
    /// Seed reference.
    public var source: String
    /// Row of the table.
    public var location: SpecLocation

    /// The step names of a `sequence` row.
    public var steps: [String] {
        guard kind == .sequence, case .array(let items)? = value else { return [] }
        return items.compactMap { if case .string(let s) = $0 { s } else { nil } }
    }

    /// The string value of a `criterion`, `order` or `rankBy` row.
    public var word: String? {
        if case .string(let s)? = value { return s }
        return nil
    }
}

extension MergeRuleKind {
    /// Whether the rule ranks its field by an integer field (a `rankBy` row of `sync-rules.tsv` names it).
    var isRanked: Bool { self == .higherAnalysisVersion || self == .trackPreviewRank }
}

extension SpecReader {
    mutating func readSyncRule(_ row: TSVRow) {
        let area = rawEnum(row, "area", SyncRuleArea.self)
        let kind = rawEnum(row, "kind", SyncRuleKind.self)
        let value = literal(row, "value")
        var subject: SyncRuleSubject?
        if let text = row.optional("subject") {
            subject = SyncRuleSubject(parsing: text)
            if subject == nil { fail(row, "subject '\(text)' must be Owner.path, Owner.__name__ or -") }
        }
        guard let area, let kind, let value, row.optional("subject") == nil || subject != nil else { return }
        spec.syncRules.append(
            SyncRuleSpec(
                area: area, name: row["rule"], kind: kind, subject: subject, value: value, meaning: row["meaning"],
                source: row["source"], location: row.location))
    }
}

extension SchemaSpec {
    /// The integer a `parameter` row names: its literal, or the `limits.tsv` / `constants.tsv` row
    /// it references (`"limits.recentsMax"`), with the Swift expression naming it; nil when it names nothing.
    func syncRuleParameter(_ rule: SyncRuleSpec) -> (value: Int64, swift: String)? {
        switch rule.value {
        case .integer(let n)?:
            return (n, SwiftText.integer(n))
        case .string(let reference)?:
            if reference.hasPrefix("limits."), let l = limit(named: String(reference.dropFirst("limits.".count))) {
                return (l.value, "SchemaLimits.\(SwiftText.identifier(l.name))")
            }
            if reference.hasPrefix("constants."),
                let c = constant(named: String(reference.dropFirst("constants.".count))), case .integer(let n) = c.value
            {
                return (n, "SchemaConstants.\(SwiftText.identifier(c.name))")
            }
            return nil
        default:
            return nil
        }
    }

    /// The field a subject names, or nil (`__name__` names no field).
    func field(of subject: SyncRuleSubject) -> FieldSpec? {
        subject.path == SyncRuleSubject.documentId ? nil : field(at: subject.path, in: subject.owner)
    }

    /// Problems of `Spec/sync-rules.tsv`: repeated names, subjects naming nothing, values that do not
    /// fit the kind, references to no limit or constant, ranked merge rules without a `rankBy` row,
    /// blob-map merge rules without an object-identity criterion.
    func validateSyncRules(_ errors: inout [SpecError]) {
        var seen: [String: SpecLocation] = [:]
        let owners = Set(collections.map(\.documentType)).union([Self.commonFieldsOwner])
        for rule in syncRules {
            func fail(_ message: String) { errors.append(rule.location.error(message)) }
            if let first = seen[rule.name] {
                fail("sync rule \(rule.name) repeats the one at \(first)")
            } else {
                seen[rule.name] = rule.location
            }
            if SwiftText.keywords.contains(rule.name) || rule.name.first?.isLetter != true
                || !rule.name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
            {
                fail("sync rule name '\(rule.name)' must be an identifier (letters and digits)")
            }
            if let subject = rule.subject {
                if !owners.contains(subject.owner) {
                    fail("subject \(subject) names \(subject.owner), which is no document type of collections.tsv")
                } else if subject.path != SyncRuleSubject.documentId, field(of: subject) == nil {
                    fail("subject \(subject) names a field that does not exist in fields.tsv")
                }
            }
            let words: [String]
            switch rule.kind {
            case .criterion: words = ["equal", "equalNonNull"]
            case .order: words = ["ascending", "descending"]
            default: words = []
            }
            switch rule.kind {
            case .sequence, .keyedBy:
                let names = rule.value.flatMap { v -> [String]? in
                    guard case .array(let items) = v else { return nil }
                    let strings = items.compactMap { if case .string(let s) = $0, !s.isEmpty { s } else { nil } }
                    return strings.count == items.count ? strings : nil
                }
                if let names, Set(names).count == names.count, names.count >= (rule.kind == .sequence ? 2 : 1) {
                } else {
                    fail("a \(rule.kind.rawValue) row's value is an array of distinct names")
                }
            case .criterion, .order:
                if rule.subject == nil { fail("a \(rule.kind.rawValue) row needs a subject") }
                if !words.contains(rule.word ?? "") {
                    fail(
                        "a \(rule.kind.rawValue) row's value is one of \(words.map { "\"\($0)\"" }.joined(separator: ", "))"
                    )
                }
            case .rankBy:
                guard let subject = rule.subject, subject.path != SyncRuleSubject.documentId else {
                    fail("a rankBy row needs a field subject")
                    continue
                }
                let ranked = mergeRules.first {
                    $0.document == subject.owner && $0.fieldPath == subject.path && $0.rule.isRanked
                }
                if ranked == nil { fail("subject \(subject) has no ranked merge rule in merge-rules.tsv") }
                if let path = rule.word, let f = field(at: path, in: subject.owner), f.type == .integer {
                } else {
                    fail("a rankBy row's value names an integer field of \(subject.owner), as a string")
                }
            case .parameter:
                if syncRuleParameter(rule) == nil {
                    fail("a parameter is an integer, or \"limits.NAME\" / \"constants.NAME\" naming an integer row")
                }
            case .fact:
                if rule.value != nil { fail("a fact row has no value (write -)") }
            }
        }
        for merge in mergeRules where merge.rule.isRanked {
            let subject = "\(merge.document ?? "*").\(merge.fieldPath ?? "*")"
            let covered = syncRules.contains { $0.kind == .rankBy && $0.subject?.description == subject }
            if !covered {
                errors.append(
                    merge.location.error("ranked merge rule for \(subject) has no rankBy row in sync-rules.tsv"))
            }
        }
        for merge in mergeRules where merge.rule == .blobMapNeverDropped {
            let prefix = "\(merge.document ?? "*").\(merge.fieldPath ?? "*")."
            let covered = syncRules.contains {
                $0.area == .merge && $0.kind == .criterion && $0.subject?.description.hasPrefix(prefix) == true
            }
            if !covered {
                errors.append(
                    merge.location.error(
                        "blob map merge rule for \(prefix.dropLast()) has no object-identity criterion in sync-rules.tsv"
                    ))
            }
        }
    }
}
