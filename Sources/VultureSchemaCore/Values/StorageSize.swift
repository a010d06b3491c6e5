import Foundation

/// Firestore's storage-size estimate, per its documented formula ("Storage size calculations").
///
/// - string (and field name, collection id, document id): UTF-8 bytes + 1
/// - bytes: length; integer, double, timestamp: 8; boolean, null: 1; geo point: 16
/// - reference: the size of the document name it holds
/// - array: Σ its values
/// - map: Σ (field-name size + value size) over its entries — **pinned**: the documentation says a
///   map is sized "the same way as a document", which leaves open whether the document's name and
///   its 32 extra bytes apply; we follow Firestore's own wording for embedded objects (its
///   Enterprise edition: "the sum of the string sizes of each field name and the sizes of each
///   field value") and add neither.
/// - document name: Σ segment sizes (each a string size) + 16
/// - document: name + Σ (field-name size + value size) + 32
/// - write sentinels (write form only; estimated as what they become): `serverTimestamp` 8,
///   `increment` 8, `delete` 0.
///
/// All sizes are in bytes. Source: schema §3 (limits: document size ≤ 1 MiB; the engine's ≤ 4 MB
/// batch payload estimate).
public enum StorageSize {
    /// The size of a string: UTF-8 bytes + 1.
    public static func string(_ s: String) -> Int { s.utf8.count + 1 }

    /// The size of a value, in bytes.
    public static func value(_ v: FirestoreValue) -> Int { value(v, emptyContainer: 0) }

    /// The size of a value, each empty map and empty array counted as `emptyContainer` bytes (the
    /// formula: 0; Firestore's emulator: 1).
    package static func value(_ v: FirestoreValue, emptyContainer: Int) -> Int {
        switch v {
        case .null, .boolean: return 1
        case .integer, .double, .timestamp: return 8
        case .string(let s): return string(s)
        case .bytes(let b): return b.count
        case .geoPoint: return 16
        case .reference(let name): return documentName(name)
        case .array(let a):
            return a.isEmpty ? emptyContainer : a.reduce(0) { $0 + value($1, emptyContainer: emptyContainer) }
        case .map(let m): return m.isEmpty ? emptyContainer : fields(m, emptyContainer: emptyContainer)
        case .serverTimestamp, .increment: return 8
        case .delete: return 0
        }
    }

    /// Σ (field-name size + value size) over a field map, in bytes.
    public static func fields(_ m: [String: FirestoreValue]) -> Int { fields(m, emptyContainer: 0) }

    /// Σ (field-name size + value size) over a field map, empty maps and arrays counted as
    /// `emptyContainer` bytes (see ``value(_:emptyContainer:)``).
    package static func fields(_ m: [String: FirestoreValue], emptyContainer: Int) -> Int {
        m.reduce(0) { $0 + string($1.key) + value($1.value, emptyContainer: emptyContainer) }
    }

    /// The size of a document name: Σ over its path segments of their string sizes, + 16.
    /// `path` is the relative path (`users/jeff/tasks/my_task_id`); a full name
    /// (`projects/p/databases/d/documents/users/…`) is reduced to its part after `documents/`.
    public static func documentName(_ path: String) -> Int {
        var relative = Substring(path).utf8
        if path.hasPrefix("projects/"), let r = path.range(of: "/documents/") {
            relative = path[r.upperBound...].utf8
        }
        // Each segment's UTF-8 bytes + 1: the bytes that are not slashes, + 1 per non-empty segment
        // (read in place where the string stores its bytes contiguously, as a native one does).
        return 16 + (relative.withContiguousStorageIfAvailable(segmentBytes) ?? segmentBytes(relative))
    }

    /// Σ over the `/`-separated non-empty segments of their byte counts + 1.
    static func segmentBytes(_ bytes: some Sequence<UInt8>) -> Int {
        var size = 0
        var inSegment = false
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                inSegment = false
            } else {
                size += inSegment ? 1 : 2
                inSegment = true
            }
        }
        return size
    }

    /// The size of a document: name + fields + 32 bytes.
    /// - Parameters:
    ///   - path: the document's path relative to the database (`users/jeff/tasks/my_task_id`).
    ///   - f: its fields.
    public static func document(path: String, fields f: [String: FirestoreValue]) -> Int {
        document(path: path, fields: f, emptyContainer: 0)
    }

    /// The size of a document, each empty map and empty array counted as `emptyContainer` bytes
    /// (see ``value(_:emptyContainer:)``).
    package static func document(path: String, fields f: [String: FirestoreValue], emptyContainer: Int) -> Int {
        documentName(path) + fields(f, emptyContainer: emptyContainer) + 32
    }
}
