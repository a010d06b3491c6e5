import Foundation
import VultureSchemaCore

// SchemaRule, the ids of the violations, is generated from Spec/rules.tsv (Generated/SchemaRule.swift).

/// One thing wrong with a document: where, which rule, and whether it is an error or a warning.
public struct SchemaViolation: Sendable, Hashable, CustomStringConvertible {
    /// `error` fails validation; `warning` (an unknown field or settings key when not strict) is only reported.
    public enum Severity: String, Sendable, Hashable { case error, warning }

    /// JSON pointer of the offending value inside the document (`/summary/takeoffAt`); empty for the root.
    public var pointer: String
    /// The rule id, a ``SchemaRule`` raw value (`schema.type`).
    public var rule: String
    /// What is wrong, in plain English.
    public var message: String
    /// Error or warning.
    public var severity: Severity

    /// A violation; an error unless `severity` says otherwise.
    public init(pointer: String, rule: String, message: String, severity: Severity = .error) {
        self.pointer = pointer
        self.rule = rule
        self.message = message
        self.severity = severity
    }

    /// Whether the violation is at the top-level field `name` (its pointer `/name`, escaped as RFC
    /// 6901 says), or with `orUnder` anywhere inside it. Compared by scalars, as pointers split: a
    /// field name may start with a combining mark.
    public func isAt(field name: String, orUnder: Bool = true) -> Bool {
        let top = JSONPointer.appending("", name)
        return pointer.utf8.elementsEqual(top.utf8) || (orUnder && pointer.utf8.starts(with: (top + "/").utf8))
    }

    /// `/pointer: RULE-ID: message` (with `warning: ` before the message for warnings).
    public var description: String {
        "\(pointer.isEmpty ? "/" : pointer): \(rule): \(severity == .warning ? "warning: " : "")\(message)"
    }
}

/// How to validate a document.
public struct ValidationOptions: Sendable, Hashable {
    /// Write form (sentinels where the schema writes them) or stored form.
    public var form: DocumentForm
    /// Unknown fields and settings keys are errors instead of warnings.
    public var strict: Bool
    /// A merge write: only changed fields plus the common fields, so absent fields are fine and
    /// `$delete` is allowed (write form only).
    public var mergeWrite: Bool

    /// Options; by default the stored form, unknown fields as warnings, not a merge write.
    public init(form: DocumentForm = .stored, strict: Bool = false, mergeWrite: Bool = false) {
        self.form = form
        self.strict = strict
        self.mergeWrite = mergeWrite
    }
}

/// Checks documents against the schema tables (`SyncSchema`), field by field.
///
/// For the tables generated from `Spec/` (`SyncSchema.vulture`) a document is first checked by the
/// straight-line code generated from the same tables (`Generated/DocumentValidation.swift`); only a
/// document with something to report is walked through the tables, which word every violation.
///
/// Source: schema §2 (fields, types, limits), §5.4 (tombstones), Goldens/FORMAT.md (forms, nulls).
public struct SchemaValidator: Sendable {
    /// The tables documents are checked against.
    public let schema: SyncSchema
    /// For each field name that is not a common field, the collections (indices into
    /// `schema.collections`) whose documents have it: the one table collection inference reads.
    private let collectionsByOwnField: [String: [Int]]
    /// For each document type, the Storage path fields of its blob maps (`storagePath` limit in
    /// `Spec/fields.tsv`), found once: ``storagePathViolations(_:documentType:location:)`` reads them
    /// for every document validated.
    let blobPathFields: [String: [BlobPathField]]

    /// A validator for the documents of `schema`.
    public init(schema: SyncSchema) {
        self.schema = schema
        let common = Set(schema.fields(of: SyncSchema.commonFieldsOwner).map(\.name))
        var table: [String: [Int]] = [:]
        for (index, c) in schema.collections.enumerated() {
            for name in Set(schema.fields(of: c.documentType).map(\.name)) where !common.contains(name) {
                table[name, default: []].append(index)
            }
        }
        self.collectionsByOwnField = table
        var blobPaths: [String: [BlobPathField]] = [:]
        for c in schema.collections {
            for f in schema.fields(of: c.documentType) {
                guard case .map(let owner) = f.type else { continue }
                for pathField in schema.fields(of: owner) {
                    guard let name = pathField.limits.storagePath, let kind = StorageObjectKind(rawValue: name) else {
                        continue
                    }
                    blobPaths[c.documentType, default: []].append(
                        BlobPathField(
                            mapField: f.name, owner: owner, pathField: pathField.name, kind: kind,
                            collection: c.name, collectionPath: c.pathTemplate))
                }
            }
        }
        self.blobPathFields = blobPaths
    }

    /// Every violation of `fields` as a document of `documentType` (`FlightDocument`), in pointer order.
    public func validate(
        _ fields: [String: FirestoreValue], documentType: String, options: ValidationOptions
    ) -> [SchemaViolation] {
        if schema.isGeneratedFromSpec, fields[CommonFields.Field.deleted] != .boolean(true),
            Self.generatedFieldsAreValid(fields, documentType: documentType, options: options) == true,
            !options.mergeWrite || carriesCommonFields(fields, documentType: documentType)
        {
            // The blob maps' Storage paths depend on the document's other fields and its path: checked
            // apart from the generated per-field predicates.
            return storagePathViolations(fields, documentType: documentType)
        }
        var out: [SchemaViolation] = []
        let declared = schema.documentFields(of: documentType)
        let isTombstone = fields[CommonFields.Field.deleted] == .boolean(true)
        if isTombstone, options.mergeWrite {
            out.append(
                SchemaViolation(
                    pointer: "/deleted", rule: SchemaRule.tombstone.rawValue,
                    message: "a tombstone is written as a full replace, not a merge write (schema §5.4, pinned "
                        + "tombstoneFullReplace), so that no stale field survives"))
        }
        if isTombstone, schema.collection(documentType: documentType)?.hasCommonFields == true {
            let keep = Set(schema.fields(of: SyncSchema.commonFieldsOwner).map(\.name))
            for key in fields.keys.sorted(by: CanonicalJSONWriter.utf16Precedes) where !keep.contains(key) {
                out.append(
                    SchemaViolation(
                        pointer: JSONPointer.appending("", key), rule: SchemaRule.tombstone.rawValue,
                        message: "a tombstone keeps only the common fields and deletedAt (schema §5.4); remove \(key)"))
            }
            if case .timestamp? = fields[CommonFields.Field.deletedAt] {
            } else {
                out.append(
                    SchemaViolation(
                        pointer: "/deletedAt", rule: SchemaRule.tombstone.rawValue,
                        message: "a tombstone carries deletedAt, the device's time of the delete (schema §5.4)"))
            }
            let common = declared.filter { keep.contains($0.name) }
            checkMap(fields, declared: common, pointer: "", options: options, into: &out, checkUnknown: false)
        } else {
            checkMap(fields, declared: declared, pointer: "", options: options, into: &out, checkUnknown: true)
        }
        if options.mergeWrite, schema.collection(documentType: documentType)?.hasCommonFields == true {
            for f in schema.fields(of: SyncSchema.commonFieldsOwner) where f.isRequired && fields[f.name] == nil {
                out.append(
                    SchemaViolation(
                        pointer: JSONPointer.appending("", f.name), rule: SchemaRule.missingField.rawValue,
                        message: "a merge write carries the common fields (schema §5.1); \(f.name) is absent"))
            }
        }
        out += storagePathViolations(fields, documentType: documentType)
        return out
    }

    /// Whether a merge write carries the required common fields (schema §5.1), when its collection has them.
    private func carriesCommonFields(_ fields: [String: FirestoreValue], documentType: String) -> Bool {
        guard schema.collection(documentType: documentType)?.hasCommonFields == true else { return true }
        return schema.fields(of: SyncSchema.commonFieldsOwner).allSatisfy { !$0.isRequired || fields[$0.name] != nil }
    }

    /// The document type a document belongs to: from its path when given
    /// (`users/u/flights/x`, or a full REST name), else from the field names only it has: the
    /// collection with the most of the document's field names among its own (not common) fields.
    /// - Returns: nil when neither tells (a tombstone without a path, an empty document, a tie).
    public func inferDocumentType(fields: [String: FirestoreValue], path: String?) -> String? {
        if let path, let type = pathViolations(path: path, fields: fields).documentType { return type }
        let count = schema.collections.count
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { scores in
            scores.initialize(repeating: 0)
            for key in fields.keys {
                guard let owners = collectionsByOwnField[key] else { continue }
                for c in owners { scores[c] += 1 }
            }
            var best: (index: Int, score: Int)? = nil
            var tie = false
            for c in 0..<count where scores[c] > 0 {
                if let b = best, scores[c] <= b.score {
                    if scores[c] == b.score { tie = true }
                } else {
                    best = (c, scores[c])
                    tie = false
                }
            }
            return tie ? nil : best.map { schema.collections[$0.index].documentType }
        }
    }

    /// The document type a document path names, and what is wrong with the path: a collection the
    /// schema does not have, a path of the wrong shape (schema §2 layout), an id that the
    /// deterministic id rules do not give for these fields (schema §4: flights, home bases, map
    /// files, tasks with an externalUrl), a task's random id not written as a lowercase UUID (pin
    /// taskRandomId), and, when the id is right, a blob map's Storage path whose uid or id is not
    /// this path's (`schema.storage-path` at the path field, e.g. `/igc/path`; what the fields alone
    /// show is ``validate(_:documentType:options:)``'s, not repeated here).
    /// - Parameters:
    ///   - path: `users/{uid}/…`, or a full REST name `projects/…/documents/users/…`.
    ///   - fields: the document's fields (a tombstone's id cannot be checked).
    public func pathViolations(path: String, fields: [String: FirestoreValue]) -> (
        documentType: String?, violations: [SchemaViolation]
    ) {
        let segments = DocumentLocation.segments(of: path)
        func wrong(_ message: String) -> (String?, [SchemaViolation]) {
            (nil, [SchemaViolation(pointer: "", rule: SchemaRule.collection.rawValue, message: message)])
        }
        guard segments.first == "users", segments.count == 2 || segments.count == 4, !segments.contains("") else {
            return wrong(
                "\(segments.joined(separator: "/")) is not a document path of the schema: "
                    + "users/{uid} or users/{uid}/COLLECTION/{id}")
        }
        for segment in [segments[1]] + (segments.count == 4 ? [segments[3]] : []) {
            do throws(DocumentIdError) {
                try DocumentIds.validate(documentId: segment)
            } catch {
                return (
                    nil,
                    [
                        SchemaViolation(
                            pointer: "", rule: SchemaRule.documentId.rawValue,
                            message: "\(segment.prefix(80)) is not a Firestore document id: \(error)")
                    ]
                )
            }
        }
        if segments.count == 2 { return (schema.collection(named: "users")?.documentType, []) }
        guard segments[2] != "users", let collection = schema.collection(named: segments[2]) else {
            let names = schema.collections.filter { $0.name != "users" }.map(\.name).joined(separator: ", ")
            return wrong("\(segments[2]) is not a collection of the schema (\(names))")
        }
        let id = segments[3]
        if let last = collection.pathTemplate.split(separator: "/").last, !last.hasPrefix("{"), id != last {
            return (
                collection.documentType,
                [
                    SchemaViolation(
                        pointer: "", rule: SchemaRule.collection.rawValue,
                        message: "the only document of \(collection.name) is \(last), not \(id)")
                ]
            )
        }
        if let random = randomIdViolation(collection: collection.name, id: id, fields: fields) {
            return (collection.documentType, [random])
        }
        guard fields[CommonFields.Field.deleted] != .boolean(true),
            let expected = expectedId(collection: collection.name, fields: fields),
            expected.id != id
        else {
            // Storage paths: only what needs this path (its uid and id), once the id is right; what the
            // fields alone show, validate reports.
            let withoutPath = Set(storagePathViolations(fields, documentType: collection.documentType).map(\.pointer))
            let located = storagePathViolations(
                fields, documentType: collection.documentType,
                location: DocumentLocation(uid: segments[1], documentId: id)
            ).filter { !withoutPath.contains($0.pointer) }
            return (collection.documentType, located)
        }
        return (
            collection.documentType,
            [
                SchemaViolation(
                    pointer: "", rule: SchemaRule.documentId.rawValue,
                    message: "the document id is \(id), but \(expected.rule) gives \(expected.id) (schema §4)")
            ]
        )
    }

    /// The id the deterministic rule gives for these fields, when they determine it (schema §4,
    /// ``DocumentIds/documentId(collection:fields:inputs:)``), with the rule in words.
    func expectedId(collection: String, fields: [String: FirestoreValue]) -> (id: String, rule: String)? {
        guard let c = SyncCollection(rawValue: collection),
            let expected = try? DocumentIds.documentId(collection: c, fields: fields)
        else { return nil }
        return (expected.id, expected.rule.explanation)
    }

    func checkMap(
        _ map: [String: FirestoreValue], declared: [SchemaField], pointer: @autoclosure () -> String,
        options: ValidationOptions,
        into out: inout [SchemaViolation], checkUnknown: Bool = true
    ) {
        var present = 0
        for f in declared {
            guard let v = map[f.name] else {
                if f.mustBePresent(in: options.form) && !options.mergeWrite {
                    let how =
                        options.form == .stored
                        ? "; a reader has neither a value nor a default for it"
                        : f.isNullable ? "; a field without a value is written as null (Goldens/FORMAT.md)" : ""
                    out.append(
                        SchemaViolation(
                            pointer: JSONPointer.appending(pointer(), f.name), rule: SchemaRule.missingField.rawValue,
                            message: "\(f.owner).\(f.name) (\(f.type)) is required\(how)"))
                }
                continue
            }
            present += 1
            checkField(v, field: f, pointer: JSONPointer.appending(pointer(), f.name), options: options, into: &out)
            if let flag = f.limits.nullUnless, !v.isSentinel, v != .null, map[flag] != .boolean(true) {
                out.append(
                    SchemaViolation(
                        pointer: JSONPointer.appending(pointer(), f.name), rule: SchemaRule.nullUnless.rawValue,
                        message: "\(f.owner).\(f.name) is null unless \(flag) is true (limit nullUnless=\(flag)): "
                            + "only a tombstone has \(f.name); write null (schema §5.4)"))
            }
        }
        // Every key is a declared field unless the map has more keys than declared fields found.
        guard checkUnknown, present < map.count else { return }
        let names = Set(declared.map(\.name))
        for key in map.keys.sorted(by: CanonicalJSONWriter.utf16Precedes) where !names.contains(key) {
            var message = "the schema has no field \"\(key)\" here"
            if let near = EditDistance.nearest(key, among: declared.map(\.name)) {
                message += "; did you mean \(near)?"
            }
            out.append(
                SchemaViolation(
                    pointer: JSONPointer.appending(pointer(), key), rule: SchemaRule.unknownField.rawValue,
                    message: message, severity: options.strict ? .error : .warning))
        }
    }

    func checkField(
        _ v: FirestoreValue, field f: SchemaField, pointer: @autoclosure () -> String, options: ValidationOptions,
        into out: inout [SchemaViolation]
    ) {
        func fail(_ rule: SchemaRule, _ message: String) {
            out.append(SchemaViolation(pointer: pointer(), rule: rule.rawValue, message: message))
        }
        switch v {
        case .serverTimestamp, .increment, .delete:
            guard options.form == .write else {
                fail(.sentinel, "a \(v.typeName) sentinel has no place in the stored form")
                return
            }
            switch (v, f.writeAs) {
            case (.serverTimestamp, .serverTimestamp): return
            case (.increment(.integer), .increment) where f.type == .integer: return
            case (.increment(.double), .increment) where f.type == .double: return
            case (.delete, _) where options.mergeWrite && f.writeAs == .value && !f.isRequired: return
            case (.delete, _) where options.mergeWrite:
                fail(
                    .sentinel,
                    "\(f.owner).\(f.name) is required: a merge write clears it with null (Goldens/FORMAT.md), never removes it"
                )
                return
            default:
                fail(.sentinel, "\(f.owner).\(f.name) is not written with the \(v.typeName) sentinel")
                return
            }
        default:
            break
        }
        if options.form == .write, f.writeAs == .serverTimestamp {
            fail(
                .serverTimestamp,
                "\(f.name) must be the server-timestamp sentinel {\"$serverTimestamp\": true}, never a client time "
                    + "(schema §2)")
            return
        }
        if v == .null {
            if !f.isNullable { fail(.null, "\(f.owner).\(f.name) is not nullable") }
            return
        }
        checkValue(
            v, type: f.type, limits: f.limits, label: "\(f.owner).\(f.name)", pointer: pointer(), options: options,
            into: &out)
    }

    func checkValue(
        _ v: FirestoreValue, type: SchemaFieldType, limits: SchemaFieldLimits, label: @autoclosure () -> String,
        pointer: @autoclosure () -> String,
        options: ValidationOptions, into out: inout [SchemaViolation], settingsKey: String? = nil
    ) {
        func fail(_ rule: SchemaRule, _ message: String) {
            out.append(SchemaViolation(pointer: pointer(), rule: rule.rawValue, message: message))
        }
        func wrongType() {
            var message = "\(label()) is \(type), found \(v.typeName)"
            switch (type, v) {
            case (.double, .integer(let i)): message += "; write a double with a fraction: \(i).0, not \(i)"
            case (.integer, .double(let d)):
                message +=
                    d.rounded() == d && abs(d) < 9e15
                    ? "; write an integer without a fraction: \(Int64(d)), not \(CanonicalJSON.compactString(v))"
                    : "; write an integer without a fraction"
            default: break
            }
            fail(.type, message)
        }
        switch type {
        case .string:
            guard case .string(let s) = v else { return wrongType() }
            checkString(s, limits: limits, label: label(), fail: fail)
        case .boolean:
            guard case .boolean = v else { return wrongType() }
        case .integer:
            guard case .integer(let i) = v else { return wrongType() }
            checkNumber(Double(i), limits: limits, label: label(), fail: fail)
        case .double:
            guard case .double(let d) = v else { return wrongType() }
            checkNumber(d, limits: limits, label: label(), fail: fail)
        case .timestamp:
            guard case .timestamp = v else { return wrongType() }
        case .bytes:
            guard case .bytes(let b) = v else { return wrongType() }
            if let max = limits.maxBytes, b.count > max {
                fail(.maxBytes, "\(label()) is \(b.count) bytes; at most \(max)")
            }
        case .dateString:
            guard case .string(let s) = v else { return wrongType() }
            if !Self.isCalendarDay(s) { fail(.dateString, "\(label()) \"\(s)\" is not a calendar day yyyy-MM-dd") }
        case .settingValue:
            guard let key = settingsKey, let k = schema.settingsKey(key) else { return }
            if v == .null {
                if !k.isNullable { fail(.null, "settings key \(key) is not nullable") }
                return
            }
            var l = SchemaFieldLimits()
            if let r = k.range {
                l.minimum = r.lowerBound
                l.maximum = r.upperBound
            }
            checkValue(
                v, type: k.type, limits: l, label: "settings \(key)", pointer: pointer(), options: options, into: &out)
        case .enumeration(let name):
            guard let e = schema.enumeration(named: name) else { return }
            if !e.cases.contains(where: { $0.cloudValue == v }) {
                let allowed = e.cases.map { CanonicalJSON.compactString($0.cloudValue) }.joined(separator: ", ")
                fail(.enumeration, "\(label()) \(CanonicalJSON.compactString(v)) is not one of \(name): \(allowed)")
            }
        case .unit(let name):
            guard case .string(let s) = v else { return wrongType() }
            if let t = schema.unitTable(named: name), !t.units.contains(s) {
                fail(.unit, "\(label()) \"\(s)\" is not a unit of \(name): \(t.units.joined(separator: ", "))")
            }
        case .map(let owner):
            guard case .map(let m) = v else { return wrongType() }
            checkMap(m, declared: schema.fields(of: owner), pointer: pointer(), options: options, into: &out)
        case .array(let element):
            guard case .array(let a) = v else { return wrongType() }
            if let max = limits.maxItems, a.count > max {
                fail(.maxItems, "\(label()) has \(a.count) elements; at most \(max)")
            }
            for (i, e) in a.enumerated() {
                checkValue(
                    e, type: element, limits: SchemaFieldLimits(), label: "\(label())[]",
                    pointer: JSONPointer.appending(pointer(), i), options: options, into: &out)
            }
        case .dictionary(let element):
            guard case .map(let m) = v else { return wrongType() }
            for key in m.keys.sorted(by: CanonicalJSONWriter.utf16Precedes) {
                if element == .map("SettingsEntry") {
                    checkSettingsEntry(
                        m[key]!, key: key, pointer: JSONPointer.appending(pointer(), key), options: options, into: &out)
                } else {
                    checkValue(
                        m[key]!, type: element, limits: limits, label: "\(label()).\(key)",
                        pointer: JSONPointer.appending(pointer(), key), options: options,
                        into: &out)
                }
            }
        }
    }

    func checkSettingsEntry(
        _ v: FirestoreValue, key: String, pointer: @autoclosure () -> String, options: ValidationOptions,
        into out: inout [SchemaViolation]
    ) {
        if schema.settingsKey(key) == nil {
            out.append(
                SchemaViolation(
                    pointer: pointer(), rule: SchemaRule.unknownSettingsKey.rawValue,
                    message: "the schema has no settings key \"\(key)\""
                        + (EditDistance.nearest(key, among: schema.settingsKeys.map(\.key)).map {
                            "; did you mean \($0)?"
                        }
                            ?? ""),
                    severity: options.strict ? .error : .warning))
        }
        guard case .map(let entry) = v else {
            out.append(
                SchemaViolation(
                    pointer: pointer(), rule: SchemaRule.type.rawValue,
                    message: "a settings entry is a map {v, t, d}, found \(v.typeName)"))
            return
        }
        let declared = schema.fields(of: "SettingsEntry")
        var plain = entry
        plain.removeValue(forKey: SettingsEntry.Field.v)
        checkMap(
            plain, declared: declared.filter { $0.name != SettingsEntry.Field.v }, pointer: pointer(), options: options,
            into: &out)
        guard let vField = declared.first(where: { $0.name == SettingsEntry.Field.v }) else { return }
        guard let value = entry[SettingsEntry.Field.v] else {
            if vField.mustBePresent(in: options.form) && !options.mergeWrite {
                out.append(
                    SchemaViolation(
                        pointer: JSONPointer.appending(pointer(), SettingsEntry.Field.v),
                        rule: SchemaRule.missingField.rawValue,
                        message: "SettingsEntry.v is required"))
            }
            return
        }
        checkValue(
            value, type: .settingValue, limits: SchemaFieldLimits(), label: "settings \(key)",
            pointer: JSONPointer.appending(pointer(), SettingsEntry.Field.v),
            options: options, into: &out, settingsKey: key)
    }

    func checkString(
        _ s: String, limits: SchemaFieldLimits, label: @autoclosure () -> String, fail: (SchemaRule, String) -> Void
    ) {
        if let max = limits.maxChars, s.unicodeScalars.count > max {
            fail(.maxChars, "\(label()) is \(s.unicodeScalars.count) characters (code points); at most \(max)")
        }
        if let max = limits.maxBytes, s.utf8.count > max {
            fail(.maxBytes, "\(label()) is \(s.utf8.count) UTF-8 bytes; at most \(max)")
        }
        if let n = limits.hexLength {
            let isHex = s.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
            if s.utf8.count != n || !isHex {
                fail(.hexLength, "\(label()) must be \(n) lowercase hex characters, found \"\(s.prefix(80))\"")
            }
        }
    }

    func checkNumber(
        _ d: Double, limits: SchemaFieldLimits, label: @autoclosure () -> String, fail: (SchemaRule, String) -> Void
    ) {
        // NaN is outside both bounds at once: one finding names the range.
        if d.isNaN, let min = limits.minimum, let max = limits.maximum {
            fail(
                .range,
                "\(label()) is NaN; from \(ECMAScriptNumber.string(min)) to \(ECMAScriptNumber.string(max))")
            return
        }
        if let min = limits.minimum, !(d >= min) {
            fail(.range, "\(label()) is \(ECMAScriptNumber.string(d)); at least \(ECMAScriptNumber.string(min))")
        }
        if let max = limits.maximum, !(d <= max) {
            fail(.range, "\(label()) is \(ECMAScriptNumber.string(d)); at most \(ECMAScriptNumber.string(max))")
        }
        if let step = limits.step, step > 0, d.isFinite, (d / step).rounded() * step != d {
            fail(
                .range,
                "\(label()) is \(ECMAScriptNumber.string(d)); must be a multiple of \(ECMAScriptNumber.string(step))")
        }
    }

    /// `body` over the UTF-8 bytes of `key` (the generated field-name lookups).
    @inline(__always)
    static func withBytes<R>(of key: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let r = key.utf8.withContiguousStorageIfAvailable(body) { return r }
        return Array(key.utf8).withUnsafeBufferPointer(body)
    }

    /// The first eight bytes of `k`, zero-padded, as a little-endian word.
    @inline(__always)
    static func firstWord(_ k: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard let p = k.baseAddress else { return 0 }
        if k.count >= 8 { return UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)) }
        var word: UInt64 = 0
        for j in 0..<k.count { word |= UInt64(p[j]) << UInt64(8 * j) }
        return word
    }

    /// Whether the bytes of `k` from `offset` on are those of `rest`.
    @inline(__always)
    static func bytes(_ k: UnsafeBufferPointer<UInt8>, from offset: Int, are rest: StaticString) -> Bool {
        let n = rest.utf8CodeUnitCount
        guard k.count == offset + n, let p = k.baseAddress else { return false }
        return memcmp(p + offset, rest.utf8Start, n) == 0
    }

    /// Whether `s` has at most `limit` Unicode scalars (a `maxChars` limit): its UTF-8 bytes that do
    /// not continue a scalar, counted only when the bytes alone exceed the limit.
    static func hasAtMostScalars(_ s: String, _ limit: Int) -> Bool {
        let n = s.utf8.count
        if n <= limit { return true }
        return withBytes(of: s) { u in
            // Continuation bytes (10xxxxxx) eight at a time: bit 7 set, bit 6 clear.
            guard let p = u.baseAddress else { return true }
            var continuations = 0
            var j = 0
            while n - j >= 8 {
                // Up to 255 words summed bytewise (one per continuation byte), then the eight sums added
                // by a multiplication: no population count, which x86-64's baseline has no instruction for.
                var sums: UInt64 = 0
                var words = min((n - j) / 8, 255)
                while words > 0 {
                    let w = UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self)
                    sums &+= (w & ~(w << 1) & 0x8080_8080_8080_8080) >> 7
                    j &+= 8
                    words &-= 1
                }
                let pairs = (sums & 0x00FF_00FF_00FF_00FF) &+ (sums >> 8 & 0x00FF_00FF_00FF_00FF)
                continuations += Int(truncatingIfNeeded: (pairs &* 0x0001_0001_0001_0001) >> 48)
            }
            while j < n {
                if p[j] & 0xC0 == 0x80 { continuations += 1 }
                j += 1
            }
            return n - continuations <= limit
        }
    }

    /// Whether `s` is exactly `length` lowercase hex digits (a `hexLength` limit).
    static func isLowercaseHex(_ s: String, length: Int) -> Bool {
        guard s.utf8.count == length else { return false }
        return withBytes(of: s) { u in
            for b in u where b &- 0x30 > 9 && b &- 0x61 > 5 { return false }
            return true
        }
    }

    /// Whether `d` is a whole multiple of `step` (> 0) as the `step` limit reads it; NaN and ±Infinity pass.
    static func isMultiple(_ d: Double, of step: Double) -> Bool {
        !(d.isFinite && (d / step).rounded() * step != d)
    }

    /// Whether two strings hold the same Unicode scalars (`FirestoreValue` equality, not `==`, which
    /// also equates canonically equivalent strings).
    static func sameScalars(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        return withBytes(of: a) { x in
            withBytes(of: b) { y in
                guard let p = x.baseAddress, let q = y.baseAddress else { return true }
                return memcmp(p, q, x.count) == 0
            }
        }
    }

    /// `yyyy-MM-dd` naming a real day of the proleptic Gregorian calendar, year 0001–9999.
    public static func isCalendarDay(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return false }
        func num(_ r: Range<Int>) -> Int64? {
            var v: Int64 = 0
            for i in r {
                guard (0x30...0x39).contains(b[i]) else { return nil }
                v = v * 10 + Int64(b[i] - 0x30)
            }
            return v
        }
        guard let y = num(0..<4), let m = num(5..<7), let d = num(8..<10), y >= 1, (1...12).contains(m), d >= 1 else {
            return false
        }
        return d <= CivilCalendar.daysInMonth(year: y, month: m)
    }
}

/// Edit distances between field names, for "did you mean …?" hints.
public enum EditDistance {
    /// The candidate within edit distance 2 of `name`, nearest first (ties: the first in UTF-16
    /// order), or nil: the "did you mean …?" of reports.
    public static func nearest(_ name: String, among candidates: [String]) -> String? {
        var best: (String, Int)? = nil
        for c in candidates.sorted(by: CanonicalJSONWriter.utf16Precedes) where c != name {
            let d = osa(name, c)
            if d <= 2, best == nil || d < best!.1 { best = (c, d) }
        }
        return best?.0
    }

    /// Optimal-string-alignment distance (Levenshtein plus adjacent transposition) over Unicode scalars.
    public static func osa(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars)
        let y = Array(b.unicodeScalars)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[x.count][y.count]
    }
}
