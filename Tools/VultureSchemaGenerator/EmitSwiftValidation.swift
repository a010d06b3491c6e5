import VultureSchemaCore

/// Emits `Sources/VultureSyncSchema/Generated/DocumentValidation.swift`: for every document type and
/// nested map of `Spec/fields.tsv`, a straight-line predicate that says whether the validator's table
/// walk (`SchemaValidator.checkMap` over `SyncSchema.vulture`) would find nothing to report — no error
/// and no warning — written out field by field with the types, limits, enums, units and settings keys
/// as literals. The validator answers from the predicate when it holds and walks the tables only for a
/// document with something to report, so the messages come from one place.
struct SwiftValidationEmitter {
    let spec: SchemaSpec

    static let path = "Sources/VultureSyncSchema/Generated/DocumentValidation.swift"
    static let sources = ["collections.tsv", "fields.tsv", "enums.tsv", "settings-keys.tsv", "units.tsv"]
    /// The entry map of a settings document's `values` dictionary, which the validator checks by key.
    static let settingsEntry = "SettingsEntry"

    func file() -> GeneratedFile {
        var out = SwiftText.lineComment(SchemaGenerator.doNotEdit(Self.sources))
        out.append("")
        out.append("extension SchemaValidator {")
        out += dispatcher()
        for c in spec.collections { out += ownerPredicate(c.documentType, fields: spec.allFields(of: c.documentType)) }
        let documents = Set(spec.collections.map(\.documentType))
        for owner in spec.ownerNames
        where !documents.contains(owner) && owner != SchemaSpec.commonFieldsOwner && owner != Self.settingsEntry {
            out += ownerPredicate(owner, fields: spec.fields(of: owner))
        }
        for owner in spec.ownerNames where owner != SchemaSpec.commonFieldsOwner {
            for f in spec.fields(of: owner) { out += containerPredicate(f) }
        }
        if !spec.fields(of: Self.settingsEntry).isEmpty { out += settingsEntryPredicate() }
        out += enumPredicates()
        out += unitLists()
        out.append("}")
        return GeneratedFile(relativePath: Self.path, contents: out.joined(separator: "\n") + "\n")
    }

    // MARK: Names

    private func predicateName(_ owner: String) -> String { "isValid\(owner)" }

    private func containerName(_ f: FieldSpec) -> String {
        "isValid\(f.owner)\(f.name.prefix(1).uppercased() + f.name.dropFirst())"
    }

    private func enumName(_ name: String) -> String { "is\(name)Case" }

    private func unitListName(_ name: String) -> String { "\(name)Units" }

    // MARK: Parts

    private func dispatcher() -> [String] {
        var out = SwiftText.docComment(
            "Whether `fields` of a `documentType` document break none of the field rules of `Spec/fields.tsv`, "
                + "so that `checkMap` would report nothing (no error, no warning); nil for a type the tables do not "
                + "have. Straight-line code generated from the tables: only for `SyncSchema.vulture`.",
            indent: "    ")
        out.append("    static func generatedFieldsAreValid(")
        out.append("        _ fields: [String: FirestoreValue], documentType: String, options: ValidationOptions")
        out.append("    ) -> Bool? {")
        out.append("        switch documentType {")
        for c in spec.collections {
            out.append("        case \(SwiftText.string(c.documentType)):")
            out.append("            return \(predicateName(c.documentType))(fields, options)")
        }
        out.append("        default:")
        out.append("            return nil")
        out.append("        }")
        out.append("    }")
        return out
    }

    private func ownerPredicate(_ owner: String, fields: [FieldSpec]) -> [String] {
        var out = [""]
        out += SwiftText.docComment("`\(owner)`: \(fields.count) fields (`Spec/fields.tsv`).", indent: "    ")
        out.append(
            "    static func \(predicateName(owner))(_ m: [String: FirestoreValue], _ o: ValidationOptions) -> Bool {")
        if fields.isEmpty {
            out.append("        m.isEmpty")
            out.append("    }")
            return out
        }
        out.append("        var present = 0")
        for f in fields { out += fieldCheck(f, map: "m") }
        out.append("        return present >= m.count")
        out.append("    }")
        return out
    }

    /// The check of one field of map `map` (checkField's rules), at eight spaces.
    private func fieldCheck(_ f: FieldSpec, map: String) -> [String] {
        var out = [
            "        // \(f.name): \(f.type), \(f.presence == .required ? "required" : "optional")"
                + (f.isNullable ? ", nullable" : "") + (f.writeAs == .value ? "" : ", written as \(f.writeAs.rawValue)")
                + (f.limits.isEmpty ? "" : ", " + f.limits.map(\.description).joined(separator: ","))
        ]
        out.append("        if let v = \(map)[\(SwiftText.string(f.name))] {")
        out.append("            present &+= 1")
        out.append("            switch v {")
        var cases: [String] = []
        // Sentinels: only where the field is written with one, in the write form.
        switch f.writeAs {
        case .serverTimestamp:
            cases.append("case .serverTimestamp where o.form == .write:")
        case .increment:
            if f.type == .integer { cases.append("case .increment(.integer) where o.form == .write:") }
            if f.type == .double { cases.append("case .increment(.double) where o.form == .write:") }
        case .value:
            if f.presence == .optional { cases.append("case .delete where o.form == .write && o.mergeWrite:") }
        }
        for c in cases {
            out.append("            " + c)
            out.append("                break")
        }
        out.append("            case .serverTimestamp, .increment, .delete:")
        out.append("                return false")
        // A client value of a server-timestamp field is wrong in the write form.
        let storedOnly = f.writeAs == .serverTimestamp ? "o.form != .write" : nil
        if f.isNullable {
            out.append("            case .null" + (storedOnly.map { " where " + $0 } ?? "") + ":")
            out.append("                break")
        }
        for c in valueCases(f.type, limits: f.limits, value: "v", field: f) {
            out.append("            " + joinWhere(c, storedOnly) + ":")
            out.append("                break")
        }
        out.append("            default:")
        out.append("                return false")
        out.append("            }")
        if f.presence == .required {
            out.append("        } else if !o.mergeWrite {")
            out.append("            return false")
        }
        out.append("        }")
        return out
    }

    private func joinWhere(_ pattern: String, _ extra: String?) -> String {
        guard let extra else { return "case " + pattern }
        return "case " + pattern + (pattern.contains(" where ") ? " && " : " where ") + extra
    }

    /// The patterns (with `where` conditions) of the values of `type` within `limits` that checkValue
    /// accepts; `field` names the helper of an array or dictionary field.
    private func valueCases(_ type: SchemaFieldType, limits: [FieldLimit], value v: String, field: FieldSpec?)
        -> [String]
    {
        func with(_ pattern: String, _ conditions: [String]) -> [String] {
            [conditions.isEmpty ? pattern : pattern + " where " + conditions.joined(separator: " && ")]
        }
        switch type {
        case .string:
            var conditions: [String] = []
            for limit in limits {
                switch limit {
                case .maxChars(let n): conditions.append("SchemaValidator.hasAtMostScalars(s, \(SwiftText.integer(n)))")
                case .maxBytes(let n): conditions.append("s.utf8.count <= \(SwiftText.integer(n))")
                case .hexLength(let n): conditions.append("SchemaValidator.isLowercaseHex(s, length: \(n))")
                default: break
                }
            }
            return with(conditions.isEmpty ? ".string" : ".string(let s)", conditions)
        case .boolean: return [".boolean"]
        case .integer: return with(".integer(let x)", numberConditions(limits, "Double(x)")).map(unusedBinding)
        case .double: return with(".double(let x)", numberConditions(limits, "x")).map(unusedBinding)
        case .timestamp: return [".timestamp"]
        case .bytes:
            var conditions: [String] = []
            for case .maxBytes(let n) in limits { conditions.append("b.count <= \(SwiftText.integer(n))") }
            return with(conditions.isEmpty ? ".bytes" : ".bytes(let b)", conditions)
        case .dateString: return [".string(let s) where SchemaValidator.isCalendarDay(s)"]
        case .settingValue: return ["_"]
        case .enumeration(let name):
            return spec.enumeration(named: name) == nil ? ["_"] : ["_ where \(enumName(name))(\(v))"]
        case .unit(let name):
            return spec.unitTable(named: name) == nil
                ? [".string"] : [".string(let s) where \(unitListName(name)).contains(s)"]
        case .map(let owner):
            return [".map(let inner) where \(predicateName(owner))(inner, o)"]
        case .array:
            guard let field else { return [] }
            return [".array(let a) where \(containerName(field))(a, o)"]
        case .dictionary:
            guard let field else { return [] }
            return [".map(let d) where \(containerName(field))(d, o)"]
        }
    }

    /// `.integer(let x)` without conditions binds nothing.
    private func unusedBinding(_ pattern: String) -> String {
        pattern.contains(" where ") ? pattern : pattern.replacingOccurrences(of: "(let x)", with: "")
    }

    /// checkNumber's limits as conditions on `d`.
    private func numberConditions(_ limits: [FieldLimit], _ d: String) -> [String] {
        var conditions: [String] = []
        for limit in limits {
            switch limit {
            case .minimum(let min): conditions.append("\(d) >= \(SwiftText.double(min))")
            case .maximum(let max): conditions.append("\(d) <= \(SwiftText.double(max))")
            case .step(let step) where step > 0:
                conditions.append("SchemaValidator.isMultiple(\(d), of: \(SwiftText.double(step)))")
            default: break
            }
        }
        return conditions
    }

    /// The element check of an array field, or the value check of a dictionary field.
    private func containerPredicate(_ f: FieldSpec) -> [String] {
        var out: [String] = []
        switch f.type {
        case .array(let element):
            out.append("")
            out += SwiftText.docComment(
                "`\(f.owner).\(f.name)` (\(f.type)): its elements, each a value of `\(element)`.", indent: "    ")
            out.append(
                "    static func \(containerName(f))(_ a: [FirestoreValue], _ o: ValidationOptions) -> Bool {")
            for case .maxItems(let n) in f.limits {
                out.append("        guard a.count <= \(SwiftText.integer(n)) else { return false }")
            }
            out.append("        for e in a {")
            out.append("            switch e {")
            for c in valueCases(element, limits: [], value: "e", field: nil) {
                out.append("            case " + c + ":")
                out.append("                continue")
            }
            out.append("            default:")
            out.append("                return false")
            out.append("            }")
            out.append("        }")
            out.append("        return true")
            out.append("    }")
        case .dictionary(let element):
            out.append("")
            out += SwiftText.docComment(
                "`\(f.owner).\(f.name)` (\(f.type)): every entry's value.", indent: "    ")
            out.append(
                "    static func \(containerName(f))(_ d: [String: FirestoreValue], _ o: ValidationOptions) -> Bool {")
            if element == .map(Self.settingsEntry) {
                out.append("        d.allSatisfy { isValidSettingsEntry($0.value, key: $0.key, o) }")
                out.append("    }")
                return out
            }
            out.append("        for e in d.values {")
            out.append("            switch e {")
            for c in valueCases(element, limits: f.limits, value: "e", field: nil) {
                out.append("            case " + c + ":")
                out.append("                continue")
            }
            out.append("            default:")
            out.append("                return false")
            out.append("            }")
            out.append("        }")
            out.append("        return true")
            out.append("    }")
        default:
            break
        }
        return out
    }

    /// checkSettingsEntry: the entry's plain fields, then its `v` by the key's type and range.
    private func settingsEntryPredicate() -> [String] {
        let fields = spec.fields(of: Self.settingsEntry)
        var out = [""]
        out += SwiftText.docComment(
            "A `\(Self.settingsEntry)` under settings key `key` (`Spec/settings-keys.tsv`): its fields, and `v` of "
                + "the key's type and range; an unknown key is something to report.",
            indent: "    ")
        out.append(
            "    static func isValidSettingsEntry(_ entry: FirestoreValue, key: String, _ o: ValidationOptions) -> Bool {"
        )
        out.append("        guard case .map(let m) = entry else { return false }")
        out.append("        var present = 0")
        for f in fields where f.name != "v" { out += fieldCheck(f, map: "m") }
        out.append("        guard present >= m.count - (m[\"v\"] == nil ? 0 : 1) else { return false }")
        if let v = fields.first(where: { $0.name == "v" }) {
            out.append(
                "        guard let v = m[\"v\"] else { return \(v.presence == .required ? "o.mergeWrite" : "true") }")
        } else {
            out.append("        return true")
            out.append("    }")
            return out
        }
        out.append("        switch key {")
        for k in spec.settingsKeys {
            out.append("        case \(SwiftText.string(k.key)):")
            var limits: [FieldLimit] = []
            if case .range(let lower, let upper) = k.allowed { limits = [.minimum(lower), .maximum(upper)] }
            out.append("            switch v {")
            if k.isNullable {
                out.append("            case .null:")
                out.append("                return true")
            }
            for c in valueCases(k.type, limits: limits, value: "v", field: nil) {
                out.append("            case " + c + ":")
                out.append("                return true")
            }
            out.append("            default:")
            out.append("                return false")
            out.append("            }")
        }
        out.append("        default:")
        out.append("            return false")
        out.append("        }")
        out.append("    }")
        return out
    }

    private func enumPredicates() -> [String] {
        var out: [String] = []
        for e in spec.enums {
            out.append("")
            out += SwiftText.docComment(
                "One of the cloud values of `enum:\(e.name)` (`Spec/enums.tsv`), compared scalar by scalar.",
                indent: "    ")
            out.append("    static func \(enumName(e.name))(_ v: FirestoreValue) -> Bool {")
            out.append("        switch v {")
            switch e.encoding {
            case .string:
                out.append("        case .string(let s):")
                out.append("            switch s.utf8.count {")
                let byLength = Dictionary(
                    grouping: e.cases.compactMap { c -> String? in
                        if case .string(let s) = c.cloudValue { return s }
                        return nil
                    }, by: { $0.utf8.count })
                for length in byLength.keys.sorted() {
                    out.append("            case \(length):")
                    let tests = byLength[length, default: []].map {
                        "SchemaValidator.sameScalars(s, \(SwiftText.string($0)))"
                    }
                    out += SwiftLayout.packedCondition(tests, indent: 16, prefix: "return ")
                }
                out.append("            default:")
                out.append("                return false")
                out.append("            }")
            case .integer:
                let values = e.cases.compactMap { c -> Int64? in
                    if case .integer(let i) = c.cloudValue { return i }
                    return nil
                }
                out.append("        case .integer(let i):")
                out += SwiftLayout.packedCondition(
                    values.map { "i == \(SwiftText.integer($0))" }, indent: 12, prefix: "return ")
            }
            out.append("        default:")
            out.append("            return false")
            out.append("        }")
            out.append("    }")
        }
        return out
    }

    private func unitLists() -> [String] {
        var out: [String] = []
        for t in spec.unitTables {
            out.append("")
            out += SwiftText.docComment("The unit ids of `unit:\(t.name)` (`Spec/units.tsv`).", indent: "    ")
            out.append("    static let \(unitListName(t.name)): [String] = [")
            for u in t.units { out.append("        \(SwiftText.string(u.id)),") }
            out.append("    ]")
        }
        return out
    }
}

extension SwiftLayout {
    /// `prefix` + the conditions joined by `||`, on one line when it fits, else one condition per line
    /// after the first, indented four more (as `swift format` breaks a long boolean expression).
    static func packedCondition(_ conditions: [String], indent: Int, prefix: String) -> [String] {
        let pad = String(repeating: " ", count: indent)
        let one = pad + prefix + (conditions.isEmpty ? "false" : conditions.joined(separator: " || "))
        if one.count <= width { return [one] }
        var lines = [pad + prefix + conditions[0]]
        for c in conditions.dropFirst() { lines.append(pad + "    || " + c) }
        return lines
    }
}
