import Foundation

/// A write in canonical typed JSON (README, "Writes"):
///
///     {"path": "users/u1/flights/f1", "fields": {…}, "mask": ["comments", "summary"],
///      "precondition": {"exists": false}}
///     {"path": "users/u1/flights/f1", "delete": true, "precondition": {"updateTime": {"$timestamp": "…"}}}
///
/// `path` (relative to the database root) and `precondition` may be absent; `mask` is absent for a
/// write that replaces the whole document. `fields` holds the sentinels inline; a mask path with
/// no value, or with `{"$delete": true}`, deletes the field (the writer leaves the value out).
/// The mask is written normalized: sorted, no duplicates, no path beneath another.
extension CanonicalJSON {
    /// Reads one write.
    /// - Throws: `SchemaInputError` with file, line:column, pointer and rule: `json.*`,
    ///   `canonical.*` and `value.*` for the text and values, `write.shape` for unknown or missing
    ///   members, `write.field-path` for a malformed mask path, `write.mask` as
    ///   ``FirestoreWrite/init(path:fields:mask:precondition:)`` throws.
    public static func decodeWrite(_ bytes: [UInt8], file: String? = nil) throws -> FirestoreWrite {
        let node = try StrictJSONReader.parse(bytes, file: file)
        return try decodeWrite(node, source: JSONSourceText(bytes: bytes, file: file), pointer: "")
    }

    /// Reads one write from an already-parsed node (for instance a member of a golden file).
    /// Errors carry line:column only when `sourceBytes` is given; `pointer` is the node's pointer
    /// in its file, prefixed to every error pointer.
    public static func decodeWrite(
        node: JSONNode, sourceBytes: [UInt8]? = nil, file: String? = nil, pointer: String = ""
    ) throws -> FirestoreWrite {
        try decodeWrite(node, source: sourceBytes.map { JSONSourceText(bytes: $0, file: file) }, pointer: pointer)
    }

    static func decodeWrite(_ node: JSONNode, source: JSONSourceText?, pointer: String) throws -> FirestoreWrite {
        func fail(_ rule: InputRule, _ p: String, _ message: String, at offset: Int) -> SchemaInputError {
            let e = SchemaInputError(rule: rule, pointer: p, message: message)
            return source?.locate(e, at: offset) ?? e
        }
        guard case .object(let members) = node.kind else {
            throw fail(.writeShape, pointer, "a write is a JSON object, found \(node.typeName)", at: node.offset)
        }
        var path: String?
        var fields: [String: FirestoreValue]?
        var mask: [FieldPath]?
        var precondition: FirestorePrecondition?
        var delete = false
        for m in members {
            let p = JSONPointer.appending(pointer, m.key)
            switch m.key {
            case "path":
                guard case .string(let s) = m.value.kind else {
                    throw fail(.writeShape, p, "path must be a string", at: m.value.offset)
                }
                if let message = FirestoreLimits.documentPathViolation(s) {
                    throw fail(.referenceFormat, p, message, at: m.value.offset)
                }
                path = s
            case "fields":
                guard case .object = m.value.kind else {
                    throw fail(.writeShape, p, "fields must be an object", at: m.value.offset)
                }
                do {
                    fields = try decode(m.value, source: source, form: .write).mapValue ?? [:]
                } catch var e as SchemaInputError {
                    e.pointer = p + e.pointer
                    throw e
                }
            case "mask":
                guard case .array(let elements) = m.value.kind else {
                    throw fail(.writeShape, p, "mask must be an array of field paths", at: m.value.offset)
                }
                var paths: [FieldPath] = []
                for (i, e) in elements.enumerated() {
                    let ep = JSONPointer.appending(p, i)
                    guard case .string(let s) = e.kind else {
                        throw fail(.writeShape, ep, "a mask entry is a field path string", at: e.offset)
                    }
                    do {
                        paths.append(try FieldPath(parsing: s))
                    } catch let error as SchemaInputError {
                        throw fail(error.rule, ep, error.message, at: e.offset)
                    }
                }
                mask = paths
            case "precondition":
                precondition = try decodePrecondition(m.value, source: source, pointer: p)
            case "delete":
                guard case .bool(true) = m.value.kind else {
                    throw fail(.writeShape, p, "delete must be true", at: m.value.offset)
                }
                delete = true
            default:
                throw fail(
                    .writeShape, p, "unknown write member \"\(m.key)\" (path, fields, mask, precondition, delete)",
                    at: m.keyOffset)
            }
        }
        if delete {
            if fields != nil || mask != nil {
                throw fail(.writeShape, pointer, "a delete has no fields and no mask", at: node.offset)
            }
            return .delete(path: path, precondition: precondition)
        }
        guard let fields else {
            throw fail(.writeShape, pointer, "a write has fields (or \"delete\": true)", at: node.offset)
        }
        do {
            return try FirestoreWrite(path: path, fields: fields, mask: mask, precondition: precondition)
        } catch var e as SchemaInputError {
            e.pointer = pointer + e.pointer
            throw fail(e.rule, e.pointer, e.message, at: node.offset)
        }
    }

    static func decodePrecondition(_ node: JSONNode, source: JSONSourceText?, pointer: String) throws
        -> FirestorePrecondition
    {
        func fail(_ message: String, _ p: String, at offset: Int) -> SchemaInputError {
            let e = SchemaInputError(rule: .writeShape, pointer: p, message: message)
            return source?.locate(e, at: offset) ?? e
        }
        guard case .object(let members) = node.kind, members.count == 1, let m = members.first else {
            throw fail(
                "a precondition is {\"exists\": true|false} or {\"updateTime\": {\"$timestamp\": …}}", pointer,
                at: node.offset)
        }
        let p = JSONPointer.appending(pointer, m.key)
        switch m.key {
        case "exists":
            guard case .bool(let b) = m.value.kind else {
                throw fail("exists must be true or false", p, at: m.value.offset)
            }
            return .exists(b)
        case "updateTime":
            let v: FirestoreValue
            do {
                v = try decode(m.value, source: source, form: .stored)
            } catch var e as SchemaInputError {
                e.pointer = p + e.pointer
                throw e
            }
            guard case .timestamp(let t) = v else {
                throw fail("updateTime must be {\"$timestamp\": …}", p, at: m.value.offset)
            }
            return .updateTime(t)
        default:
            throw fail("unknown precondition \"\(m.key)\" (exists, updateTime)", p, at: m.keyOffset)
        }
    }

    /// The canonical bytes of a write (final newline included).
    public static func encode(_ write: FirestoreWrite) -> [UInt8] {
        CanonicalJSONWriter.write(node(write))
    }

    /// The canonical JSON node of a write.
    public static func node(_ write: FirestoreWrite) -> JSONNode {
        var members: [JSONMember] = []
        if let path = write.path { members.append(JSONMember(key: "path", value: JSONNode(.string(path)))) }
        switch write.operation {
        case .delete:
            members.append(JSONMember(key: "delete", value: JSONNode(.bool(true))))
        case .update(let fields, let mask):
            members.append(JSONMember(key: "fields", value: node(.map(fields))))
            if let mask {
                let paths = mask.map { JSONNode(.string($0.description)) }
                members.append(JSONMember(key: "mask", value: JSONNode(.array(paths))))
            }
        }
        switch write.precondition {
        case nil: break
        case .exists(let b)?:
            members.append(
                JSONMember(
                    key: "precondition",
                    value: JSONNode(.object([JSONMember(key: "exists", value: JSONNode(.bool(b)))])))
            )
        case .updateTime(let t)?:
            members.append(
                JSONMember(
                    key: "precondition",
                    value: JSONNode(.object([JSONMember(key: "updateTime", value: node(.timestamp(t)))]))))
        }
        return JSONNode(.object(members))
    }
}

extension FirestoreLimits {
    /// Why `path` is not a document path relative to the database root (`users/u1/flights/f1`), or
    /// nil: an even number of segments, none empty, `.` or `..`, none matching `__.*__`, each at
    /// most 1,500 UTF-8 bytes.
    public static func documentPathViolation(_ path: String) -> String? {
        if isDocumentPath(path) { return nil }
        let parts = slashSegments(path)
        guard parts.count >= 2, parts.count % 2 == 0 else {
            return "\"\(path)\" is not a document path (collection/id, an even number of segments)"
        }
        for part in parts {
            if part.isEmpty { return "\"\(path)\" has an empty segment" }
            if part == "." || part == ".." { return "\"\(path)\": a segment cannot be \".\" or \"..\"" }
            if part.utf8.count > maximumFieldNameBytes {
                return "\"\(path.prefix(60))…\": a segment is over 1500 UTF-8 bytes"
            }
            if part.utf8.count >= 4, part.utf8.starts(with: [0x5F, 0x5F]),
                part.utf8.reversed().starts(with: [0x5F, 0x5F])
            {
                return "\"\(path)\": segment \"\(part)\" matches __.*__, which Firestore reserves"
            }
        }
        return nil
    }

    /// Whether ``documentPathViolation(_:)`` finds nothing, in one pass over the bytes with nothing
    /// allocated (every write's path is checked); the violation itself is found the slow way.
    static func isDocumentPath(_ path: String) -> Bool {
        var segments = 0
        var length = 0
        var first: UInt8 = 0
        var second: UInt8 = 0
        var previous: UInt8 = 0
        var last: UInt8 = 0
        func segmentIsValid() -> Bool {
            if length == 0 || length > maximumFieldNameBytes { return false }
            if first == 0x2E, length == 1 || (length == 2 && last == 0x2E) { return false }
            return !(length >= 4 && first == 0x5F && second == 0x5F && previous == 0x5F && last == 0x5F)
        }
        for byte in path.utf8 {
            if byte == 0x2F {
                guard segmentIsValid() else { return false }
                segments += 1
                length = 0
                continue
            }
            if length == 0 { first = byte } else if length == 1 { second = byte }
            previous = last
            last = byte
            length += 1
        }
        guard segmentIsValid() else { return false }
        segments += 1
        return segments >= 2 && segments % 2 == 0
    }
}
