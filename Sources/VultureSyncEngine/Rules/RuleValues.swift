import VultureSchemaCore
import VultureSyncSchema

/// A document as the engine holds it: its id (the last segment of its path) and its fields in the
/// stored form (schema §2; Goldens/FORMAT.md).
public struct StoredDocument: Sendable, Hashable {
    /// The document id (`flights/{id}`: 64 lowercase hex for a flight).
    public var id: String
    /// The fields, sentinels resolved.
    public var fields: [String: FirestoreValue]

    /// A document as given.
    public init(id: String, fields: [String: FirestoreValue]) {
        self.id = id
        self.fields = fields
    }

    /// The value a sync rule's subject names: the id for `__name__`, else the field at the path
    /// (nil when absent).
    public func value(of subject: SyncRuleSubject) -> FirestoreValue? {
        subject.isDocumentId ? .string(id) : FirestoreValue.map(fields)[fieldPath: subject.fieldPath]
    }

    /// Whether the document is a tombstone (`deleted` true, schema §5.4).
    public var isTombstone: Bool { fields[SyncRuleValues.deletedField] == .boolean(true) }
}

/// Comparisons the rules share: absent and null alike, timestamps at microseconds, strings in UTF-8
/// byte order, sort keys and criteria read from `SyncRule` rows.
enum SyncRuleValues {
    /// The tombstone flag: the field of the `*` row of `Spec/merge-rules.tsv` whose rule is
    /// `tombstoneWins` (schema §5.4).
    static let deletedField: String = {
        MergeRule.all.first { $0.kind == .tombstoneWins }?.fieldPath ?? CommonFields.Field.deleted
    }()

    /// Absent and null alike (a reader treats them alike, Goldens/FORMAT.md); otherwise typed equality.
    static func same(_ a: FirestoreValue?, _ b: FirestoreValue?) -> Bool {
        switch (a, b) {
        case (nil, nil), (nil, .null?), (.null?, nil): true
        case (let x?, let y?): x == y
        default: false
        }
    }

    /// True when the value is absent or null.
    static func isMissing(_ v: FirestoreValue?) -> Bool { v == nil || v == .null }

    /// The timestamp, or nil for anything else.
    static func timestamp(_ v: FirestoreValue?) -> FirestoreTimestamp? {
        if case .timestamp(let t)? = v { return t }
        return nil
    }

    /// The integer, or nil for anything else.
    static func integer(_ v: FirestoreValue?) -> Int64? {
        if case .integer(let i)? = v { return i }
        return nil
    }

    /// `a` before `b` in UTF-8 byte order (the order ids tie-break in, every platform alike).
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Orders two present sort values: timestamps by instant, integers and doubles by value, strings
    /// in UTF-8 byte order, booleans false first; -1, 0 or 1. Values of different types order by
    /// type name, so any input has one order.
    static func compareValues(_ a: FirestoreValue, _ b: FirestoreValue) -> Int {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (y < x ? 1 : 0) }
        switch (a, b) {
        case (.timestamp(let x), .timestamp(let y)): return sign(x, y)
        case (.integer(let x), .integer(let y)): return sign(x, y)
        case (.double(let x), .double(let y)):
            if x == y || (x.isNaN && y.isNaN) { return 0 }
            return x.isTotallyOrdered(belowOrEqualTo: y) ? -1 : 1
        case (.boolean(let x), .boolean(let y)): return sign(x ? 1 : 0, y ? 1 : 0)
        case (.string(let x), .string(let y)):
            return utf8Precedes(x, y) ? -1 : (utf8Precedes(y, x) ? 1 : 0)
        default:
            if a.typeName != b.typeName { return utf8Precedes(a.typeName, b.typeName) ? -1 : 1 }
            let x = CanonicalJSON.compactString(a)
            let y = CanonicalJSON.compactString(b)
            return utf8Precedes(x, y) ? -1 : (utf8Precedes(y, x) ? 1 : 0)
        }
    }

    /// Orders `a` and `b` by the `order` rows `keys` (in row order, each with its direction; null or
    /// absent last whatever the direction); -1, 0 or 1.
    static func compare(
        _ keys: [SyncRule], _ a: (SyncRuleSubject) -> FirestoreValue?, _ b: (SyncRuleSubject) -> FirestoreValue?
    ) -> Int {
        for key in keys {
            guard let subject = key.subject else { continue }
            let x = a(subject).flatMap { $0 == .null ? nil : $0 }
            let y = b(subject).flatMap { $0 == .null ? nil : $0 }
            switch (x, y) {
            case (nil, nil): continue
            case (nil, _?): return 1
            case (_?, nil): return -1
            case (let x?, let y?):
                let c = compareValues(x, y)
                if c != 0 { return key.direction == .descending ? -c : c }
            }
        }
        return 0
    }

    /// Whether two values satisfy a criterion's match (schema §4 R4, §5.4, §5.5).
    static func matches(_ match: SyncFieldMatch?, _ a: FirestoreValue?, _ b: FirestoreValue?) -> Bool {
        switch match {
        case .equalNonNull?: !isMissing(a) && !isMissing(b) && same(a, b)
        case .equal?, nil: same(a, b)
        }
    }
}
