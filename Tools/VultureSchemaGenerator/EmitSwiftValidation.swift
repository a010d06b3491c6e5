import Foundation
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
        out.append("import VultureSchemaCore")
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

    /// The predicate of one owner: every key of the map is one of its field names (found by its bytes,
    /// see ``nameIndex(_:names:)``) whose value passes that field's checks, and every required field
    /// is there (unless a merge write).
    private func ownerPredicate(_ owner: String, fields: [FieldSpec]) -> [String] {
        var out = [""]
        out += SwiftText.docComment("`\(owner)`: \(fields.count) fields (`Spec/fields.tsv`).", indent: "    ")
        out.append(
            "    static func \(predicateName(owner))(_ m: [String: FirestoreValue], _ o: ValidationOptions) -> Bool {")
        let names = distinctNames(fields)
        if fields.isEmpty {
            out.append("        m.isEmpty")
            out.append("    }")
            return out
        }
        out.append("        var seen: UInt64 = 0")
        out.append("        for (key, v) in m {")
        out.append("            switch \(nameIndexName(owner))(key) {")
        for (index, name) in names.enumerated() {
            out.append("            case \(index):")
            out.append("                seen |= 1 << \(index)")
            for f in fields where f.name == name { out += valueCheck(f, indent: 16) }
        }
        out.append("            default:")
        out.append("                return false")
        out.append("            }")
        out.append("        }")
        // nullUnless=FLAG: a value only while FLAG is true (only a tombstone has deletedAt).
        for f in fields {
            for case .nullUnless(let flag) in f.limits {
                out.append(
                    "        if let v = m[\(SwiftText.string(f.name))], v != .null, m[\(SwiftText.string(flag))] != "
                        + ".boolean(true) { return false }")
            }
        }
        out += requiredCheck(names: names, fields: fields, seen: "seen", indent: 8)
        out.append("    }")
        out += nameIndex(owner, names: names)
        return out
    }

    /// The field names of `fields` in table order, each once (a name declared twice is checked twice).
    private func distinctNames(_ fields: [FieldSpec]) -> [String] {
        var names: [String] = []
        for f in fields where !names.contains(f.name) { names.append(f.name) }
        return names
    }

    /// `return` whether every field the form needs was seen (``requiredCondition(names:fields:seen:)``).
    private func requiredCheck(names: [String], fields: [FieldSpec], seen: String, indent: Int) -> [String] {
        let pad = String(repeating: " ", count: indent)
        guard let (prelude, condition) = requiredCondition(names: names, fields: fields, seen: seen) else {
            return [pad + "return true"]
        }
        return prelude.map { pad + $0 } + [pad + "return " + condition]
    }

    /// Whether every field the form needs was seen: the lines that come first and the condition;
    /// nil when no field is ever needed. A full write needs every required field; a stored document
    /// those a reader has neither a value nor a default for (required, not nullable, no default:
    /// `SchemaField.mustBePresent(in:)`); a merge write none.
    private func requiredCondition(names: [String], fields: [FieldSpec], seen: String) -> (
        prelude: [String], condition: String
    )? {
        func mask(_ needed: (FieldSpec) -> Bool) -> UInt64 {
            var mask: UInt64 = 0
            for (index, name) in names.enumerated() where fields.contains(where: { $0.name == name && needed($0) }) {
                mask |= 1 << UInt64(index)
            }
            return mask
        }
        let write = mask { $0.presence == .required }
        let stored = mask { $0.presence == .required && !$0.isNullable && $0.defaultValue == nil }
        if write == 0 { return nil }
        if write == stored {
            let literal = SwiftText.hex(write)
            return ([], "o.mergeWrite || \(seen) & \(literal) == \(literal)")
        }
        if stored == 0 {
            let literal = SwiftText.hex(write)
            return ([], "o.mergeWrite || o.form != .write || \(seen) & \(literal) == \(literal)")
        }
        return (
            ["let need: UInt64 = o.form == .write ? \(SwiftText.hex(write)) : \(SwiftText.hex(stored))"],
            "o.mergeWrite || \(seen) & need == need"
        )
    }

    private func nameIndexName(_ owner: String) -> String {
        owner.prefix(1).lowercased() + owner.dropFirst() + "FieldIndex"
    }

    /// The function that finds a key among `names` by its UTF-8 bytes (its length, then its first eight
    /// bytes as one word, then the rest), -1 for any other key: the same match as ``FirestoreValue``
    /// equality of strings, so a key the table walk would find by `==` but not byte for byte makes the
    /// predicate fail and the walk decide.
    private func nameIndex(_ owner: String, names: [String]) -> [String] {
        var out = [""]
        out += SwiftText.docComment(
            "The position of `key` among the field names of `\(owner)`, byte for byte; -1 for another key.",
            indent: "    ")
        out.append("    static func \(nameIndexName(owner))(_ key: String) -> Int {")
        out.append("        SchemaValidator.withBytes(of: key) { k in")
        out.append("            switch k.count {")
        let byLength = Dictionary(grouping: names.enumerated(), by: { $0.element.utf8.count })
        for length in byLength.keys.sorted() {
            out.append("            case \(length):")
            out.append("                switch SchemaValidator.firstWord(k) {")
            let byWord = Dictionary(grouping: byLength[length] ?? [], by: { SwiftText.firstWord($0.element) })
            for word in byWord.keys.sorted() {
                out.append("                case \(SwiftText.hex(word)):")
                for (index, name) in byWord[word] ?? [] {
                    let rest = Array(name.utf8.dropFirst(8))
                    if rest.isEmpty {
                        out.append("                    return \(index)")
                    } else {
                        let restText = String(decoding: rest, as: UTF8.self)
                        out.append(
                            "                    if SchemaValidator.bytes(k, from: 8, are: \(SwiftText.string(restText))) "
                                + "{ return \(index) }")
                    }
                }
                if (byWord[word] ?? []).allSatisfy({ $0.element.utf8.count > 8 }) {
                    out.append("                    return -1")
                }
            }
            out.append("                default:")
            out.append("                    return -1")
            out.append("                }")
        }
        out.append("            default:")
        out.append("                return -1")
        out.append("            }")
        out.append("        }")
        out.append("    }")
        return out
    }

    /// The check of one field's value `v` (checkField's rules) at `indent` spaces: falls through when
    /// the value is right, returns false when it is not.
    private func valueCheck(_ f: FieldSpec, indent: Int) -> [String] {
        let pad = String(repeating: " ", count: indent)
        var out = [
            pad + "// \(f.name): \(f.type), \(f.presence == .required ? "required" : "optional")"
                + (f.isNullable ? ", nullable" : "") + (f.writeAs == .value ? "" : ", written as \(f.writeAs.rawValue)")
                + (f.limits.isEmpty ? "" : ", " + f.limits.map(\.description).joined(separator: ","))
        ]
        out.append(pad + "switch v {")
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
            out.append(pad + c)
            out.append(pad + "    break")
        }
        out.append(pad + "case .serverTimestamp, .increment, .delete:")
        out.append(pad + "    return false")
        // A client value of a server-timestamp field is wrong in the write form.
        let storedOnly = f.writeAs == .serverTimestamp ? "o.form != .write" : nil
        if f.isNullable {
            out.append(pad + "case .null" + (storedOnly.map { " where " + $0 } ?? "") + ":")
            out.append(pad + "    break")
        }
        for c in valueCases(f.type, limits: f.limits, value: "v", field: f) {
            out.append(pad + joinWhere(c, storedOnly) + ":")
            out.append(pad + "    break")
        }
        out.append(pad + "default:")
        out.append(pad + "    return false")
        out.append(pad + "}")
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
        let plain = fields.filter { $0.name != "v" }
        let names = distinctNames(plain)
        var out = [""]
        out += SwiftText.docComment(
            "A `\(Self.settingsEntry)` under settings key `key` (`Spec/settings-keys.tsv`): its fields, and `v` of "
                + "the key's type and range; an unknown key is something to report.",
            indent: "    ")
        out.append(
            "    static func isValidSettingsEntry(_ entry: FirestoreValue, key: String, _ o: ValidationOptions) -> Bool {"
        )
        out.append("        guard case .map(let m) = entry else { return false }")
        out.append("        var seen: UInt64 = 0")
        out.append("        var value: FirestoreValue?")
        out.append("        for (name, v) in m {")
        out.append("            switch \(nameIndexName(Self.settingsEntry))(name) {")
        for (index, name) in names.enumerated() {
            out.append("            case \(index):")
            out.append("                seen |= 1 << \(index)")
            for f in plain where f.name == name { out += valueCheck(f, indent: 16) }
        }
        out.append("            default:")
        out.append("                guard name.utf8.elementsEqual(\"v\".utf8) else { return false }")
        out.append("                value = v")
        out.append("            }")
        out.append("        }")
        if let (prelude, condition) = requiredCondition(names: names, fields: plain, seen: "seen") {
            out += prelude.map { "        " + $0 }
            out.append("        guard " + condition + " else { return false }")
        }
        if let v = fields.first(where: { $0.name == "v" }) {
            let absent: String
            switch (v.presence == .required, !v.isNullable && v.defaultValue == nil) {
            case (false, _): absent = "true"
            case (true, false): absent = "o.mergeWrite || o.form != .write"
            case (true, true): absent = "o.mergeWrite"
            }
            out.append("        guard let v = value else { return \(absent) }")
        } else {
            out.append("        return value == nil")
            out.append("    }")
            out += nameIndex(Self.settingsEntry, names: names)
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
        out += nameIndex(Self.settingsEntry, names: names)
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
