import Foundation

/// A Firestore REST `Document`: its full name, fields, and the server's create and update times.
///
/// Shape: `{"name": "projects/…/documents/users/{uid}/flights/{id}", "fields": {name: Value},
/// "createTime": RFC 3339, "updateTime": RFC 3339}`; every member but `fields` may be absent.
/// A REST document is always in stored form: it has no sentinels.
public struct FirestoreRESTDocument: Sendable, Hashable {
    /// `projects/{p}/databases/{d}/documents/{path}`, when known.
    public var name: String?
    /// The document's fields.
    public var fields: [String: FirestoreValue]
    /// When the document was created, as the server reports it.
    public var createTime: FirestoreTimestamp?
    /// When the document was last changed, as the server reports it.
    public var updateTime: FirestoreTimestamp?

    /// A REST document; `name`, `createTime` and `updateTime` are nil when unknown.
    public init(
        name: String? = nil, fields: [String: FirestoreValue], createTime: FirestoreTimestamp? = nil,
        updateTime: FirestoreTimestamp? = nil
    ) {
        self.name = name
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }
}

/// Firestore REST JSON (Goldens/FORMAT.md, last paragraph): `Document` and `Value` as the REST API and
/// the emulator write them, read and written both ways to ``FirestoreValue``.
///
/// `integerValue` is a decimal string (a JSON integer is accepted too); `doubleValue` a number or
/// "NaN"/"Infinity"/"-Infinity"; `timestampValue` RFC 3339 with up to 9 fraction digits, rounded
/// down to microseconds as Firestore stores them; `bytesValue` standard base64; `nullValue` null or
/// "NULL_VALUE"; `mapValue.fields` and `arrayValue.values` (either may be absent when empty);
/// `geoPointValue` with absent coordinates read as 0, as proto3 JSON omits zeros.
public enum FirestoreRESTJSON {
    /// Reads a REST `Document` (stored form; Firestore's constraints checked).
    /// - Throws: `SchemaInputError` with file, line:column, JSON pointer and a `rest.*`, `json.*` or
    ///   `value.*` rule.
    public static func decodeDocument(_ bytes: [UInt8], file: String? = nil) throws -> FirestoreRESTDocument {
        let node = try StrictJSONReader.parse(bytes, file: file)
        var reader = RESTReader(source: JSONSourceText(bytes: bytes, file: file))
        return try reader.document(node)
    }

    /// Reads a REST `Document` from `Data`. See ``decodeDocument(_:file:)-([UInt8],_)``.
    public static func decodeDocument(_ data: Data, file: String? = nil) throws -> FirestoreRESTDocument {
        try decodeDocument([UInt8](data), file: file)
    }

    /// Reads one REST `Value` object (`{"integerValue": "1"}`).
    /// - Throws: `SchemaInputError` as ``decodeDocument(_:file:)-([UInt8],_)`` does.
    public static func decodeValue(_ bytes: [UInt8], file: String? = nil) throws -> FirestoreValue {
        let node = try StrictJSONReader.parse(bytes, file: file)
        var reader = RESTReader(source: JSONSourceText(bytes: bytes, file: file))
        return try reader.value(node, pointer: "", depth: 1, inArray: false)
    }

    /// The canonical bytes (Goldens/FORMAT.md layout) of a REST `Document`.
    /// - Throws: `SchemaInputError` (`value.sentinel-in-stored-form`) when a field holds a sentinel,
    ///   which REST `Value` cannot express.
    public static func encodeDocument(_ document: FirestoreRESTDocument) throws -> [UInt8] {
        var members: [JSONMember] = []
        if let name = document.name { members.append(JSONMember(key: "name", value: JSONNode(.string(name)))) }
        members.append(JSONMember(key: "fields", value: try fieldsNode(document.fields, pointer: "")))
        if let t = document.createTime {
            members.append(JSONMember(key: "createTime", value: JSONNode(.string(t.rfc3339))))
        }
        if let t = document.updateTime {
            members.append(JSONMember(key: "updateTime", value: JSONNode(.string(t.rfc3339))))
        }
        return CanonicalJSONWriter.write(JSONNode(.object(members)))
    }

    /// The REST `Value` node of a value.
    /// - Throws: `SchemaInputError` (`value.sentinel-in-stored-form`) for a sentinel.
    public static func node(_ value: FirestoreValue, pointer: String = "") throws -> JSONNode {
        func wrap(_ key: String, _ inner: JSONNode.Kind) -> JSONNode {
            JSONNode(.object([JSONMember(key: key, value: JSONNode(inner))]))
        }
        switch value {
        case .null: return wrap("nullValue", .null)
        case .boolean(let b): return wrap("booleanValue", .bool(b))
        case .integer(let v): return wrap("integerValue", .string(String(v)))
        case .double(let d):
            if d.isNaN { return wrap("doubleValue", .string("NaN")) }
            if d.isInfinite { return wrap("doubleValue", .string(d < 0 ? "-Infinity" : "Infinity")) }
            return wrap("doubleValue", .double(d))
        case .string(let s): return wrap("stringValue", .string(s))
        case .timestamp(let t): return wrap("timestampValue", .string(t.rfc3339))
        case .bytes(let b): return wrap("bytesValue", .string(b.base64EncodedString()))
        case .reference(let r): return wrap("referenceValue", .string(r))
        case .geoPoint(let g):
            return wrap(
                "geoPointValue",
                .object([
                    JSONMember(key: "latitude", value: JSONNode(.double(g.latitude))),
                    JSONMember(key: "longitude", value: JSONNode(.double(g.longitude))),
                ]))
        case .array(let a):
            if a.isEmpty { return wrap("arrayValue", .object([])) }
            var values: [JSONNode] = []
            for (i, e) in a.enumerated() { values.append(try node(e, pointer: JSONPointer.appending(pointer, i))) }
            return wrap("arrayValue", .object([JSONMember(key: "values", value: JSONNode(.array(values)))]))
        case .map(let m):
            if m.isEmpty { return wrap("mapValue", .object([])) }
            return wrap("mapValue", .object([JSONMember(key: "fields", value: try fieldsNode(m, pointer: pointer))]))
        case .serverTimestamp, .increment, .delete:
            throw SchemaInputError(
                rule: .sentinelInStoredForm, pointer: pointer,
                message: "\(value.typeName) sentinel has no Firestore REST Value form (REST documents are stored form)")
        }
    }

    static func fieldsNode(_ fields: [String: FirestoreValue], pointer: String) throws -> JSONNode {
        var members: [JSONMember] = []
        members.reserveCapacity(fields.count)
        for (k, v) in fields {
            members.append(JSONMember(key: k, value: try node(v, pointer: JSONPointer.appending(pointer, k))))
        }
        return JSONNode(.object(members))
    }
}

/// Interprets JSON nodes as REST `Document` / `Value`, enforcing Firestore's constraints.
private struct RESTReader {
    let source: JSONSourceText

    func error(_ rule: InputRule, _ pointer: String, _ message: String, at offset: Int) -> SchemaInputError {
        source.locate(SchemaInputError(rule: rule, pointer: pointer, message: message), at: offset)
    }

    func timestamp(_ node: JSONNode, pointer: String) throws -> FirestoreTimestamp {
        guard case .string(let s) = node.kind else {
            throw error(.restTimestamp, pointer, "expected an RFC 3339 string, found \(node.typeName)", at: node.offset)
        }
        do {
            guard let t = try FirestoreTimestamp.parseRFC3339(s, allowedFractionDigits: Set(0...9), allowOffset: true)
            else {
                throw error(
                    .restTimestamp, pointer, "\"\(s)\" is not RFC 3339 with at most 9 fraction digits", at: node.offset)
            }
            return t
        } catch var e as SchemaInputError where e.rule == .timestampRange {
            e.pointer = pointer
            throw source.locate(e, at: node.offset)
        }
    }

    mutating func document(_ node: JSONNode) throws -> FirestoreRESTDocument {
        guard case .object(let members) = node.kind else {
            throw error(.restShape, "", "a Document is a JSON object, found \(node.typeName)", at: node.offset)
        }
        var doc = FirestoreRESTDocument(fields: [:])
        for m in members {
            let p = JSONPointer.appending("", m.key)
            switch m.key {
            case "name":
                guard case .string(let s) = m.value.kind else {
                    throw error(.restShape, p, "name must be a string", at: m.value.offset)
                }
                if let message = FirestoreLimits.referenceViolation(s) {
                    throw error(.referenceFormat, p, message, at: m.value.offset)
                }
                doc.name = s
            case "fields":
                doc.fields = try fields(m.value, pointer: p, depth: 0)
            case "createTime": doc.createTime = try timestamp(m.value, pointer: p)
            case "updateTime": doc.updateTime = try timestamp(m.value, pointer: p)
            default:
                throw error(
                    .restShape, p, "unknown Document member \"\(m.key)\" (name, fields, createTime, updateTime)",
                    at: m.keyOffset)
            }
        }
        return doc
    }

    mutating func fields(_ node: JSONNode, pointer: String, depth: Int) throws -> [String: FirestoreValue] {
        guard case .object(let members) = node.kind else {
            throw error(
                .restShape, pointer, "fields must be an object of Values, found \(node.typeName)", at: node.offset)
        }
        var out: [String: FirestoreValue] = Dictionary(minimumCapacity: members.count)
        for m in members {
            let p = JSONPointer.appending(pointer, m.key)
            if let (rule, message) = FirestoreLimits.fieldNameViolation(m.key) {
                throw error(rule, p, message, at: m.keyOffset)
            }
            out[m.key] = try value(m.value, pointer: p, depth: depth + 1, inArray: false)
        }
        return out
    }

    static let kinds: Set<String> = [
        "nullValue", "booleanValue", "integerValue", "doubleValue", "timestampValue", "stringValue", "bytesValue",
        "referenceValue", "geoPointValue", "arrayValue", "mapValue",
    ]

    mutating func value(_ node: JSONNode, pointer: String, depth: Int, inArray: Bool) throws -> FirestoreValue {
        if depth > FirestoreLimits.maximumDepth {
            throw error(.depth, pointer, "nested deeper than Firestore's 20 levels", at: node.offset)
        }
        guard case .object(let members) = node.kind, members.count == 1, let m = members.first,
            Self.kinds.contains(m.key)
        else {
            throw error(
                .restShape, pointer,
                "a Value is an object with exactly one of \(Self.kinds.sorted().joined(separator: ", "))",
                at: node.offset)
        }
        let v = m.value
        let p = JSONPointer.appending(pointer, m.key)
        func wrong(_ expected: String, _ rule: InputRule = .restShape) -> SchemaInputError {
            error(rule, p, "\(m.key) expects \(expected), found \(v.typeName)", at: v.offset)
        }
        switch m.key {
        case "nullValue":
            switch v.kind {
            case .null, .string("NULL_VALUE"): return .null
            default: throw wrong("null or \"NULL_VALUE\"")
            }
        case "booleanValue":
            guard case .bool(let b) = v.kind else { throw wrong("true or false") }
            return .boolean(b)
        case "integerValue":
            switch v.kind {
            case .integer(let i): return .integer(i)
            case .string(let s):
                guard Self.isDecimalInteger(s), let i = Int64(s) else {
                    throw error(.restInteger, p, "\"\(s)\" is not a decimal int64", at: v.offset)
                }
                return .integer(i)
            default: throw wrong("a decimal int64 string", .restInteger)
            }
        case "doubleValue":
            switch v.kind {
            case .integer(let i): return .double(Double(i))
            case .bigInteger(let text): return .double(Double(text) ?? .nan)
            case .double(let d):
                guard d.isFinite else {
                    throw error(.jsonDoubleRange, p, "number too large for a double", at: v.offset)
                }
                return .double(d)
            case .string("NaN"): return .double(.nan)
            case .string("Infinity"): return .double(.infinity)
            case .string("-Infinity"): return .double(-.infinity)
            default: throw wrong("a number, \"NaN\", \"Infinity\" or \"-Infinity\"", .restDouble)
            }
        case "timestampValue":
            return .timestamp(try timestamp(v, pointer: p))
        case "stringValue":
            guard case .string(let s) = v.kind else { throw wrong("a string") }
            return .string(s)
        case "bytesValue":
            guard case .string(let s) = v.kind else { throw wrong("a base64 string", .base64) }
            guard let d = CanonicalBase64.decode(s) else {
                throw error(.base64, p, "not standard, padded, canonical base64", at: v.offset)
            }
            return .bytes(d)
        case "referenceValue":
            guard case .string(let s) = v.kind else { throw wrong("a document name string") }
            if let message = FirestoreLimits.referenceViolation(s) {
                throw error(.referenceFormat, p, message, at: v.offset)
            }
            return .reference(s)
        case "geoPointValue":
            guard case .object(let coords) = v.kind else { throw wrong("{latitude, longitude}") }
            var lat = 0.0
            var lng = 0.0
            for c in coords {
                let d: Double
                switch c.value.kind {
                case .integer(let i): d = Double(i)
                case .double(let x) where x.isFinite: d = x
                default:
                    throw error(.restShape, JSONPointer.appending(p, c.key), "expects a number", at: c.value.offset)
                }
                switch c.key {
                case "latitude": lat = d
                case "longitude": lng = d
                default:
                    throw error(.restShape, JSONPointer.appending(p, c.key), "unknown LatLng member", at: c.keyOffset)
                }
            }
            let g = GeoPoint(latitude: lat, longitude: lng)
            if let message = g.rangeViolation { throw error(.geoPointRange, p, message, at: v.offset) }
            return .geoPoint(g)
        case "arrayValue":
            if inArray { throw error(.arrayInArray, pointer, "an array directly inside an array", at: node.offset) }
            guard case .object(let am) = v.kind, am.count <= 1, am.allSatisfy({ $0.key == "values" }) else {
                throw wrong("{\"values\": [Value…]}")
            }
            guard let values = am.first?.value else { return .array([]) }
            guard case .array(let elements) = values.kind else {
                throw error(
                    .restShape, JSONPointer.appending(p, "values"), "values must be an array", at: values.offset)
            }
            var out: [FirestoreValue] = []
            out.reserveCapacity(elements.count)
            for (i, e) in elements.enumerated() {
                out.append(
                    try value(
                        e, pointer: JSONPointer.appending(JSONPointer.appending(p, "values"), i), depth: depth + 1,
                        inArray: true))
            }
            return .array(out)
        default:  // mapValue
            guard case .object(let mm) = v.kind, mm.count <= 1, mm.allSatisfy({ $0.key == "fields" }) else {
                throw wrong("{\"fields\": {name: Value}}")
            }
            guard let f = mm.first?.value else { return .map([:]) }
            return .map(try fields(f, pointer: JSONPointer.appending(p, "fields"), depth: depth))
        }
    }

    /// `-?(0|[1-9][0-9]*)`.
    static func isDecimalInteger(_ s: String) -> Bool {
        var u = Substring(s).utf8[...]
        if u.first == 0x2D { u = u.dropFirst() }
        guard let first = u.first, u.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        return first != 0x30 || u.count == 1
    }
}

extension FirestoreRESTJSON {
    /// The JSON pointer into a REST `Document` of a field pointer into its fields
    /// (`/summary/optimizedDistance` → `/fields/summary/mapValue/fields/optimizedDistance`,
    /// `/turnpoints/0` → `/fields/turnpoints/arrayValue/values/0`), so messages about a REST file
    /// point into that file. Tokens past what `fields` holds are mapped as map fields.
    public static func documentPointer(forFieldPointer pointer: String, in fields: [String: FirestoreValue]) -> String {
        let tokens = pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard let first = tokens.first else { return "" }
        var out = JSONPointer.appending("/fields", unescape(first))
        var current = fields[unescape(first)]
        for raw in tokens.dropFirst() {
            let token = unescape(raw)
            switch current {
            case .array(let a)?:
                out = JSONPointer.appending(out + "/arrayValue/values", token)
                current = Int(token).flatMap { a.indices.contains($0) ? a[$0] : nil }
            case .map(let m)?:
                out = JSONPointer.appending(out + "/mapValue/fields", token)
                current = m[token]
            default:
                out = JSONPointer.appending(out + "/mapValue/fields", token)
                current = nil
            }
        }
        return out
    }

    static func unescape(_ token: String) -> String {
        token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }
}
