import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// Random commits for the differential test, from a seed: full sets, leaf merges (nested and empty
/// maps, `$delete` leaves), mergeFields, updates, deletes, transforms (server timestamps, integer
/// and double increments on missing, non-numeric and near-overflow fields), preconditions
/// (`exists` both ways, `updateTime` current and stale), several writes per commit with the same
/// document more than once, and now and then a write Firestore refuses (an oversized document, a
/// reserved field name). Field names include ones a field path must quote.
struct WriteSequenceGenerator {
    var rng: SplitMix64
    let collection: String
    let documentIds: [String]

    static let names = ["a", "b", "count", "n", "summary", "x y", "dot.ted", "é", "1st", "back`tick", "sl\\ash"]

    init(seed: UInt64, collection: String) {
        rng = SplitMix64(seed: seed)
        self.collection = collection
        let idCount = 1 + rng.below(3)
        documentIds = Array(["d1", "d 2", "d3"].prefix(idCount))
    }

    mutating func commitCount() -> Int { 1 + rng.below(7) }

    /// One commit's writes; `current` gives the documents as the database holds them now.
    mutating func commit(current: (String) -> FirestoreDocument?) -> [FirestoreWrite] {
        let count = rng.chance(0.6) ? 1 : 2 + rng.below(3)
        var writes: [FirestoreWrite] = []
        for _ in 0..<count {
            let path = collection + "/" + rng.pick(documentIds)
            if let w = write(path: path, current: current(path)) { writes.append(w) }
        }
        return writes
    }

    mutating func write(path: String, current: FirestoreDocument?) -> FirestoreWrite? {
        var w: FirestoreWrite?
        switch rng.below(100) {
        case 0..<22: w = try? .set(document(), path: path)
        case 22..<44: w = try? .set(document(allowDelete: true), merge: true, path: path)
        case 44..<56:
            let d = document(allowDelete: true)
            let paths = mergeFieldPaths(d)
            w = paths.isEmpty ? try? .set(d, path: path) : try? .set(d, mergeFields: paths, path: path)
        case 56..<72:
            var values: [FieldPath: FirestoreValue] = [:]
            for _ in 0..<(1 + rng.below(3)) {
                values[fieldPath()] = rng.chance(0.2) ? .delete : leafOrSentinel(depth: 1)
            }
            w = try? .update(values, path: path)
            if rng.chance(0.4) { w?.precondition = nil }
        case 72..<86:
            let p = fieldPath()
            w = try? FirestoreWrite(path: path, fields: insert(sentinel(), at: p), mask: [p])
        default:
            w = .delete(path: path)
        }
        if w?.isDelete == false || rng.chance(0.5) {
            switch rng.below(100) {
            case 0..<62: break
            case 62..<74: w?.precondition = .exists(true)
            case 74..<86: w?.precondition = .exists(false)
            case 86..<94: if let current { w?.precondition = .updateTime(current.updateTime) }
            default: w?.precondition = .updateTime(staleTime(current))
            }
        }
        return w
    }

    func insert(_ v: FirestoreValue, at p: FieldPath) -> [String: FirestoreValue] {
        var out = v
        for s in p.segments.reversed() { out = .map([s: out]) }
        return out.mapValue ?? [:]
    }

    mutating func staleTime(_ current: FirestoreDocument?) -> FirestoreTimestamp {
        if rng.chance(0.2) { return (try? FirestoreTimestamp(seconds: rng.chance(0.5) ? 0 : -1)) ?? .minimum }
        let base = current?.updateTime ?? FirestoreTimestamp.minimum
        return (try? FirestoreTimestamp(seconds: base.seconds, microseconds: (base.microseconds + 1) % 1_000_000))
            ?? .minimum
    }

    mutating func fieldPath() -> FieldPath {
        var segments = [rng.pick(Self.names)]
        while segments.count < 3, rng.chance(0.35) { segments.append(rng.pick(Self.names)) }
        return (try? FieldPath(segments)) ?? FieldPath.documentName
    }

    /// A document's fields; `allowDelete` puts `$delete` at some leaves (for merges).
    mutating func document(allowDelete: Bool = false) -> [String: FirestoreValue] {
        var fields: [String: FirestoreValue] = [:]
        for _ in 0..<rng.below(5) {
            fields[rng.pick(Self.names)] = value(depth: 1, allowDelete: allowDelete)
        }
        // Now and then something Firestore refuses: a reserved, empty or too long field name, a
        // document over 1 MiB, a string over the value limit, maps nested 21 deep.
        switch rng.below(1000) {
        case 0..<3: fields["__reserved__"] = .integer(1)
        case 3..<5: fields[""] = .integer(1)
        case 5..<7: fields[String(repeating: "n", count: 1501)] = .integer(1)
        case 7..<11:
            fields["big1"] = .string(String(repeating: "x", count: 600_000))
            fields["big2"] = .string(String(repeating: "y", count: 448_400 + rng.below(200)))
        case 11..<12: fields["huge"] = .bytes(Data(count: 1_048_487 + rng.below(2)))
        case 12..<15:
            var deep = FirestoreValue.map([:])
            for _ in 0..<(19 + rng.below(3)) { deep = .map(["d": deep]) }
            fields["deep"] = deep
        default: break
        }
        return fields
    }

    mutating func value(depth: Int, allowDelete: Bool) -> FirestoreValue {
        switch rng.below(100) {
        case 0..<18 where depth < 4:
            var m: [String: FirestoreValue] = [:]
            for _ in 0..<rng.below(4) { m[rng.pick(Self.names)] = value(depth: depth + 1, allowDelete: allowDelete) }
            return .map(m)
        case 18..<30: return sentinel()
        case 30..<34 where allowDelete: return .delete
        case 34..<40 where depth < 4:
            return .array((0..<rng.below(3)).map { _ in rng.chance(0.2) ? .map(["k": scalar()]) : scalar() })
        default: return scalar()
        }
    }

    mutating func leafOrSentinel(depth: Int) -> FirestoreValue {
        rng.chance(0.3) ? sentinel() : value(depth: depth, allowDelete: false)
    }

    mutating func sentinel() -> FirestoreValue {
        switch rng.below(10) {
        case 0..<3: return .serverTimestamp
        case 3..<8:
            return .increment(
                .integer(rng.pick([1, -1, 2, 0, 1000, .max, .min, .max - 1, Int64(bitPattern: rng.next()) >> 8])))
        default: return .increment(.double(rng.pick([0.5, -2.25, 1e308, -0.0, 3.0, 1e-300])))
        }
    }

    mutating func scalar() -> FirestoreValue {
        switch rng.below(13) {
        case 0: return .null
        case 1: return .boolean(rng.chance(0.5))
        case 2, 3:
            return .integer(rng.pick([0, 1, -1, 7, .max, .min, .max - 1, .min + 1, Int64(bitPattern: rng.next())]))
        case 4, 5:
            return .double(
                rng.pick([
                    0.0, -0.0, 0.5, 1.5, 3.0, -2.75, 1e308, -1e308, .nan, .infinity, -.infinity, .leastNonzeroMagnitude,
                ]))
        case 6, 7: return .string(rng.pick(["", "x", "é", "日本語", "a b", String(rng.next() % 1000)]))
        case 8:
            let seconds = Int64(rng.below(4_000_000_000)) - 1_000_000_000
            return .timestamp(
                (try? FirestoreTimestamp(seconds: seconds, microseconds: Int32(rng.below(1_000_000)))) ?? .minimum)
        case 9: return .bytes(Data((0..<rng.below(6)).map { _ in UInt8(rng.below(256)) }))
        case 10:
            return .geoPoint(GeoPoint(latitude: Double(rng.below(181)) - 90, longitude: -180 + Double(rng.below(361))))
        case 11: return .reference("projects/demo-vulture/databases/(default)/documents/other/\(rng.below(5))")
        default: return .integer(Int64(rng.below(10)))
        }
    }

    /// Some paths present in `d` (top level and nested) for mergeFields.
    mutating func mergeFieldPaths(_ d: [String: FirestoreValue]) -> [FieldPath] {
        var all: [FieldPath] = []
        func walk(_ m: [String: FirestoreValue], _ prefix: [String]) {
            for (k, v) in m.sorted(by: { $0.key < $1.key }) {
                if let p = try? FieldPath(prefix + [k]) { all.append(p) }
                if case .map(let inner) = v { walk(inner, prefix + [k]) }
            }
        }
        walk(d, [])
        var chosen: [FieldPath] = []
        for p in all where rng.chance(0.5) && !chosen.contains(where: { $0.isPrefix(of: p) || p.isPrefix(of: $0) }) {
            chosen.append(p)
        }
        return chosen
    }
}
