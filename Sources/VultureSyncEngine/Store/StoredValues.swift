import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// Why a stored row or engine state cannot be read back: the JSON pointer inside the stored value
/// and what is wrong. The store that read it adds the file (``FileLocalStore``, ``SQLiteLocalStore``).
public struct StoredValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The pointer inside the stored value (`/state/cursors`, `/fields`, …).
    public var pointer: String
    /// What is wrong.
    public var message: String

    /// An error at `pointer`.
    public init(pointer: String, message: String) {
        self.pointer = pointer
        self.message = message
    }

    /// `/pointer: message`.
    public var description: String { "\(pointer.isEmpty ? "/" : pointer): \(message)" }
}

extension EngineState {
    /// The state as one canonical typed JSON map, the form every durable store keeps (the
    /// `state` of `state.json`, the one value of SQLite's `engine_state` table): a field added to
    /// ``EngineState`` is persisted by every store by adding it here and to ``init(canonicalValue:)``.
    public var canonicalValue: FirestoreValue {
        var cursors: [String: FirestoreValue] = [:]
        for (c, t) in self.cursors { cursors[c.rawValue] = .timestamp(t) }
        return .map([
            "cursors": .map(cursors), "pausedUntil": pausedUntil.map { .timestamp($0) } ?? .null,
            "profile": profile.map { .map($0) } ?? .null, "duplicatePassDone": .boolean(duplicatePassDone),
            "lastPullAt": lastPullAt.map { .timestamp($0) } ?? .null,
            "heldRecords": .map(heldRecords.mapValues { .array($0.map { .string($0) }) }),
            "pendingStorageDeletes": .array(pendingStorageDeletes.map { .string($0) }),
        ])
    }

    /// The state ``canonicalValue`` wrote. A field missing from `value` (a state written before the
    /// field existed) takes its empty value; an unknown collection's cursor is skipped.
    /// - Throws: ``StoredValueError`` when `value` is not a map, or a field has the wrong type.
    public init(canonicalValue value: FirestoreValue) throws(StoredValueError) {
        guard case .map(let m) = value else {
            throw StoredValueError(pointer: "", message: "the engine state is a map")
        }
        func field<T>(_ name: String, _ read: (FirestoreValue) -> T?) throws(StoredValueError) -> T? {
            guard let v = m[name], v != .null else { return nil }
            guard let t = read(v) else { throw StoredValueError(pointer: "/\(name)", message: "wrong type") }
            return t
        }
        self.init()
        for (name, t) in try field("cursors", { $0.mapValue }) ?? [:] {
            guard let c = SyncCollection(rawValue: name) else { continue }
            guard case .timestamp(let time) = t else {
                throw StoredValueError(pointer: "/cursors/\(name)", message: "a cursor is a timestamp")
            }
            cursors[c] = time
        }
        pausedUntil = try field("pausedUntil") { if case .timestamp(let t) = $0 { t } else { nil } }
        profile = try field("profile") { $0.mapValue }
        duplicatePassDone = try field("duplicatePassDone") { if case .boolean(let b) = $0 { b } else { nil } } ?? false
        lastPullAt = try field("lastPullAt") { if case .timestamp(let t) = $0 { t } else { nil } }
        for (key, errors) in try field("heldRecords", { $0.mapValue }) ?? [:] {
            guard case .array(let items) = errors else {
                throw StoredValueError(pointer: "/heldRecords/\(key)", message: "a held record's errors are a list")
            }
            heldRecords[key] = try items.map { item throws(StoredValueError) in
                guard case .string(let e) = item else {
                    throw StoredValueError(pointer: "/heldRecords/\(key)", message: "an error is a string")
                }
                return e
            }
        }
        let pending: [FirestoreValue]? = try field("pendingStorageDeletes") {
            if case .array(let a) = $0 { a } else { nil }
        }
        for item in pending ?? [] {
            guard case .string(let path) = item else {
                throw StoredValueError(pointer: "/pendingStorageDeletes", message: "an object path is a string")
            }
            pendingStorageDeletes.append(path)
        }
    }
}

extension LocalRow {
    /// The row as one canonical typed JSON map without its collection and id (the store keys it by
    /// them): `fields`, `base`, `baseUpdateTime`, `origin`, `createdAt`, `deferredTaskId`,
    /// `pendingBlobMap`, `createdSinceAgreement`. The form of a row in `state.json` and in SQLite's `rows`.
    public var canonicalValue: FirestoreValue {
        .map([
            "fields": .map(fields), "base": base.map { .map($0) } ?? .null,
            "baseUpdateTime": baseUpdateTime.map { .timestamp($0) } ?? .null,
            "origin": .string(origin.rawValue), "createdAt": .timestamp(createdAt),
            "deferredTaskId": deferredTaskId.map { .string($0) } ?? .null,
            "pendingBlobMap": pendingBlobMap ?? .null,
            "createdSinceAgreement": .boolean(createdSinceAgreement),
        ])
    }

    /// The row ``canonicalValue`` wrote, in `collection` with `id`.
    /// - Throws: ``StoredValueError`` when `fields`, `origin` or `createdAt` is missing or a field
    ///   has the wrong type.
    public init(collection: SyncCollection, id: String, canonicalValue value: FirestoreValue) throws(StoredValueError) {
        guard case .map(let m) = value, case .map(let fields)? = m["fields"],
            case .string(let originText)? = m["origin"], let origin = RowOrigin(rawValue: originText),
            case .timestamp(let createdAt)? = m["createdAt"]
        else {
            throw StoredValueError(pointer: "", message: "a row has fields (a map), origin and createdAt (a timestamp)")
        }
        func optional<T>(_ name: String, _ read: (FirestoreValue) -> T?) throws(StoredValueError) -> T? {
            guard let v = m[name], v != .null else { return nil }
            guard let t = read(v) else { throw StoredValueError(pointer: "/\(name)", message: "wrong type") }
            return t
        }
        self.init(
            collection: collection, id: id, fields: fields, base: try optional("base") { $0.mapValue },
            baseUpdateTime: try optional("baseUpdateTime") { if case .timestamp(let t) = $0 { t } else { nil } },
            origin: origin, createdAt: createdAt,
            deferredTaskId: try optional("deferredTaskId") { if case .string(let s) = $0 { s } else { nil } },
            pendingBlobMap: m["pendingBlobMap"] == .null ? nil : m["pendingBlobMap"],
            createdSinceAgreement: m["createdSinceAgreement"] == .boolean(true))
    }
}

/// The engine state through any coder (`JSONEncoder`, `PropertyListEncoder`, an app's own): the
/// shape of ``canonicalValue`` in `FirestoreValue`'s Codable form, so an app keeps it in its own
/// database as CKSyncEngine's state serialization is kept.
extension EngineState: Codable {
    /// Writes ``canonicalValue``.
    public func encode(to encoder: any Encoder) throws { try canonicalValue.encode(to: encoder) }

    /// Reads what ``encode(to:)`` wrote.
    /// - Throws: `DecodingError.dataCorrupted` naming the ``StoredValueError`` (pointer and rule).
    public init(from decoder: any Decoder) throws {
        let value = try FirestoreValue(from: decoder)
        do { try self.init(canonicalValue: value) } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "engine state \(error)", underlyingError: error)
            )
        }
    }
}

/// A row through any coder: `{"collection", "id", "row"}`, `row` being ``canonicalValue`` in
/// `FirestoreValue`'s Codable form — the Codable rows an app's ``LocalStore`` keeps in its database.
extension LocalRow: Codable {
    private enum CodingKeys: String, CodingKey { case collection, id, row }

    /// Writes the collection's raw value, the id and ``canonicalValue``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(collection.rawValue, forKey: .collection)
        try container.encode(id, forKey: .id)
        try container.encode(canonicalValue, forKey: .row)
    }

    /// Reads what ``encode(to:)`` wrote.
    /// - Throws: `DecodingError` for a missing key or an unknown collection;
    ///   `DecodingError.dataCorrupted` naming the ``StoredValueError`` for a malformed row.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .collection)
        guard let collection = SyncCollection(rawValue: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .collection, in: container, debugDescription: "no collection is called \(name)")
        }
        let id = try container.decode(String.self, forKey: .id)
        let value = try container.decode(FirestoreValue.self, forKey: .row)
        do { try self.init(collection: collection, id: id, canonicalValue: value) } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .row, in: container, debugDescription: "row \(collection.rawValue)/\(id) \(error)")
        }
    }
}
