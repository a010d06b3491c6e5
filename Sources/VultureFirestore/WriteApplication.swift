import VultureSchemaCore
import VultureSyncSchema

/// What one write leaves: the document's fields (nil when no document remains) and the value each
/// transform set.
public struct FirestoreWriteOutcome: Sendable, Hashable {
    /// The fields after the write; nil when the document does not exist afterwards.
    public var fields: [String: FirestoreValue]?
    /// The value each transform set, in the order of `FirestoreWrite.transforms`.
    public var transformResults: [FirestoreValue]
}

extension FirestoreWrite {
    /// Applies this write to a stored document exactly as Firestore (its emulator) does.
    ///
    /// - An update without a mask replaces the fields. With a mask, each mask path that holds a
    ///   value is set (a map replaced whole, an empty map included; an array replaced whole; maps
    ///   created on the way, a non-map on the way replaced by a map) and each mask path without a
    ///   value is deleted (a map emptied by that stays, empty).
    /// - Then the transforms, in field path order: a server timestamp sets `requestTime`; an
    ///   increment adds to an integer (saturating at the int64 limits) or a double (IEEE 754, in
    ///   doubles when either side is one) and sets the operand where the field is missing or not a
    ///   number.
    /// - Firestore keeps no −0: every −0.0 is stored as 0.0.
    /// - The precondition is checked against `existing` first; the document limits afterwards
    ///   (1 MiB by ``FirestoreDocumentLimits/size(path:fields:)``, depth, field names, value sizes).
    ///
    /// - Parameters:
    ///   - existing: the stored document, or nil when there is none.
    ///   - requestTime: the commit's request time, which every server timestamp of the commit takes
    ///     (Firestore: millisecond precision).
    /// - Returns: the fields afterwards (nil for none) and the transform results.
    /// - Throws: `FirestoreError` — INVALID_ARGUMENT for a write Firestore refuses or a document over
    ///   its limits, NOT_FOUND / ALREADY_EXISTS / FAILED_PRECONDITION for a precondition.
    public func apply(to existing: FirestoreDocument?, requestTime: FirestoreTimestamp) throws(FirestoreError)
        -> FirestoreWriteOutcome
    {
        try FirestoreWriteRules.validate(self)
        try FirestoreWriteRules.validateCollapsed([self])
        let path = self.path ?? ""
        try FirestoreWriteRules.checkPrecondition(
            precondition, exists: existing != nil, originalExists: existing != nil,
            originalVersion: existing?.updateTime, path: path)
        let outcome = applyUnchecked(to: existing?.fields, requestTime: requestTime)
        if let fields = outcome.fields { try FirestoreDocumentLimits.check(path: path, fields: fields) }
        return outcome
    }

    /// The write's effect without checks (see ``apply(to:requestTime:)``); `transforms` is
    /// ``FirestoreWrite/transforms`` where the caller has it already.
    func applyUnchecked(
        to existing: [String: FirestoreValue]?, requestTime: FirestoreTimestamp,
        transforms: [FirestoreFieldTransform]? = nil
    ) -> FirestoreWriteOutcome {
        guard case .update(let raw, let mask) = operation else {
            return FirestoreWriteOutcome(fields: nil, transformResults: [])
        }
        let transforms = transforms ?? self.transforms
        // The fields themselves in stored form, with no map to merge into.
        func storedForm() -> FirestoreWriteOutcome {
            var result = FirestoreDocumentLimits.normalizingZeros(updateFields)
            return withTransforms(transforms, &result, requestTime: requestTime)
        }
        guard let mask else { return storedForm() }
        // Onto no document, a mask of every field (all top-level) is a write without a mask.
        if existing?.isEmpty ?? true, mask.count == raw.count, mask.allSatisfy({ $0.segments.count == 1 }) {
            return storedForm()
        }
        var result = existing ?? [:]
        result.reserveCapacity(result.count + mask.count)
        let written = FirestoreValue.map(raw)
        // Each mask path takes the written value in stored form (``updateFields`` at that path, −0.0
        // as 0.0) or loses its field; a transform's own path is set below.
        for p in mask {
            let value = p.segments.count == 1 ? raw[p.segments[0]] : written[path: p]
            switch value {
            case .serverTimestamp?, .increment?:
                continue
            case nil, .delete?:
                FieldEditing.remove(p.segments[...], from: &result)
            case let value?:
                FieldEditing.set(FirestoreDocumentLimits.storedValue(value), at: p.segments[...], in: &result)
            }
        }
        return withTransforms(transforms, &result, requestTime: requestTime)
    }

    /// Applies the write's transforms to `result`, in order.
    func withTransforms(
        _ transforms: [FirestoreFieldTransform], _ result: inout [String: FirestoreValue],
        requestTime: FirestoreTimestamp
    ) -> FirestoreWriteOutcome {
        var results: [FirestoreValue] = []
        for t in transforms {
            let value: FirestoreValue
            switch t.kind {
            case .serverTimestamp:
                value = .timestamp(requestTime)
            case .increment(let operand):
                value = FirestoreDocumentLimits.normalizingZero(
                    Self.increment(FirestoreValue.map(result)[path: t.path], by: operand))
            }
            FieldEditing.set(value, at: t.path.segments[...], in: &result)
            results.append(value)
        }
        return FirestoreWriteOutcome(fields: result, transformResults: results)
    }

    /// Firestore's increment: integer + integer saturates at the int64 limits; a double on either
    /// side adds in doubles; a missing or non-numeric field takes the operand.
    static func increment(_ current: FirestoreValue?, by operand: IncrementOperand) -> FirestoreValue {
        switch (current, operand) {
        case (.integer(let a)?, .integer(let b)):
            let (sum, overflow) = a.addingReportingOverflow(b)
            if overflow { return .integer(b > 0 ? .max : .min) }
            return .integer(sum)
        case (.integer(let a)?, .double(let b)): return .double(Double(a) + b)
        case (.double(let a)?, .integer(let b)): return .double(a + Double(b))
        case (.double(let a)?, .double(let b)): return .double(a + b)
        case (_, .integer(let b)): return .integer(b)
        case (_, .double(let b)): return .double(b)
        }
    }
}

/// Setting and removing a value at a field path inside a field map.
enum FieldEditing {
    /// Sets `value` at the path, creating maps on the way and replacing a non-map on the way.
    static func set(_ value: FirestoreValue, at segments: ArraySlice<String>, in fields: inout [String: FirestoreValue])
    {
        guard let head = segments.first else { return }
        if segments.count == 1 {
            fields[head] = value
            return
        }
        var inner: [String: FirestoreValue] = [:]
        if case .map(let m)? = fields[head] { inner = m }
        fields[head] = nil  // keep `inner` uniquely referenced while it changes
        set(value, at: segments.dropFirst(), in: &inner)
        fields[head] = .map(inner)
    }

    /// Removes the field at the path; nothing when a segment is missing or a non-map is on the way.
    /// A map emptied by the removal stays.
    static func remove(_ segments: ArraySlice<String>, from fields: inout [String: FirestoreValue]) {
        guard let head = segments.first else { return }
        if segments.count == 1 {
            fields[head] = nil
            return
        }
        guard case .map(var inner)? = fields[head] else { return }
        fields[head] = nil
        remove(segments.dropFirst(), from: &inner)
        fields[head] = .map(inner)
    }
}

/// The rules Firestore checks on a write before it touches any document (all INVALID_ARGUMENT),
/// and the preconditions.
enum FirestoreWriteRules {
    /// The most segments a mask path may have.
    static let maximumMaskPathSegments = 20

    static func invalid(_ message: String) -> FirestoreError { FirestoreError(.invalidArgument, message) }

    /// Checks the document path, mask and transform paths, and values of one write.
    /// - Parameters:
    ///   - transforms: the write's ``FirestoreWrite/transforms``, where the caller has them already.
    ///   - valuesChecked: true when ``FirestoreDocumentLimits/checkValues(_:)`` passed on the
    ///     write's fields, which covers every rule of the structure check (that walk is skipped).
    static func validate(
        _ write: FirestoreWrite, transforms: [FirestoreFieldTransform]? = nil, valuesChecked: Bool = false
    ) throws(FirestoreError) {
        guard let path = write.path else { throw invalid("a write needs its document path") }
        if let message = FirestoreLimits.documentPathViolation(path) { throw invalid(message) }
        if case .updateTime(let t)? = write.precondition, t.microsecondsSinceEpoch < 0 {
            throw invalid("an updateTime precondition before 1970-01-01T00:00:00Z (only timestamps past the epoch)")
        }
        guard case .update(let fields, let mask) = write.operation else { return }
        for p in mask ?? [] {
            if p.segments.count > maximumMaskPathSegments {
                throw invalid("mask path `\(p)`: paths must have at most 20 elements")
            }
            if p.segments == ["__name__"] { continue }
            for s in p.segments {
                if s.utf8.count > FirestoreLimits.maximumFieldNameBytes {
                    throw invalid("mask path `\(p)` is longer than 1500 bytes")
                }
                if FirestoreDocumentLimits.isReserved(s) { throw invalid("reserved name \(s) in field path `\(p)`") }
            }
        }
        for t in transforms ?? write.transforms {
            if let s = t.path.segments.first(where: FirestoreDocumentLimits.isReserved) {
                throw invalid("reserved name \(s) in transform path `\(t.path)`")
            }
        }
        if !valuesChecked { try FirestoreDocumentLimits.checkStructure(fields, path: "") }
    }

    /// Checks the values a group of writes to one document leaves, as Firestore checks the one
    /// write it collapses them into: a value a later write of the commit replaces or deletes is not
    /// checked (a reserved field name is, in ``validate(_:)``, in every write).
    /// `valuesChecked`: a single write's values passed ``FirestoreDocumentLimits/checkValues(_:)``.
    static func validateCollapsed(_ writes: [FirestoreWrite], valuesChecked: Bool = false) throws(FirestoreError) {
        // One write alone leaves its own values, sentinels in place of their results (which
        // `checkValue` accepts outside arrays, as their results are valid), and no `$delete`
        // (`FirestoreWrite` removes them): the same names and values to check, without applying it.
        if writes.count == 1 {
            if !valuesChecked, let fields = writes[0].fields { try FirestoreDocumentLimits.checkValues(fields) }
            return
        }
        var overlay: [String: FirestoreValue]? = [:]
        for w in writes {
            overlay = w.applyUnchecked(to: overlay ?? [:], requestTime: .minimum).fields
        }
        if let overlay { try FirestoreDocumentLimits.checkValues(overlay) }
    }

    /// The precondition against the document.
    ///
    /// `updateTime` compares with the document's *version* before the commit: its update time
    /// while it exists; after a delete, the commit time of that delete; 0 (the epoch) when it never
    /// existed — so the epoch means "must not exist". Where the document exists, a later required
    /// time is INVALID_ARGUMENT and another one FAILED_PRECONDITION; where it is missing, a
    /// matching non-zero version is NOT_FOUND (there is nothing to update) and another one
    /// FAILED_PRECONDITION.
    /// - Parameters:
    ///   - exists: whether the document exists at this point of the commit (for `exists`).
    ///   - originalExists: whether it existed before the commit (for `updateTime`).
    ///   - originalVersion: its version before the commit.
    static func checkPrecondition(
        _ precondition: FirestorePrecondition?, exists: Bool, originalExists: Bool,
        originalVersion: FirestoreTimestamp?, path: String
    ) throws(FirestoreError) {
        switch precondition {
        case nil: return
        case .exists(true)?:
            if !exists { throw FirestoreError(.notFound, "no document to update: \(path)") }
        case .exists(false)?:
            if exists { throw FirestoreError(.alreadyExists, "document already exists: \(path)") }
        case .updateTime(let t)?:
            let version = originalVersion?.microsecondsSinceEpoch ?? 0
            let required = t.microsecondsSinceEpoch
            if originalExists, required > version {
                throw FirestoreError(
                    .invalidArgument,
                    "\(path): the required update time \(t.rfc3339) is later than the stored version")
            }
            guard required == version else {
                let stored = originalVersion.map(\.rfc3339) ?? "0 (never written)"
                throw FirestoreError(
                    .failedPrecondition,
                    "\(path): the stored version \(stored) does not match the required update time \(t.rfc3339)")
            }
            if !originalExists, version != 0 {
                throw FirestoreError(.notFound, "no document to update: \(path) (deleted at \(t.rfc3339))")
            }
        }
    }

    /// How a write counts when Firestore collapses the writes to one document in one commit.
    struct Kind {
        var isDelete: Bool
        var precondition: FirestorePrecondition?

        var noun: String {
            switch (isDelete, precondition) {
            case (true, _): "delete"
            case (false, nil): "upsert"
            case (false, .exists(false)?): "insert"
            default: "update"
            }
        }
    }

    /// The combinations of writes to one document in one commit that Firestore refuses
    /// (INVALID_ARGUMENT), checked between each write and the one before it:
    /// - an `exists: false` write (insert, or delete that must not find a document) after any update;
    /// - an `exists: true` write, or an update with an `updateTime` precondition, after a delete;
    /// - an `updateTime` precondition unless the document's first write in the commit has the same one.
    static func checkCollapse(_ writes: [FirestoreWrite]) throws(FirestoreError) {
        guard let first = writes.first else { return }
        var firstVersion: FirestoreTimestamp?
        if case .updateTime(let t)? = first.precondition { firstVersion = t }
        for (a, b) in zip(writes, writes.dropFirst()) {
            let ka = Kind(isDelete: a.isDelete, precondition: a.precondition)
            let kb = Kind(isDelete: b.isDelete, precondition: b.precondition)
            let path = b.path ?? ""
            if case .exists(false)? = b.precondition, !a.isDelete {
                throw invalid("cannot \(ka.noun) then \(kb.isDelete ? "delete" : "insert") \(path) in the same commit")
            }
            if a.isDelete {
                switch b.precondition {
                case .exists(true)?:
                    throw invalid("cannot delete then \(b.isDelete ? "delete" : "update") \(path) in the same commit")
                case .updateTime? where !b.isDelete:
                    throw invalid("cannot delete then update \(path) in the same commit")
                default: break
                }
            }
            if case .updateTime(let t)? = b.precondition, firstVersion != t {
                throw invalid("cannot collapse writes to \(path) with different update-time preconditions")
            }
        }
    }
}

/// Firestore's limits on a stored document, as its emulator enforces them.
public enum FirestoreDocumentLimits {
    /// The largest document, bytes (schema §3): 1 MiB.
    public static let maximumDocumentBytes = FirestoreLimits.maximumDocumentBytes
    /// The longest string or bytes value, in bytes: 1 MiB − 89 (what the emulator allows).
    public static let maximumValueBytes = 1_048_487
    /// The deepest map: a top-level field is at depth 1, a map at depth 21 is refused (a scalar or
    /// an empty array at depth 21 is not; nothing may be at depth 22).
    public static let maximumMapDepth = 20

    /// A document's size: `StorageSize.document(path:fields:)`, plus 1 byte for every empty map
    /// and every empty array, which the emulator counts as 1 byte where the documented formula
    /// gives 0.
    public static func size(path: String, fields: [String: FirestoreValue]) -> Int {
        StorageSize.document(path: path, fields: fields, emptyContainer: 1)
    }

    /// True for a field name Firestore reserves (`__.*__`).
    static func isReserved(_ name: String) -> Bool {
        name.utf8.count >= 4 && name.utf8.starts(with: [0x5F, 0x5F]) && name.utf8.reversed().starts(with: [0x5F, 0x5F])
    }

    /// Checks a finished document: its size.
    /// - Throws: INVALID_ARGUMENT over 1 MiB.
    static func check(path: String, fields: [String: FirestoreValue]) throws(FirestoreError) {
        let size = size(path: path, fields: fields)
        if size > maximumDocumentBytes {
            throw FirestoreError(
                .invalidArgument, "\(path): document is \(size) bytes; the maximum entity size is 1048576 bytes")
        }
    }

    /// Checks a write's values: field names (not empty, ≤ 1,500 bytes, not `__.*__`), string and
    /// bytes sizes, depth, no sentinel in an array, timestamps, geo points and references in range.
    /// - Throws: INVALID_ARGUMENT naming the field.
    static func checkValues(_ fields: [String: FirestoreValue]) throws(FirestoreError) {
        for (k, v) in fields { try checkField(k, v, path: { k }, depth: 1) }
    }

    // The walks below build a field's path only for an error: `path` is called then, never on
    // the way down (a document's every nested field would cost a string otherwise).

    static func checkField(_ name: String, _ v: FirestoreValue, path: () -> String, depth: Int)
        throws(FirestoreError)
    {
        if name.isEmpty { throw FirestoreError(.invalidArgument, "\(path()): a field name is the empty string") }
        if name.utf8.count > FirestoreLimits.maximumFieldNameBytes {
            throw FirestoreError(.invalidArgument, "\(path().prefix(60))…: a field name is longer than 1500 bytes")
        }
        if isReserved(name) { throw FirestoreError(.invalidArgument, "\(path()): field name \(name) is reserved") }
        try checkValue(v, path: path, depth: depth, inArray: false)
    }

    static func checkValue(_ v: FirestoreValue, path: () -> String, depth: Int, inArray: Bool)
        throws(FirestoreError)
    {
        func invalid(_ why: String) -> FirestoreError { FirestoreError(.invalidArgument, "\(path()): \(why)") }
        if depth > maximumMapDepth + 1 { throw invalid("nested deeper than Firestore allows") }
        switch v {
        case .string(let s):
            if s.utf8.count > maximumValueBytes { throw invalid("a string is longer than \(maximumValueBytes) bytes") }
        case .bytes(let b):
            if b.count > maximumValueBytes { throw invalid("a bytes value is longer than \(maximumValueBytes) bytes") }
        case .map(let m):
            if depth > maximumMapDepth { throw invalid("a map nested deeper than 20 levels") }
            for (k, e) in m { try checkField(k, e, path: { path() + "." + k }, depth: depth + 1) }
        case .array(let a):
            if inArray { throw invalid("an array directly inside an array") }
            for (i, e) in a.enumerated() {
                try checkValue(e, path: { path() + "[\(i)]" }, depth: depth + 1, inArray: true)
            }
        case .serverTimestamp, .increment, .delete:
            if inArray { throw invalid("a \(v.typeName) sentinel inside an array") }
        case .timestamp(let t):
            if t < .minimum || t > .maximum { throw invalid("timestamp out of range") }
        case .geoPoint(let g):
            if let message = g.rangeViolation { throw invalid(message) }
        case .reference(let r):
            if let message = FirestoreLimits.referenceViolation(r) { throw invalid(message) }
        case .null, .boolean, .integer, .double:
            break
        }
    }

    /// Checks what Firestore refuses in every write, even one a later write replaces: a reserved
    /// field name (`__.*__`) anywhere, a sentinel inside an array, an array inside an array.
    static func checkStructure(_ fields: [String: FirestoreValue], path: String) throws(FirestoreError) {
        try checkStructure(fields, path: { path })
    }

    static func checkStructure(_ fields: [String: FirestoreValue], path: () -> String) throws(FirestoreError) {
        for (k, v) in fields {
            func p() -> String {
                let parent = path()
                return parent.isEmpty ? k : parent + "." + k
            }
            if isReserved(k) { throw FirestoreError(.invalidArgument, "\(p()): field name \(k) is reserved") }
            try checkStructure(v, path: p, inArray: false)
        }
    }

    static func checkStructure(_ v: FirestoreValue, path: () -> String, inArray: Bool) throws(FirestoreError) {
        switch v {
        case .map(let m): try checkStructure(m, path: path)
        case .array(let a):
            if inArray { throw FirestoreError(.invalidArgument, "\(path()): an array directly inside an array") }
            for (i, e) in a.enumerated() { try checkStructure(e, path: { path() + "[\(i)]" }, inArray: true) }
        case .serverTimestamp, .increment, .delete:
            if inArray {
                throw FirestoreError(.invalidArgument, "\(path()): a \(v.typeName) sentinel inside an array")
            }
        default: break
        }
    }

    /// −0.0 → 0.0, as Firestore stores doubles.
    static func normalizingZero(_ v: FirestoreValue) -> FirestoreValue {
        if case .double(let d) = v, d == 0 { return .double(0) }
        return v
    }

    /// A written value in stored form: its sentinels (at any depth) left out, every −0.0 → 0.0;
    /// what ``FirestoreWrite/updateFields`` and ``normalizingZeros(_:)`` make of it.
    static func storedValue(_ v: FirestoreValue) -> FirestoreValue {
        switch v {
        case .double(let d) where d == 0: return .double(0)
        case .map(let m):
            guard m.values.contains(where: needsStoredForm) else { return v }
            var out: [String: FirestoreValue] = [:]
            for (k, x) in m {
                switch x {
                case .serverTimestamp, .increment, .delete: continue
                default: out[k] = storedValue(x)
                }
            }
            return .map(out)
        case .array(let a): return a.contains(where: holdsNegativeZero) ? .array(a.map(normalizingZerosIn)) : v
        default: return v
        }
    }

    /// Whether ``storedValue(_:)`` changes anything in `v`.
    static func needsStoredForm(_ v: FirestoreValue) -> Bool {
        switch v {
        case .serverTimestamp, .increment, .delete: true
        case .double(let d): d == 0 && d.sign == .minus
        case .map(let m): m.values.contains(where: needsStoredForm)
        case .array(let a): a.contains(where: holdsNegativeZero)
        default: false
        }
    }

    /// Every −0.0 in the fields (maps and arrays included) → 0.0.
    static func normalizingZeros(_ fields: [String: FirestoreValue]) -> [String: FirestoreValue] {
        // Most writes hold no −0.0: they are returned as they are, not rebuilt.
        guard fields.values.contains(where: holdsNegativeZero) else { return fields }
        return fields.mapValues(normalizingZerosIn)
    }

    /// Whether a −0.0 is anywhere in the value.
    static func holdsNegativeZero(_ v: FirestoreValue) -> Bool {
        switch v {
        case .double(let d): d == 0 && d.sign == .minus
        case .map(let m): m.values.contains(where: holdsNegativeZero)
        case .array(let a): a.contains(where: holdsNegativeZero)
        default: false
        }
    }

    static func normalizingZerosIn(_ v: FirestoreValue) -> FirestoreValue {
        switch v {
        case .double(let d) where d == 0: .double(0)
        case .map(let m): .map(normalizingZeros(m))
        case .array(let a): .array(a.map(normalizingZerosIn))
        default: v
        }
    }
}
