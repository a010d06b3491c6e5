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
/// The writer is canonical: `integerValue` a decimal string, `doubleValue` a number or
/// "NaN"/"Infinity"/"-Infinity", `timestampValue` RFC 3339 in UTC, `bytesValue` standard padded
/// base64, `nullValue` null. The reader accepts everything ProtoJSON accepts for these messages:
/// proto field names (`integer_value`, `map_value`), `null` members as unset, `"nullValue": 0` or
/// `"NULL_VALUE"`, integers as numbers (an exponent or `.0` allowed when integral and in range),
/// quoted doubles (`"36.4"`), URL-safe or unpadded base64; `timestampValue` with up to 9 fraction
/// digits and any offset, rounded down to microseconds as Firestore stores them; `mapValue.fields`
/// and `arrayValue.values` absent when empty; `geoPointValue` with absent coordinates read as 0.
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

/// Interprets JSON nodes as REST `Document` / `Value` the way ProtoJSON readers do, enforcing
/// Firestore's constraints.
///
/// ProtoJSON leniency (what Google's SDKs and other ProtoJSON writers produce): a member may use its
/// proto field name (`integer_value`, `map_value`, `create_time`) instead of its JSON name; a
/// member whose value is `null` is unset (`nullValue` excepted, where `null` is the value);
/// `nullValue` is `null`, `0` or `"NULL_VALUE"`; `integerValue` is a string or a number, either
/// in JSON number syntax and exponent or fraction allowed when the value is an integral int64
/// (`"1e3"`, `2.0`); `doubleValue` is a number or a string in JSON number syntax or
/// `"NaN"`/`"Infinity"`/`"-Infinity"`; `bytesValue` is standard or URL-safe base64, padded or not.
/// Setting one member twice (under both names) or two kinds of one `Value` is an error.
/// Internal (not private) for the write readers in `Writes/`.
struct RESTReader {
    let source: JSONSourceText

    func error(_ rule: InputRule, _ pointer: String, _ message: String, at offset: Int) -> SchemaInputError {
        source.locate(SchemaInputError(rule: rule, pointer: pointer, message: message), at: offset)
    }

    /// A message member after ProtoJSON name normalization: its JSON name, pointer and member.
    struct Member {
        var name: String
        var pointer: String
        var member: JSONMember
        var value: JSONNode { member.value }
    }

    /// The JSON name of a proto field name (`integer_value` → `integerValue`); other keys unchanged.
    static func jsonName(_ key: String) -> String {
        guard key.utf8.contains(0x5F),
            key.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F })
        else { return key }
        var out = ""
        var upper = false
        for c in key {
            if c == "_" {
                upper = true
            } else {
                out.append(upper ? Character(c.uppercased()) : c)
                upper = false
            }
        }
        return out
    }

    /// The members of a proto message object: names normalized, `null` members dropped (unset)
    /// except those in `nullIsValue`, a member set twice rejected.
    /// - Throws: `rest.shape` when `node` is not an object or names a member twice.
    func members(_ node: JSONNode, pointer: String, what: String, nullIsValue: Set<String> = []) throws
        -> [Member]
    {
        guard case .object(let raw) = node.kind else {
            throw error(.restShape, pointer, "\(what) is a JSON object, found \(node.typeName)", at: node.offset)
        }
        var out: [Member] = []
        for m in raw {
            let name = Self.jsonName(m.key)
            if case .null = m.value.kind, !nullIsValue.contains(name) { continue }
            let p = JSONPointer.appending(pointer, m.key)
            if let earlier = out.first(where: { $0.name == name }) {
                throw error(
                    .restShape, p, "\(what) sets \(name) twice (as \"\(earlier.member.key)\" and \"\(m.key)\")",
                    at: m.keyOffset)
            }
            out.append(Member(name: name, pointer: p, member: m))
        }
        return out
    }

    func unknownMember(_ m: Member, in what: String, known: String) -> SchemaInputError {
        error(.restShape, m.pointer, "unknown \(what) member \"\(m.member.key)\" (\(known))", at: m.member.keyOffset)
    }

    func string(_ m: Member, _ what: String) throws -> String {
        guard case .string(let s) = m.value.kind else {
            throw error(
                .restShape, m.pointer, "\(what) must be a string, found \(m.value.typeName)", at: m.value.offset)
        }
        return s
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

    mutating func document(_ node: JSONNode, pointer: String = "") throws -> FirestoreRESTDocument {
        var doc = FirestoreRESTDocument(fields: [:])
        for m in try members(node, pointer: pointer, what: "a Document") {
            switch m.name {
            case "name":
                let s = try string(m, "name")
                // Proto3's default, written by printers that include default values (the Python
                // SDK's Document.to_json() of a document without a name): unset.
                if s.isEmpty { continue }
                if let message = FirestoreLimits.referenceViolation(s) {
                    throw error(.referenceFormat, m.pointer, message, at: m.value.offset)
                }
                doc.name = s
            case "fields":
                doc.fields = try fields(m.value, pointer: m.pointer, depth: 0)
            case "createTime": doc.createTime = try timestamp(m.value, pointer: m.pointer)
            case "updateTime": doc.updateTime = try timestamp(m.value, pointer: m.pointer)
            default: throw unknownMember(m, in: "Document", known: "name, fields, createTime, updateTime")
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
        if depth > FirestoreLimits.maximumDepth + 1 {
            throw error(.depth, pointer, "nested deeper than Firestore's 20 levels", at: node.offset)
        }
        let ms = try members(node, pointer: pointer, what: "a Value", nullIsValue: ["nullValue"])
        guard ms.count == 1, let m = ms.first, Self.kinds.contains(m.name) else {
            throw error(
                .restShape, pointer,
                "a Value is an object with exactly one of \(Self.kinds.sorted().joined(separator: ", "))",
                at: node.offset)
        }
        let v = m.value
        let p = m.pointer
        func wrong(_ expected: String, _ rule: InputRule = .restShape) -> SchemaInputError {
            error(rule, p, "\(m.member.key) expects \(expected), found \(v.typeName)", at: v.offset)
        }
        switch m.name {
        case "nullValue":
            switch v.kind {
            case .null, .string("NULL_VALUE"), .integer(0): return .null
            default: throw wrong("null, 0 or \"NULL_VALUE\"")
            }
        case "booleanValue":
            guard case .bool(let b) = v.kind else { throw wrong("true or false") }
            return .boolean(b)
        case "integerValue":
            return .integer(try integer(v, pointer: p))
        case "doubleValue":
            return .double(try double(v, pointer: p))
        case "timestampValue":
            return .timestamp(try timestamp(v, pointer: p))
        case "stringValue":
            guard case .string(let s) = v.kind else { throw wrong("a string") }
            return .string(s)
        case "bytesValue":
            guard case .string(let s) = v.kind else { throw wrong("a base64 string", .base64) }
            guard let d = ProtoJSONBase64.decode(s) else {
                throw error(
                    .base64, p, "not base64 (standard or URL-safe, padded or not, zero trailing bits)", at: v.offset)
            }
            return .bytes(d)
        case "referenceValue":
            guard case .string(let s) = v.kind else { throw wrong("a document name string") }
            if let message = FirestoreLimits.referenceViolation(s) {
                throw error(.referenceFormat, p, message, at: v.offset)
            }
            return .reference(s)
        case "geoPointValue":
            var lat = 0.0
            var lng = 0.0
            for c in try members(v, pointer: p, what: "a LatLng") {
                let d = try double(c.value, pointer: c.pointer)
                guard d.isFinite else {
                    throw error(.geoPointRange, c.pointer, "a coordinate must be finite", at: c.value.offset)
                }
                switch c.name {
                case "latitude": lat = d
                case "longitude": lng = d
                default: throw unknownMember(c, in: "LatLng", known: "latitude, longitude")
                }
            }
            let g = GeoPoint(latitude: lat, longitude: lng)
            if let message = g.rangeViolation { throw error(.geoPointRange, p, message, at: v.offset) }
            return .geoPoint(g)
        case "arrayValue":
            if inArray { throw error(.arrayInArray, pointer, "an array directly inside an array", at: node.offset) }
            var out: [FirestoreValue] = []
            for am in try members(v, pointer: p, what: "an ArrayValue") {
                guard am.name == "values" else { throw unknownMember(am, in: "ArrayValue", known: "values") }
                guard case .array(let elements) = am.value.kind else {
                    throw error(.restShape, am.pointer, "values must be an array", at: am.value.offset)
                }
                out.reserveCapacity(elements.count)
                for (i, e) in elements.enumerated() {
                    out.append(
                        try value(e, pointer: JSONPointer.appending(am.pointer, i), depth: depth + 1, inArray: true))
                }
            }
            return .array(out)
        default:  // mapValue
            if FirestoreLimits.isTooDeep(depth: depth, isMap: true) {
                throw error(.depth, pointer, "a map nested deeper than Firestore's 20 levels", at: node.offset)
            }
            var out: [String: FirestoreValue] = [:]
            for mm in try members(v, pointer: p, what: "a MapValue") {
                guard mm.name == "fields" else { throw unknownMember(mm, in: "MapValue", known: "fields") }
                out = try fields(mm.value, pointer: mm.pointer, depth: depth)
            }
            return .map(out)
        }
    }

    /// An int64 in ProtoJSON: a number or a string, JSON number syntax, integral and in range.
    func integer(_ v: JSONNode, pointer: String) throws -> Int64 {
        let text: String
        switch v.kind {
        case .integer(let i): return i
        case .bigInteger(let t): text = t
        case .double(let d): text = numberText(v) ?? String(d)
        case .string(let s): text = s
        default:
            throw error(
                .restInteger, pointer, "integerValue expects a decimal int64 string or number, found \(v.typeName)",
                at: v.offset)
        }
        guard let i = ProtoJSONNumber.exactInt64(text) else {
            throw error(
                .restInteger, pointer, "\"\(text.prefix(60))\" is not an integral number within int64", at: v.offset)
        }
        return i
    }

    /// A double in ProtoJSON: a number, or a string holding a number or NaN/Infinity/-Infinity.
    func double(_ v: JSONNode, pointer: String) throws -> Double {
        switch v.kind {
        case .integer(let i): return Double(i)
        case .bigInteger(let t):
            guard let d = Double(t), d.isFinite else {
                throw error(.jsonDoubleRange, pointer, "number too large for a double", at: v.offset)
            }
            return d
        case .double(let d):
            guard d.isFinite else {
                throw error(.jsonDoubleRange, pointer, "number too large for a double", at: v.offset)
            }
            return d
        case .string("NaN"): return .nan
        case .string("Infinity"): return .infinity
        case .string("-Infinity"): return -.infinity
        case .string(let s):
            guard ProtoJSONNumber.isJSONNumber(s), let d = Double(s) else {
                throw error(
                    .restDouble, pointer, "\"\(s.prefix(60))\" is neither a number nor NaN, Infinity or -Infinity",
                    at: v.offset)
            }
            guard d.isFinite else {
                throw error(.restDouble, pointer, "\"\(s)\" is too large for a double", at: v.offset)
            }
            return d
        default:
            throw error(
                .restDouble, pointer,
                "doubleValue expects a number, \"NaN\", \"Infinity\" or \"-Infinity\", "
                    + "found \(v.typeName)", at: v.offset)
        }
    }

    /// The source text of a number node, when the node came from text.
    func numberText(_ node: JSONNode) -> String? {
        guard node.offset >= 0, node.offset < source.bytes.count else { return nil }
        var end = node.offset
        while end < source.bytes.count {
            switch source.bytes[end] {
            case 0x30...0x39, 0x2B, 0x2D, 0x2E, 0x45, 0x65: end += 1
            default: return String(decoding: source.bytes[node.offset..<end], as: UTF8.self)
            }
        }
        return String(decoding: source.bytes[node.offset..<end], as: UTF8.self)
    }
}

/// Numbers as ProtoJSON reads them.
enum ProtoJSONNumber {
    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    static func isJSONNumber(_ s: String) -> Bool {
        let b = Array(s.utf8)
        var i = 0
        func digits() -> Int {
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
            return i - start
        }
        if i < b.count, b[i] == 0x2D { i += 1 }
        guard i < b.count else { return false }
        if b[i] == 0x30 {
            i += 1
        } else if digits() == 0 {
            return false
        }
        if i < b.count, b[i] == 0x2E {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < b.count, b[i] == 0x65 || b[i] == 0x45 {
            i += 1
            if i < b.count, b[i] == 0x2B || b[i] == 0x2D { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == b.count
    }

    /// The exact int64 a JSON-number text stands for, or nil when it is malformed, not integral or
    /// outside int64 (`"1e3"` → 1000, `"2.50e1"` → 25, `"1.5"` → nil, `"9223372036854775808"` → nil).
    static func exactInt64(_ s: String) -> Int64? {
        guard isJSONNumber(s) else { return nil }
        let b = Array(s.utf8)
        var i = 0
        let negative = b.first == 0x2D
        if negative { i += 1 }
        var digits: [UInt8] = []
        var fractionDigits = 0
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
            digits.append(b[i] - 0x30)
            i += 1
        }
        if i < b.count, b[i] == 0x2E {
            i += 1
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                digits.append(b[i] - 0x30)
                fractionDigits += 1
                i += 1
            }
        }
        var exponent = 0
        if i < b.count, b[i] == 0x65 || b[i] == 0x45 {
            i += 1
            var expNegative = false
            if b[i] == 0x2B || b[i] == 0x2D {
                expNegative = b[i] == 0x2D
                i += 1
            }
            while i < b.count {
                exponent = min(exponent * 10 + Int(b[i] - 0x30), 1_000_000)
                i += 1
            }
            if expNegative { exponent = -exponent }
        }
        exponent -= fractionDigits
        while let first = digits.first, first == 0 { digits.removeFirst() }
        if digits.isEmpty { return 0 }
        if exponent < 0 {
            let drop = -exponent
            guard drop <= digits.count, digits.suffix(drop).allSatisfy({ $0 == 0 }) else { return nil }
            digits.removeLast(drop)
            exponent = 0
        }
        guard digits.count + exponent <= 19 else { return nil }
        digits += [UInt8](repeating: 0, count: exponent)
        // Accumulate negatively so that Int64.min fits.
        var v: Int64 = 0
        for d in digits {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (r, o2) = m.subtractingReportingOverflow(Int64(d))
            if o1 || o2 { return nil }
            v = r
        }
        if negative { return v }
        return v == .min ? nil : -v
    }
}

/// Base64 as ProtoJSON reads `bytes`: the standard or the URL-safe alphabet (not mixed), padding
/// optional but correct when present, trailing bits zero (so one byte string has one text per
/// alphabet and padding).
enum ProtoJSONBase64 {
    static func decode(_ text: String) -> Data? {
        var s = Array(text.utf8)
        let urlSafe = s.contains(0x2D) || s.contains(0x5F)
        if urlSafe {
            if s.contains(0x2B) || s.contains(0x2F) { return nil }
            s = s.map { $0 == 0x2D ? 0x2B : $0 == 0x5F ? 0x2F : $0 }
        }
        if !s.contains(0x3D) {
            switch s.count % 4 {
            case 1: return nil
            case 2: s += [0x3D, 0x3D]
            case 3: s += [0x3D]
            default: break
            }
        }
        return CanonicalBase64.decode(String(decoding: s, as: UTF8.self))
    }
}

extension FirestoreRESTJSON {
    /// The JSON pointer into a REST `Document` of a field pointer into its fields
    /// (`/summary/optimizedDistance` → `/fields/summary/mapValue/fields/optimizedDistance`,
    /// `/turnpoints/0` → `/fields/turnpoints/arrayValue/values/0`), so messages about a REST file
    /// point into that file. Tokens past what `fields` holds are mapped as map fields.
    public static func documentPointer(forFieldPointer pointer: String, in fields: [String: FirestoreValue]) -> String {
        let tokens = FirestoreLimits.slashSegments(pointer).dropFirst().map(String.init)
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
