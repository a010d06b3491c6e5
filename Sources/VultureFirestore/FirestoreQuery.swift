import VultureSchemaCore
import VultureSyncSchema

/// A query on one collection under a parent (Firestore's `StructuredQuery` as the engine uses it):
/// `where` filters joined by AND, an order, a start cursor and a limit.
///
/// The engine's pull (schema §5): `updatedAt >= cursor − 120 s`, ordered by `updatedAt` then the
/// document name, continuing after the last `(updatedAt, name)` seen, 500 per page; also equality
/// on `contentHash` and `deletedAt <` for tombstone cleanup.
///
/// Results are ordered by the `orderBy` fields, then by any inequality field not among them, then
/// by the document name (`__name__`) in the direction of the last order. A document lacking an
/// order or filter field is left out, and a range filter matches only values of its operand's type
/// (numbers, integers and doubles together; NaN never matches a range).
public struct FirestoreQuery: Sendable, Hashable {
    /// A comparison.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        /// `==`: equal by Firestore's value order (`1 == 1.0`).
        case equal = "EQUAL"
        /// `<`.
        case lessThan = "LESS_THAN"
        /// `<=`.
        case lessThanOrEqual = "LESS_THAN_OR_EQUAL"
        /// `>`.
        case greaterThan = "GREATER_THAN"
        /// `>=`.
        case greaterThanOrEqual = "GREATER_THAN_OR_EQUAL"
    }

    /// `field op value`.
    public struct Filter: Sendable, Hashable {
        /// The field compared.
        public var field: FieldPath
        /// The comparison.
        public var op: Operator
        /// The operand.
        public var value: FirestoreValue

        /// A filter.
        public init(_ field: FieldPath, _ op: Operator, _ value: FirestoreValue) {
            self.field = field
            self.op = op
            self.value = value
        }
    }

    /// A sort direction.
    public enum Direction: String, Sendable, Hashable {
        /// Smallest first.
        case ascending = "ASCENDING"
        /// Largest first.
        case descending = "DESCENDING"
    }

    /// One sort key.
    public struct Order: Sendable, Hashable {
        /// The field sorted by (`FieldPath.documentName` for the document name).
        public var field: FieldPath
        /// The direction.
        public var direction: Direction

        /// A sort key.
        public init(_ field: FieldPath, _ direction: Direction = .ascending) {
            self.field = field
            self.direction = direction
        }
    }

    /// Where the results start: values for the order's keys (a prefix of them), the document name
    /// as a `.reference` full name.
    public struct Cursor: Sendable, Hashable {
        /// One value per sort key, in order.
        public var values: [FirestoreValue]
        /// True: start at the position (inclusive, `startAt`); false: just after it (`startAfter`).
        public var before: Bool

        /// A cursor.
        public init(values: [FirestoreValue], before: Bool) {
            self.values = values
            self.before = before
        }
    }

    /// The parent document's path relative to the database root, or "" for a root collection.
    public var parent: String
    /// The collection's id (`flights`).
    public var collectionId: String
    /// Filters, all of which must match.
    public var filters: [Filter]
    /// Sort keys.
    public var orderBy: [Order]
    /// The start cursor.
    public var startAt: Cursor?
    /// The most documents returned.
    public var limit: Int?

    /// A query on `collectionId` under `parent`.
    public init(
        parent: String, collectionId: String, filters: [Filter] = [], orderBy: [Order] = [], startAt: Cursor? = nil,
        limit: Int? = nil
    ) {
        self.parent = parent
        self.collectionId = collectionId
        self.filters = filters
        self.orderBy = orderBy
        self.startAt = startAt
        self.limit = limit
    }

    /// The order results come in: `orderBy`, then inequality fields not among them (in field path
    /// order), then the document name in the direction of the last order.
    public var effectiveOrder: [Order] {
        var out = orderBy
        let inequality = Set(filters.filter { $0.op != .equal }.map(\.field))
        for f in inequality.sorted() where !out.contains(where: { $0.field == f }) {
            out.append(Order(f, out.last?.direction ?? .ascending))
        }
        if !out.contains(where: { $0.field == .documentName }) {
            out.append(Order(.documentName, out.last?.direction ?? .ascending))
        }
        return out
    }

    /// The documents of `documents` this query returns, in order. `database` builds the document
    /// names that `__name__` compares (`projects/{p}/databases/{d}`).
    public func evaluate(_ documents: [FirestoreDocument], database: String) -> [FirestoreDocument] {
        page(of: sortedMatches(documents, database: database))
    }

    /// A document that matches the query's filters, with its sort keys (the values of
    /// ``effectiveOrder``, the last one its name as a reference).
    struct SortedMatch: Sendable {
        var document: FirestoreDocument
        var keys: [FirestoreValue]
    }

    /// The documents of the query's collection that match its filters and have every ordered field,
    /// in the query's order (keys are unique: the order ends with the document name); the cursor and
    /// the limit are not applied.
    func sortedMatches(_ documents: some Sequence<FirestoreDocument>, database: String) -> [SortedMatch] {
        let prefix = parent.isEmpty ? collectionId + "/" : parent + "/" + collectionId + "/"
        let order = effectiveOrder
        func key(_ doc: FirestoreDocument, _ field: FieldPath) -> FirestoreValue? {
            if field == .documentName {
                return .reference(FirestoreRESTJSON.documentName(database: database, path: doc.path))
            }
            return FirestoreValue.map(doc.fields)[path: field]
        }
        var rows: [SortedMatch] = []
        for doc in documents {
            // By scalars: a `/` followed by a combining mark is no Character of its own.
            guard doc.path.utf8.starts(with: prefix.utf8), !doc.path.utf8.dropFirst(prefix.utf8.count).contains(0x2F)
            else { continue }
            let matches = filters.allSatisfy { f in
                guard let v = key(doc, f.field) else { return false }
                return f.matches(v)
            }
            guard matches else { continue }
            var keys: [FirestoreValue] = []
            var complete = true
            for o in order {
                guard let v = key(doc, o.field) else {
                    complete = false
                    break
                }
                keys.append(v)
            }
            if complete { rows.append(SortedMatch(document: doc, keys: keys)) }
        }
        rows.sort { compareKeys($0.keys, $1.keys, order) < 0 }
        return rows
    }

    /// Sort keys compared in the query's order: negative, zero or positive.
    func compareKeys(_ a: [FirestoreValue], _ b: [FirestoreValue], _ order: [Order]) -> Int {
        for (i, (x, y)) in zip(a, b).enumerated() {
            var c = FirestoreValueOrder.compare(x, y)
            if order[i].direction == .descending { c = -c }
            if c != 0 { return c }
        }
        return 0
    }

    /// The page of `sorted` (``sortedMatches(_:database:)``) the query asks for: the matches at or
    /// after ``startAt``, then at most ``limit``. The matches the cursor skips are a prefix of the
    /// sorted matches, found by binary search: a page costs the log of the matches plus its length.
    func page(of sorted: [SortedMatch]) -> [FirestoreDocument] {
        var first = 0
        if let cursor = startAt {
            let order = effectiveOrder
            func skipped(_ row: SortedMatch) -> Bool {
                let c = compareKeys(Array(row.keys.prefix(cursor.values.count)), cursor.values, order)
                return cursor.before ? c < 0 : c <= 0
            }
            var high = sorted.count
            while first < high {
                let middle = (first + high) / 2
                if skipped(sorted[middle]) { first = middle + 1 } else { high = middle }
            }
        }
        let end = limit.map { min(sorted.count, first + max($0, 0)) } ?? sorted.count
        return sorted[first..<max(first, end)].map(\.document)
    }
}

extension FirestoreQuery.Filter {
    /// Whether a document's value matches: equality by value order; a range only within the
    /// operand's type (NaN in no range).
    func matches(_ v: FirestoreValue) -> Bool {
        let c = FirestoreValueOrder.compare(v, value)
        if op == .equal { return c == 0 }
        guard FirestoreValueOrder.typeRank(v) == FirestoreValueOrder.typeRank(value), !v.isNaN, !value.isNaN else {
            return false
        }
        switch op {
        case .equal: return c == 0
        case .lessThan: return c < 0
        case .lessThanOrEqual: return c <= 0
        case .greaterThan: return c > 0
        case .greaterThanOrEqual: return c >= 0
        }
    }
}

extension FirestoreValue {
    var isNaN: Bool {
        if case .double(let d) = self { return d.isNaN }
        return false
    }
}

/// Firestore's total order of values: null < booleans < numbers (NaN first; integers and doubles
/// compared by value) < timestamps < strings (UTF-8 bytes) < bytes < references (segment by
/// segment) < geo points (latitude, then longitude) < arrays (element by element, then length) <
/// maps (entries in key order: key, then value; then size).
public enum FirestoreValueOrder {
    /// -1, 0 or 1 as `a` sorts before, with, or after `b`.
    public static func compare(_ a: FirestoreValue, _ b: FirestoreValue) -> Int {
        let ra = typeRank(a)
        let rb = typeRank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.boolean(let x), .boolean(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.integer(let x), .integer(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.integer(let x), .double(let y)): return compareIntDouble(x, y)
        case (.double(let x), .integer(let y)): return -compareIntDouble(y, x)
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? 0 : (x.isNaN ? -1 : 1) }
            return x == y ? 0 : (x < y ? -1 : 1)
        case (.timestamp(let x), .timestamp(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.string(let x), .string(let y)): return utf8(x, y)
        case (.bytes(let x), .bytes(let y)): return bytes(Array(x), Array(y))
        case (.reference(let x), .reference(let y)): return segments(x, y)
        case (.geoPoint(let x), .geoPoint(let y)):
            let c = compare(.double(x.latitude), .double(y.latitude))
            return c != 0 ? c : compare(.double(x.longitude), .double(y.longitude))
        case (.array(let x), .array(let y)):
            for (p, q) in zip(x, y) {
                let c = compare(p, q)
                if c != 0 { return c }
            }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        case (.map(let x), .map(let y)):
            let xk = x.keys.sorted { bytes(Array($0.utf8), Array($1.utf8)) < 0 }
            let yk = y.keys.sorted { bytes(Array($0.utf8), Array($1.utf8)) < 0 }
            for (p, q) in zip(xk, yk) {
                let c = bytes(Array(p.utf8), Array(q.utf8))
                if c != 0 { return c }
                if let xv = x[p], let yv = y[q] {
                    let cv = compare(xv, yv)
                    if cv != 0 { return cv }
                }
            }
            return xk.count == yk.count ? 0 : (xk.count < yk.count ? -1 : 1)
        default: return 0
        }
    }

    /// The rank of a value's type in the order (null 0 … map 9; sentinels last).
    public static func typeRank(_ v: FirestoreValue) -> Int {
        switch v {
        case .null: 0
        case .boolean: 1
        case .integer, .double: 2
        case .timestamp: 3
        case .string: 4
        case .bytes: 5
        case .reference: 6
        case .geoPoint: 7
        case .array: 8
        case .map: 9
        case .serverTimestamp, .increment, .delete: 10
        }
    }

    static func bytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// Two strings by their UTF-8 bytes, without copying them (a query sorts by document name, so
    /// this runs for every pair the sort compares).
    static func utf8(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in bytes(x, y, separator: nil) } }
    }

    /// Two document names segment by segment (split at `/`, each segment by its UTF-8 bytes; a name
    /// that is a prefix of the other's segments first). The same as comparing the bytes with `/`
    /// below every other byte: the first difference decides, inside a segment by byte, where one
    /// segment ends first (at `/` or the end) it is the smaller, and a name that ends first is smaller.
    static func segments(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in bytes(x, y, separator: 0x2F) } }
    }

    private static func bytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>, separator: UInt8?)
        -> Int
    {
        let n = min(x.count, y.count)
        var i = 0
        while i < n {
            let p = x[i]
            let q = y[i]
            if p != q {
                if let separator {
                    if p == separator { return -1 }
                    if q == separator { return 1 }
                }
                return p < q ? -1 : 1
            }
            i += 1
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    /// Exact comparison of an int64 and a double (NaN first).
    static func compareIntDouble(_ i: Int64, _ d: Double) -> Int {
        if d.isNaN { return 1 }
        if d < -9.2233720368547758e18 { return 1 }
        if d >= 9.2233720368547758e18 { return -1 }
        let t = Int64(d.rounded(.towardZero))
        if i != t { return i < t ? -1 : 1 }
        let frac = d - Double(t)
        return frac > 0 ? -1 : (frac < 0 ? 1 : 0)
    }
}
