/// A condition the stored document must meet for a write to apply (Firestore's `Precondition`).
public enum FirestorePrecondition: Sendable, Hashable {
    /// `exists: true`: the document must exist (else NOT_FOUND); `exists: false`: it must not
    /// (else ALREADY_EXISTS) — the reserve that must not double-count (schema §3 storage).
    case exists(Bool)
    /// The document's last update time must be exactly this (else FAILED_PRECONDITION).
    case updateTime(FirestoreTimestamp)
}

/// A field transform: a sentinel of the write form at one field path (Firestore's `FieldTransform`).
public struct FirestoreFieldTransform: Sendable, Hashable {
    /// What the transform does.
    public enum Kind: Sendable, Hashable {
        /// `setToServerValue: REQUEST_TIME`: the commit's request time (`{"$serverTimestamp": true}`).
        case serverTimestamp
        /// `increment`: adds the operand to the stored number (`{"$increment": n}`).
        case increment(IncrementOperand)
    }

    /// The field the transform sets.
    public var path: FieldPath
    /// What it sets the field to.
    public var kind: Kind

    /// A transform of `path`.
    public init(path: FieldPath, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    /// The sentinel value that stands for this transform in a write's fields.
    public var sentinel: FirestoreValue {
        switch kind {
        case .serverTimestamp: .serverTimestamp
        case .increment(let operand): .increment(operand)
        }
    }
}

/// One write to one document, modelled exactly as Firestore's `Write` (the message every SDK sends):
/// an update — fields with the sentinels inline, an optional mask — or a delete, plus an optional
/// precondition. Source: README, "Writes"; schema §3 (updatedAt by server timestamp, storageBytes
/// by increment).
///
/// - **No mask**: the fields replace the whole document; `$serverTimestamp` and `$increment`
///   become transforms at their paths; a `$delete` is an error (it needs a mask).
/// - **A mask** lists every field path the write touches, transforms included: a mask path with a
///   value sets it (a map is replaced whole, an empty map included; an array is replaced whole), a
///   mask path holding a sentinel transforms it, and a mask path without a value deletes the field.
///   Every value in `fields` must be at or beneath a mask path (Firestore ignores the others), and a
///   `$delete` must be a mask path itself. A `$delete` is stored as "a mask path without a value":
///   ``fields`` never holds `.delete`.
///
/// The mask is kept normalized: sorted (``FieldPath`` order), without duplicates or paths beneath
/// another mask path (which Firestore treats alike). The SDK calls map onto this model through
/// ``set(_:path:)``, ``set(_:merge:path:)``, ``set(_:mergeFields:path:)`` and ``update(_:path:)``.
public struct FirestoreWrite: Sendable, Hashable {
    /// What the write does to its document.
    public enum Operation: Sendable, Hashable {
        /// Sets fields: the whole document (mask nil) or the mask's paths.
        case update(fields: [String: FirestoreValue], mask: [FieldPath]?)
        /// Removes the document.
        case delete
    }

    /// The document's path relative to the database root (`users/{uid}/flights/{id}`), when known.
    public var path: String?
    /// The update or delete.
    public private(set) var operation: Operation
    /// The condition the stored document must meet, if any.
    public var precondition: FirestorePrecondition?

    /// An update: `fields` with sentinels inline, and a mask (nil: replace the whole document).
    ///
    /// - Parameters:
    ///   - path: the document path relative to the database root.
    ///   - fields: the values to set; `$serverTimestamp` and `$increment` transform their path,
    ///     `$delete` deletes it (only at a mask path).
    ///   - mask: the field paths the write touches; nil replaces the whole document.
    ///   - precondition: an optional precondition.
    /// - Throws: `SchemaInputError` with a pointer into the canonical form (`/fields/summary/x`):
    ///   `write.mask` for a value the mask does not cover, a `$delete` that is not itself a mask
    ///   path, or a `$delete` without a mask.
    public init(
        path: String? = nil, fields: [String: FirestoreValue], mask: [FieldPath]? = nil,
        precondition: FirestorePrecondition? = nil
    ) throws {
        self.path = path
        self.precondition = precondition
        guard let mask else {
            try Self.rejectDeletes(in: .map(fields), at: FieldPath(unchecked: []), reason: "a $delete needs a mask")
            operation = .update(fields: fields, mask: nil)
            return
        }
        let normalized = Self.normalize(mask)
        if let kept = Self.coveredByTopLevelMask(fields, normalized) {
            operation = .update(fields: kept, mask: normalized)
            return
        }
        let maskSet = Set(normalized)
        do {
            for (k, v) in fields { try Self.checkCoverage(v, at: FieldPath(unchecked: [k]), mask: maskSet) }
        } catch {
            // The first fault in key order, whatever order the dictionary gave.
            for (k, v) in fields.sorted(by: { $0.key < $1.key }) {
                try Self.checkCoverage(v, at: FieldPath(unchecked: [k]), mask: maskSet)
            }
        }
        var kept = fields
        for (k, v) in fields where Self.holdsDelete(v) {
            if let pruned = Self.removingDeletes(v, at: FieldPath(unchecked: [k]), mask: normalized) {
                kept[k] = pruned
            } else {
                kept[k] = nil
            }
        }
        operation = .update(fields: kept, mask: normalized)
    }

    /// An update under a mask of every top-level name of `fields`, each set whole (a `$delete`
    /// deleting its field), for a caller that built the mask from the fields themselves: what
    /// ``init(path:fields:mask:precondition:)`` makes of that mask, without sorting it again or
    /// checking that it covers the fields.
    ///
    /// - Parameter mask: one single-segment path per key of `fields`, in field path order
    ///   (``FieldPath/<``); a caller may hand out the same path value for every document. Paths that
    ///   are not as many as the fields, none, an empty name or a `$delete` below the top level go
    ///   through the checking initializer.
    /// - Throws: `SchemaInputError`: `write.field-path` for an empty name, else as
    ///   ``init(path:fields:mask:precondition:)`` does.
    package init(
        path: String?, fields: [String: FirestoreValue], topLevelMask mask: [FieldPath],
        precondition: FirestorePrecondition?
    ) throws {
        assert(mask.allSatisfy { $0.segments.count == 1 }, "a path below the top level")
        assert(zip(mask, mask.dropFirst()).allSatisfy { $0 < $1 }, "paths out of order")
        func checked() throws -> FirestoreWrite {
            try FirestoreWrite(
                path: path, fields: fields, mask: mask.map { try FieldPath($0.segments) }, precondition: precondition)
        }
        guard mask.count == fields.count, let first = mask.first, !first.segments[0].isEmpty else {
            self = try checked()
            return
        }
        var deletes = false
        for value in fields.values {
            if case .delete = value {
                deletes = true
            } else if Self.holdsDelete(value) {
                self = try checked()
                return
            }
        }
        self.path = path
        self.precondition = precondition
        let kept = deletes ? fields.filter { if case .delete = $0.value { false } else { true } } : fields
        operation = .update(fields: kept, mask: mask)
    }

    private init(path: String?, operation: Operation, precondition: FirestorePrecondition?) {
        self.path = path
        self.operation = operation
        self.precondition = precondition
    }

    /// A delete of the document at `path`.
    public static func delete(path: String? = nil, precondition: FirestorePrecondition? = nil) -> FirestoreWrite {
        FirestoreWrite(path: path, operation: .delete, precondition: precondition)
    }

    /// True for a delete.
    public var isDelete: Bool {
        if case .delete = operation { return true }
        return false
    }

    /// An update's fields, sentinels inline (never `.delete`); nil for a delete.
    public var fields: [String: FirestoreValue]? {
        if case .update(let f, _) = operation { return f }
        return nil
    }

    /// An update's normalized mask; nil for a delete or a write that replaces the whole document.
    public var mask: [FieldPath]? {
        if case .update(_, let m) = operation { return m }
        return nil
    }

    /// The transforms (every `$serverTimestamp` and `$increment` in the fields), in field path order.
    public var transforms: [FirestoreFieldTransform] {
        guard let fields else { return [] }
        var out: [FirestoreFieldTransform] = []
        var prefix: [String] = []
        Self.collectTransforms(fields, at: &prefix, into: &out)
        return out.count < 2 ? out : out.sorted { $0.path < $1.path }
    }

    /// The fields without their sentinels: what Firestore's `update` document carries. A map left
    /// empty by removing its sentinels stays (an empty map), as the SDKs send it.
    public var updateFields: [String: FirestoreValue] {
        guard let fields else { return [:] }
        return Self.strippingSentinels(fields)
    }

    /// The mask as Firestore's `updateMask` carries it: the mask without the transforms' own paths
    /// (the SDKs list transforms apart); nil when the write has no mask.
    public var updateMask: [FieldPath]? {
        guard let mask, let fields else { return nil }
        let value = FirestoreValue.map(fields)
        return mask.filter { path in
            switch value[path: path] {
            case .serverTimestamp?, .increment?: false
            default: true
            }
        }
    }

    // MARK: - The SDK calls

    /// `set(data)`: replaces the whole document (no mask).
    /// - Throws: `SchemaInputError` (`write.mask`) when `data` holds a `$delete`.
    public static func set(_ data: [String: FirestoreValue], path: String? = nil) throws -> FirestoreWrite {
        try FirestoreWrite(path: path, fields: data, mask: nil)
    }

    /// `set(data, merge: true)`: a mask of every *leaf* path of `data` — a non-empty map merges key
    /// by key, while an empty map, an array, a scalar or a sentinel is a leaf (an empty map wipes the
    /// stored map). `merge: false` is ``set(_:path:)``.
    /// - Throws: `SchemaInputError`: `write.mask` for a `$delete` without `merge`,
    ///   `write.field-path` for an empty field name (no field path can name it).
    public static func set(_ data: [String: FirestoreValue], merge: Bool, path: String? = nil) throws
        -> FirestoreWrite
    {
        guard merge else { return try set(data, path: path) }
        var leaves: [FieldPath] = []
        try collectLeaves(data, at: [], into: &leaves)
        return try FirestoreWrite(path: path, fields: data, mask: leaves)
    }

    /// `set(data, mergeFields: paths)`: a mask of exactly `paths`; each is set to its value in
    /// `data` whole (a nested map replaced, not merged). Values and sentinels of `data` outside
    /// `paths` are left out, as the SDKs do.
    /// - Throws: `SchemaInputError` (`write.mask`) when a path is not in `data`, or for a `$delete`
    ///   beneath one of the paths.
    public static func set(_ data: [String: FirestoreValue], mergeFields paths: [FieldPath], path: String? = nil)
        throws -> FirestoreWrite
    {
        var fields: [String: FirestoreValue] = [:]
        for p in paths {
            guard let v = FirestoreValue.map(data)[path: p] else {
                throw SchemaInputError(
                    rule: .writeMask, pointer: pointer(of: p),
                    message: "mergeFields names `\(p)`, which the data does not hold")
            }
            try insert(v, at: p, into: &fields, pointer: pointer(of: p))
        }
        return try FirestoreWrite(path: path, fields: fields, mask: paths)
    }

    /// `update(values)`: each path is set to its value whole (a map replaced), a `$delete` removes
    /// the field; precondition `exists: true` (an update of a missing document is NOT_FOUND).
    /// - Throws: `SchemaInputError` (`write.mask`) when one path is beneath another.
    public static func update(_ values: [FieldPath: FirestoreValue], path: String? = nil) throws -> FirestoreWrite {
        let paths = values.keys.sorted()
        for (a, b) in zip(paths, paths.dropFirst()) where a.isPrefix(of: b) {
            throw SchemaInputError(
                rule: .writeMask, pointer: pointer(of: b), message: "update names both `\(a)` and `\(b)`, which overlap"
            )
        }
        var fields: [String: FirestoreValue] = [:]
        for p in paths {
            if let v = values[p] { try insert(v, at: p, into: &fields, pointer: pointer(of: p)) }
        }
        return try FirestoreWrite(path: path, fields: fields, mask: paths, precondition: .exists(true))
    }

    // MARK: - Internals

    /// The fields without their `$delete`s when every mask path is a top-level field, every field
    /// is one of them and no `$delete` lies beneath one (what the checks below find, the common
    /// case faster); nil otherwise, for the checks to judge.
    static func coveredByTopLevelMask(_ fields: [String: FirestoreValue], _ mask: [FieldPath])
        -> [String: FirestoreValue]?
    {
        for path in mask where path.segments.count != 1 { return nil }
        // The mask's names are distinct (normalized): as many of them as fields, each a field,
        // means every field is one of them, with no set of names built.
        let covered: (String) -> Bool
        if mask.count == fields.count {
            for path in mask where fields[path.segments[0]] == nil { return nil }
            covered = { _ in true }
        } else {
            let names = Set(mask.lazy.map { $0.segments[0] })
            covered = names.contains
        }
        var deletes = false
        for (name, value) in fields {
            guard covered(name) else { return nil }
            if case .delete = value {
                deletes = true
            } else if holdsDelete(value) {
                return nil
            }
        }
        return deletes ? fields.filter { if case .delete = $0.value { false } else { true } } : fields
    }

    /// The canonical-form pointer of a field path (`/fields/summary/x`).
    static func pointer(of path: FieldPath) -> String {
        path.segments.reduce("/fields") { JSONPointer.appending($0, $1) }
    }

    /// Sorted, without duplicates or paths beneath another path.
    static func normalize(_ mask: [FieldPath]) -> [FieldPath] {
        var out: [FieldPath] = []
        let sorted = zip(mask, mask.dropFirst()).allSatisfy { $0 < $1 } ? mask : mask.sorted()
        for p in sorted {
            if let last = out.last, last.isPrefix(of: p) { continue }
            out.append(p)
        }
        return out
    }

    /// Sets `value` at `path` in `fields`, creating maps on the way.
    /// - Throws: `write.mask` when a non-map value is in the way.
    static func insert(
        _ value: FirestoreValue, at path: FieldPath, into fields: inout [String: FirestoreValue], pointer: String
    ) throws {
        let head = path.segments[0]
        if path.segments.count == 1 {
            fields[head] = value
            return
        }
        var inner: [String: FirestoreValue]
        switch fields[head] {
        case nil: inner = [:]
        case .map(let m)?: inner = m
        case let other?:
            throw SchemaInputError(
                rule: .writeMask, pointer: pointer,
                message: "`\(head)` holds \(other.typeName), so `\(path)` cannot be set beneath it")
        }
        try insert(value, at: FieldPath(unchecked: Array(path.segments.dropFirst())), into: &inner, pointer: pointer)
        fields[head] = .map(inner)
    }

    /// Whether `value` holds a `$delete` anywhere.
    static func holdsDelete(_ value: FirestoreValue) -> Bool {
        switch value {
        case .delete: true
        case .map(let m): m.values.contains(where: holdsDelete)
        default: false
        }
    }

    /// Throws for the first `$delete` in `value` (keys in order), its pointer built only then.
    static func rejectDeletes(in value: FirestoreValue, at path: FieldPath, reason: String) throws {
        guard holdsDelete(value) else { return }
        switch value {
        case .delete:
            throw SchemaInputError(rule: .writeMask, pointer: pointer(of: path), message: reason)
        case .map(let m):
            for (k, v) in m.sorted(by: { $0.key < $1.key }) {
                try rejectDeletes(in: v, at: path.appending(k), reason: reason)
            }
        default: break
        }
    }

    /// Every value is covered by a mask path, and a `$delete` is one; the first fault (keys in order)
    /// throws, with the canonical-form pointer of its path.
    /// `mask` is normalized (no path beneath another), so at most one of `path`'s prefixes is in it.
    static func checkCoverage(_ value: FirestoreValue, at path: FieldPath, mask: Set<FieldPath>) throws {
        let covering =
            mask.contains(path)
            ? path
            : (1..<path.segments.count).lazy.map { FieldPath(unchecked: Array(path.segments.prefix($0))) }
                .first(where: mask.contains)
        if let covering {
            if case .delete = value, covering == path { return }
            try rejectDeletes(
                in: value, at: path,
                reason: "a $delete must itself be a mask path (it is beneath mask path `\(covering)`)")
            return
        }
        if case .map(let m) = value, !m.isEmpty {
            for (k, v) in m.sorted(by: { $0.key < $1.key }) {
                try checkCoverage(v, at: path.appending(k), mask: mask)
            }
            return
        }
        throw SchemaInputError(
            rule: .writeMask, pointer: pointer(of: path),
            message: "`\(path)` holds \(value.typeName) but no mask path covers it (Firestore ignores it); "
                + "add `\(path)` to the mask or leave the value out")
    }

    /// The value without its `$delete` leaves (which are mask paths); maps emptied by the removal
    /// that no mask path covers are removed too. Nil when nothing is left.
    static func removingDeletes(_ value: FirestoreValue, at path: FieldPath, mask: [FieldPath]) -> FirestoreValue? {
        if case .delete = value { return nil }
        guard case .map(let m) = value, !m.isEmpty, !mask.contains(where: { $0.isPrefix(of: path) }) else {
            return value
        }
        var out: [String: FirestoreValue] = [:]
        for (k, v) in m {
            if let kept = removingDeletes(v, at: path.appending(k), mask: mask) { out[k] = kept }
        }
        return out.isEmpty ? nil : .map(out)
    }

    static func collectLeaves(_ fields: [String: FirestoreValue], at prefix: [String], into out: inout [FieldPath])
        throws
    {
        for (k, v) in fields {
            if k.isEmpty {
                throw SchemaInputError(
                    rule: .fieldPath, pointer: pointer(of: FieldPath(unchecked: prefix + [k])),
                    message: "an empty field name cannot be a field path (Firestore refuses empty field names)")
            }
            if case .map(let m) = v, !m.isEmpty {
                try collectLeaves(m, at: prefix + [k], into: &out)
            } else {
                out.append(FieldPath(unchecked: prefix + [k]))
            }
        }
    }

    /// Appends the transforms in `fields` (a map at `prefix`, which holds the path so far and is
    /// as it was on return): a path is built only for a sentinel, not for every map walked.
    static func collectTransforms(
        _ fields: [String: FirestoreValue], at prefix: inout [String], into out: inout [FirestoreFieldTransform]
    ) {
        for (k, v) in fields {
            switch v {
            case .serverTimestamp:
                out.append(FirestoreFieldTransform(path: FieldPath(unchecked: prefix + [k]), kind: .serverTimestamp))
            case .increment(let operand):
                out.append(FirestoreFieldTransform(path: FieldPath(unchecked: prefix + [k]), kind: .increment(operand)))
            case .map(let m) where !m.isEmpty:
                prefix.append(k)
                collectTransforms(m, at: &prefix, into: &out)
                prefix.removeLast()
            default: continue
            }
        }
    }

    /// Whether a `$serverTimestamp`, `$increment` or `$delete` is anywhere in the value.
    static func holdsSentinel(_ value: FirestoreValue) -> Bool {
        switch value {
        case .serverTimestamp, .increment, .delete: true
        case .map(let m): m.values.contains(where: holdsSentinel)
        default: false
        }
    }

    /// The fields without their sentinels; the maps that hold none are kept as they are, not rebuilt.
    static func strippingSentinels(_ fields: [String: FirestoreValue]) -> [String: FirestoreValue] {
        var out = fields
        for (k, v) in fields {
            switch v {
            case .serverTimestamp, .increment, .delete: out[k] = nil
            case .map(let m) where holdsSentinel(v): out[k] = .map(strippingSentinels(m))
            default: continue
            }
        }
        return out
    }
}
