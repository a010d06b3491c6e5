import Foundation

/// Canonical typed JSON (Goldens/FORMAT.md): the golden format. Reads strictly and writes byte-canonical.
///
/// | Firestore value | canonical JSON |
/// | --- | --- |
/// | integer | a number without fraction or exponent |
/// | double | a number with `.` or `e`; NaN, ±Infinity, −0 as `{"$double": …}` |
/// | timestamp | `{"$timestamp": "…Z"}` (0, 3 or 6 fraction digits) |
/// | bytes | `{"$bytes": "base64"}` |
/// | geo point, reference | `{"$geoPoint": {"latitude": …, "longitude": …}}`, `{"$reference": "projects/…"}` |
/// | map with a `$` key | `{"$map": {…}}` |
/// | sentinels (write form) | `{"$serverTimestamp": true}`, `{"$increment": n}`, `{"$delete": true}` |
public enum CanonicalJSON {
    /// Reads one canonical typed JSON text into a value, checking Firestore's constraints
    /// (``FirestoreValue/validate(form:pointer:)``); the root is at depth 0, so a document's fields
    /// are at depth 1.
    /// - Parameters:
    ///   - bytes: UTF-8 text.
    ///   - file: file name for messages.
    ///   - form: `.stored` rejects sentinels; nil or `.write` accepts them outside arrays.
    /// - Throws: `SchemaInputError` with file, line:column, JSON pointer and rule.
    ///
    /// Valid input is read in one pass straight to the value (no tree; see `SinglePassCanonicalReader`);
    /// input it does not accept is read again as a JSON tree and then as typed values, which names the
    /// first error the format defines: a JSON text error anywhere before any typed error, typed errors
    /// in document order.
    public static func decode(_ bytes: [UInt8], file: String? = nil, form: DocumentForm? = nil) throws -> FirestoreValue
    {
        if let value = bytes.withUnsafeBufferPointer({ SinglePassCanonicalReader.read($0, form: form) }) {
            return value
        }
        return try decodeNamingTheError(bytes, file: file, form: form)
    }

    /// Reads canonical typed JSON from `Data`. See ``decode(_:file:form:)-([UInt8],_,_)``.
    public static func decode(_ data: Data, file: String? = nil, form: DocumentForm? = nil) throws -> FirestoreValue {
        let value = data.withUnsafeBytes { raw in
            SinglePassCanonicalReader.read(raw.assumingMemoryBound(to: UInt8.self), form: form)
        }
        if let value { return value }
        return try decodeNamingTheError([UInt8](data), file: file, form: form)
    }

    /// Reads canonical typed JSON held in part of a buffer (one line of a JSON Lines stream); line and
    /// column in errors count from the slice's first byte. See ``decode(_:file:form:)-([UInt8],_,_)``.
    public static func decode(_ bytes: ArraySlice<UInt8>, file: String? = nil, form: DocumentForm? = nil) throws
        -> FirestoreValue
    {
        if let value = bytes.withUnsafeBufferPointer({ SinglePassCanonicalReader.read($0, form: form) }) {
            return value
        }
        return try decodeNamingTheError(Array(bytes), file: file, form: form)
    }

    /// The two-phase reading (tree, then typed values): the exact error for input the single-pass
    /// reader stopped at. Returns the value should it accept what the single pass did not.
    static func decodeNamingTheError(_ bytes: [UInt8], file: String?, form: DocumentForm?) throws -> FirestoreValue {
        let node = try StrictJSONReader.parse(bytes, file: file)
        return try decode(node, source: JSONSourceText(bytes: bytes, file: file), form: form)
    }

    /// Reads a parsed node as canonical typed JSON; errors carry positions from `source`.
    static func decode(_ node: JSONNode, source: JSONSourceText?, form: DocumentForm?) throws -> FirestoreValue {
        var reader = TypedReader(source: source, form: form)
        return try reader.value(node, depth: 0, inArray: false)
    }

    /// Interprets an already-parsed node (for instance a member of a golden file) as canonical
    /// typed JSON. Errors carry byte offsets only when `sourceBytes` is given.
    public static func decode(
        node: JSONNode, sourceBytes: [UInt8]? = nil, file: String? = nil, form: DocumentForm? = nil
    ) throws -> FirestoreValue {
        try decode(node, source: sourceBytes.map { JSONSourceText(bytes: $0, file: file) }, form: form)
    }

    /// The canonical bytes of a value (final newline included), written straight from the value: the
    /// bytes of ``CanonicalJSONWriter/write(_:)`` on ``node(_:)-(FirestoreValue)``, without building the node.
    public static func encode(_ value: FirestoreValue) -> [UInt8] {
        var writer = CanonicalValueWriter(pretty: true)
        writer.write(value, indent: 0)
        writer.out.append(0x0A)
        return writer.out.bytes()
    }

    /// The canonical text of a value (final newline included).
    public static func string(_ value: FirestoreValue) -> String {
        String(decoding: encode(value), as: UTF8.self)
    }

    /// The JSON node for a value in canonical typed form (wrappers applied).
    public static func node(_ value: FirestoreValue) -> JSONNode {
        func wrap(_ key: String, _ inner: JSONNode.Kind) -> JSONNode {
            JSONNode(.object([JSONMember(key: key, value: JSONNode(inner))]))
        }
        switch value {
        case .null: return JSONNode(.null)
        case .boolean(let b): return JSONNode(.bool(b))
        case .integer(let v): return JSONNode(.integer(v))
        case .double(let d):
            if d.isNaN { return wrap("$double", .string("NaN")) }
            if d.isInfinite { return wrap("$double", .string(d < 0 ? "-Infinity" : "Infinity")) }
            if d == 0 && d.sign == .minus { return wrap("$double", .string("-0")) }
            return JSONNode(.double(d))
        case .string(let s): return JSONNode(.string(s))
        case .timestamp(let t): return wrap("$timestamp", .string(t.rfc3339))
        case .bytes(let b): return wrap("$bytes", .string(b.base64EncodedString()))
        case .geoPoint(let g):
            return wrap(
                "$geoPoint",
                .object([
                    JSONMember(key: "latitude", value: node(.double(g.latitude))),
                    JSONMember(key: "longitude", value: node(.double(g.longitude))),
                ]))
        case .reference(let r): return wrap("$reference", .string(r))
        case .array(let a): return JSONNode(.array(a.map(node)))
        case .map(let m):
            let members = m.map { JSONMember(key: $0.key, value: node($0.value)) }
            if m.keys.contains(where: { $0.hasPrefix("$") }) { return wrap("$map", .object(members)) }
            return JSONNode(.object(members))
        case .serverTimestamp: return wrap("$serverTimestamp", .bool(true))
        case .increment(.integer(let v)): return wrap("$increment", .integer(v))
        case .increment(.double(let d)): return wrap("$increment", node(.double(d)).kind)
        case .delete: return wrap("$delete", .bool(true))
        }
    }
}

/// Interprets JSON nodes as canonical typed values, enforcing Firestore's constraints as it goes.
private struct TypedReader {
    let source: JSONSourceText?
    let form: DocumentForm?

    /// The keys and indices from the root to the value being read; made a pointer only on failure.
    var path: [PathToken] = []

    func error(_ rule: InputRule, _ extra: PathToken?, _ message: String, at offset: Int) -> SchemaInputError {
        let pointer = PathToken.pointer(extra.map { path + [$0] } ?? path)
        let e = SchemaInputError(rule: rule, pointer: pointer, message: message)
        return source?.locate(e, at: offset) ?? e
    }

    mutating func value(_ node: JSONNode, depth: Int, inArray: Bool) throws -> FirestoreValue {
        if depth > FirestoreLimits.maximumDepth + 1 {
            throw error(.depth, nil, "nested deeper than Firestore's 20 levels", at: node.offset)
        }
        switch node.kind {
        case .null: return .null
        case .bool(let b): return .boolean(b)
        case .integer(let v): return .integer(v)
        case .bigInteger(let text):
            let shown = text.count > 40 ? String(text.prefix(40)) + "… (\(text.count) digits)" : text
            throw error(.jsonIntegerRange, nil, "integer \(shown) is outside int64", at: node.offset)
        case .double(let d):
            guard d.isFinite else {
                throw error(
                    .jsonDoubleRange, nil, "number is too large for a double; write {\"$double\": \"Infinity\"}",
                    at: node.offset)
            }
            return .double(d)
        case .string(let s): return .string(s)
        case .array(let elements):
            if inArray {
                throw error(.arrayInArray, nil, "an array directly inside an array", at: node.offset)
            }
            var out: [FirestoreValue] = []
            out.reserveCapacity(elements.count)
            for (i, e) in elements.enumerated() {
                path.append(.index(i))
                out.append(try value(e, depth: depth + 1, inArray: true))
                path.removeLast()
            }
            return .array(out)
        case .object(let members):
            if let first = members.first, first.key.hasPrefix("$") || members.contains(where: { $0.key.hasPrefix("$") })
            {
                guard members.count == 1 else {
                    let bad = members.first(where: { $0.key.hasPrefix("$") }) ?? first
                    throw error(
                        .canonicalWrapper, .key(bad.key),
                        "a map with a key starting with '$' must be written {\"$map\": {…}}, and a wrapper has exactly one key",
                        at: bad.keyOffset)
                }
                return try wrapper(first, node: node, depth: depth, inArray: inArray)
            }
            return try map(members, depth: depth, offset: node.offset)
        }
    }

    mutating func map(_ members: [JSONMember], depth: Int, offset: Int) throws -> FirestoreValue {
        if FirestoreLimits.isTooDeep(depth: depth, isMap: true) {
            throw error(.depth, nil, "a map nested deeper than Firestore's 20 levels", at: offset)
        }
        var out: [String: FirestoreValue] = Dictionary(minimumCapacity: members.count)
        for m in members {
            if let (rule, message) = FirestoreLimits.fieldNameViolation(m.key) {
                throw error(rule, .key(m.key), message, at: m.keyOffset)
            }
            path.append(.key(m.key))
            out[m.key] = try value(m.value, depth: depth + 1, inArray: false)
            path.removeLast()
        }
        return .map(out)
    }

    mutating func sentinel(_ v: FirestoreValue, _ member: JSONMember, inArray: Bool) throws
        -> FirestoreValue
    {
        if inArray {
            throw error(.sentinelInArray, nil, "\(v.typeName) sentinel inside an array", at: member.keyOffset)
        }
        if form == .stored {
            throw error(
                .sentinelInStoredForm, nil, "\(v.typeName) sentinel in a stored-form document", at: member.keyOffset
            )
        }
        return v
    }

    mutating func wrapper(_ m: JSONMember, node: JSONNode, depth: Int, inArray: Bool) throws
        -> FirestoreValue
    {
        let inner = m.value
        func bad(_ message: String) -> SchemaInputError {
            error(.canonicalWrapper, .key(m.key), "\(m.key): \(message)", at: inner.offset)
        }
        switch m.key {
        case "$double":
            guard case .string(let s) = inner.kind else {
                throw bad("expects \"NaN\", \"Infinity\", \"-Infinity\" or \"-0\"")
            }
            switch s {
            case "NaN": return .double(.nan)
            case "Infinity": return .double(.infinity)
            case "-Infinity": return .double(-.infinity)
            case "-0": return .double(-0.0)
            default: throw bad("expects \"NaN\", \"Infinity\", \"-Infinity\" or \"-0\", not \"\(s)\"")
            }
        case "$timestamp":
            guard case .string(let s) = inner.kind else { throw bad("expects an RFC 3339 string") }
            do {
                guard
                    let t = try FirestoreTimestamp.parseRFC3339(
                        s, allowedFractionDigits: [0, 3, 6], allowOffset: false)
                else {
                    throw error(
                        .canonicalTimestamp, .key(m.key),
                        "\"\(s)\" is not YYYY-MM-DDTHH:MM:SS[.fff|.ffffff]Z (UTC, a valid date)",
                        at: inner.offset)
                }
                return .timestamp(t)
            } catch var e as SchemaInputError where e.rule == .timestampRange {
                e.pointer = PathToken.pointer(path + [.key(m.key)])
                throw source?.locate(e, at: inner.offset) ?? e
            }
        case "$bytes":
            guard case .string(let s) = inner.kind else { throw bad("expects a base64 string") }
            guard let data = CanonicalBase64.decode(s) else {
                throw error(.base64, .key(m.key), "not standard, padded, canonical base64", at: inner.offset)
            }
            return .bytes(data)
        case "$geoPoint":
            guard case .object(let members) = inner.kind, members.count == 2,
                let lat = members.first(where: { $0.key == "latitude" }),
                let lng = members.first(where: { $0.key == "longitude" }),
                let la = number(lat.value), let lo = number(lng.value)
            else { throw bad("expects {\"latitude\": number, \"longitude\": number}") }
            let g = GeoPoint(latitude: la, longitude: lo)
            if let message = g.rangeViolation { throw error(.geoPointRange, .key(m.key), message, at: inner.offset) }
            return .geoPoint(g)
        case "$reference":
            guard case .string(let s) = inner.kind else { throw bad("expects a document name string") }
            if let message = FirestoreLimits.referenceViolation(s) {
                throw error(.referenceFormat, .key(m.key), message, at: inner.offset)
            }
            return .reference(s)
        case "$map":
            guard case .object(let members) = inner.kind else { throw bad("expects an object") }
            return try map(members, depth: depth, offset: node.offset)
        case "$serverTimestamp":
            guard case .bool(true) = inner.kind else { throw bad("expects true") }
            return try sentinel(.serverTimestamp, m, inArray: inArray)
        case "$delete":
            guard case .bool(true) = inner.kind else { throw bad("expects true") }
            return try sentinel(.delete, m, inArray: inArray)
        case "$increment":
            let operand: IncrementOperand
            switch inner.kind {
            case .integer(let v): operand = .integer(v)
            case .double(let d) where d.isFinite: operand = .double(d)
            default: throw bad("expects a finite integer or double")
            }
            return try sentinel(.increment(operand), m, inArray: inArray)
        default:
            throw error(
                .canonicalUnknownWrapper, .key(m.key),
                "unknown wrapper \(m.key); a map with this key must be written {\"$map\": {…}}", at: m.keyOffset)
        }
    }

    func number(_ node: JSONNode) -> Double? {
        switch node.kind {
        case .integer(let v): return Double(v)
        case .double(let d) where d.isFinite: return d
        default: return nil
        }
    }
}

/// Standard base64 with padding, accepted only in its canonical spelling (the one the bytes encode
/// back to), so one byte string has one text.
enum CanonicalBase64 {
    static func decode(_ text: String) -> Data? {
        guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else { return nil }
        return data
    }
}
