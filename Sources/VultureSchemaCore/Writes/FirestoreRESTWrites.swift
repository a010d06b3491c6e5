import Foundation

/// A Firestore REST `CommitRequest`: writes applied atomically, optionally inside a transaction.
///
/// Shape: `{"database": "projects/{p}/databases/{d}", "writes": [Write…], "transaction": base64}`.
public struct FirestoreCommitRequest: Sendable, Hashable {
    /// `projects/{project}/databases/{database}`.
    public var database: String
    /// The writes, in order.
    public var writes: [FirestoreWrite]
    /// The transaction id, when the commit ends a transaction.
    public var transaction: Data?

    /// A commit request.
    public init(database: String, writes: [FirestoreWrite], transaction: Data? = nil) {
        self.database = database
        self.writes = writes
        self.transaction = transaction
    }
}

/// A Firestore REST `BatchWriteRequest`: writes applied one by one, not atomically.
///
/// Shape: `{"database": "projects/{p}/databases/{d}", "writes": [Write…], "labels": {k: v}}`.
public struct FirestoreBatchWriteRequest: Sendable, Hashable {
    /// `projects/{project}/databases/{database}`.
    public var database: String
    /// The writes.
    public var writes: [FirestoreWrite]
    /// Labels attached to the batch write.
    public var labels: [String: String]

    /// A batch write request.
    public init(database: String, writes: [FirestoreWrite], labels: [String: String] = [:]) {
        self.database = database
        self.writes = writes
        self.labels = labels
    }
}

/// A REST write message of any of the three shapes, as ``FirestoreRESTJSON/decodeWriteMessage(_:file:)``
/// detects it.
public enum FirestoreRESTWriteMessage: Sendable, Hashable {
    /// One `Write`, and the database its document name is in.
    case write(FirestoreWrite, database: String)
    /// A `CommitRequest`.
    case commitRequest(FirestoreCommitRequest)
    /// A `BatchWriteRequest`.
    case batchWriteRequest(FirestoreBatchWriteRequest)
}

/// Firestore REST JSON for writes (README, "Writes"): `Write` (`update` Document + `updateMask` +
/// `updateTransforms` + `currentDocument`, or `delete`), `CommitRequest` and `BatchWriteRequest`,
/// read as ProtoJSON readers do and written canonically.
///
/// Reading maps the REST message onto ``FirestoreWrite``: the transforms go inline as sentinels at
/// their paths, and a transform path no `updateMask` path covers joins the mask. An empty map that
/// the mask does not cover but a transform lies beneath (`{"a": {}}` with a transform of `a.t`, as
/// the SDKs send a merge) is dropped, since Firestore ignores it; any other value the mask does not
/// cover is an error (`write.mask`). A `transform` operation (the older form) is read as an update
/// with an empty mask. A transform on a path the update also sets, or two on one path, cannot be
/// held inline and is an error (`write.transform`), as are `maximum`, `minimum` and the array
/// transforms, which the schema does not use.
///
/// Writing puts every transform in `updateTransforms` (in field path order) and leaves the
/// transforms' own paths out of `updateMask`, as the SDKs do.
extension FirestoreRESTJSON {
    // MARK: Names

    /// The full name of a document: `{database}/documents/{path}`.
    public static func documentName(database: String, path: String) -> String {
        database + "/documents/" + path
    }

    /// The database (`projects/{p}/databases/{d}`) and relative path of a full document name, or nil
    /// when the name is not `projects/{p}/databases/{d}/documents/{collection}/{id}…`.
    public static func splitDocumentName(_ name: String) -> (database: String, path: String)? {
        guard FirestoreLimits.referenceViolation(name) == nil else { return nil }
        let parts = FirestoreLimits.slashSegments(name)
        return (parts[0..<4].joined(separator: "/"), parts[5...].joined(separator: "/"))
    }

    // MARK: Node-level readers

    /// Reads a REST `Document` from a parsed node (for instance one element of a `runQuery` answer).
    /// `pointer` is the node's pointer in its text, prefixed to error pointers; line:column are
    /// given when `sourceBytes` is.
    /// - Throws: `SchemaInputError` as ``decodeDocument(_:file:)-([UInt8],_)`` does.
    public static func decodeDocument(
        node: JSONNode, sourceBytes: [UInt8]? = nil, file: String? = nil, pointer: String = ""
    ) throws -> FirestoreRESTDocument {
        var reader = RESTReader(source: JSONSourceText(bytes: sourceBytes ?? [], file: file))
        return try reader.document(node, pointer: pointer)
    }

    /// Reads one REST `Value` from a parsed node. See ``decodeDocument(node:sourceBytes:file:pointer:)``.
    public static func decodeValue(
        node: JSONNode, sourceBytes: [UInt8]? = nil, file: String? = nil, pointer: String = ""
    ) throws -> FirestoreValue {
        var reader = RESTReader(source: JSONSourceText(bytes: sourceBytes ?? [], file: file))
        return try reader.value(node, pointer: pointer, depth: 1, inArray: false)
    }

    /// Reads a REST timestamp string node (RFC 3339, up to 9 fraction digits, rounded down to µs).
    public static func decodeTimestamp(
        node: JSONNode, sourceBytes: [UInt8]? = nil, file: String? = nil, pointer: String = ""
    ) throws -> FirestoreTimestamp {
        let reader = RESTReader(source: JSONSourceText(bytes: sourceBytes ?? [], file: file))
        return try reader.timestamp(node, pointer: pointer)
    }

    // MARK: Write messages

    /// Reads one REST `Write`.
    /// - Returns: the write (its path relative to the database root) and the database it names.
    /// - Throws: `SchemaInputError` with file, line:column, pointer and rule: `rest.*`, `value.*`
    ///   and `json.*` as for documents, `write.shape`, `write.field-path`, `write.mask`,
    ///   `write.transform` as listed on this extension.
    public static func decodeWrite(_ bytes: [UInt8], file: String? = nil) throws -> (
        write: FirestoreWrite, database: String
    ) {
        let node = try StrictJSONReader.parse(bytes, file: file)
        var reader = WriteReader(rest: RESTReader(source: JSONSourceText(bytes: bytes, file: file)))
        return try reader.write(node, pointer: "")
    }

    /// Reads a REST `CommitRequest`; its `database` is the member or, when absent, the writes'.
    /// - Throws: `SchemaInputError` as ``decodeWrite(_:file:)`` does; `write.shape` when writes name
    ///   two databases or the database is unknown.
    public static func decodeCommitRequest(_ bytes: [UInt8], file: String? = nil) throws -> FirestoreCommitRequest {
        let node = try StrictJSONReader.parse(bytes, file: file)
        var reader = WriteReader(rest: RESTReader(source: JSONSourceText(bytes: bytes, file: file)))
        return try reader.commitRequest(node)
    }

    /// Reads a REST `BatchWriteRequest`. See ``decodeCommitRequest(_:file:)``.
    public static func decodeBatchWriteRequest(_ bytes: [UInt8], file: String? = nil) throws
        -> FirestoreBatchWriteRequest
    {
        let node = try StrictJSONReader.parse(bytes, file: file)
        var reader = WriteReader(rest: RESTReader(source: JSONSourceText(bytes: bytes, file: file)))
        return try reader.batchWriteRequest(node)
    }

    /// Reads a `Write`, `CommitRequest` or `BatchWriteRequest`, detected by shape: an object with
    /// `update`, `delete` or `transform` is a Write; one with `labels` a BatchWriteRequest; one with
    /// `writes` (and no `labels`) a CommitRequest — the two requests have the same members otherwise.
    /// - Throws: `SchemaInputError` as the single readers do; `write.shape` for none of the shapes.
    public static func decodeWriteMessage(_ bytes: [UInt8], file: String? = nil) throws -> FirestoreRESTWriteMessage {
        let node = try StrictJSONReader.parse(bytes, file: file)
        var reader = WriteReader(rest: RESTReader(source: JSONSourceText(bytes: bytes, file: file)))
        let names = Set((try reader.rest.members(node, pointer: "", what: "a write message")).map(\.name))
        if !names.isDisjoint(with: ["update", "delete", "transform"]) {
            let (w, database) = try reader.write(node, pointer: "")
            return .write(w, database: database)
        }
        if names.contains("labels") { return .batchWriteRequest(try reader.batchWriteRequest(node)) }
        if names.contains("writes") { return .commitRequest(try reader.commitRequest(node)) }
        throw reader.rest.error(
            .writeShape, "",
            "neither a Write (update, delete, transform) nor a CommitRequest or BatchWriteRequest "
                + "(writes)", at: node.offset)
    }

    /// The REST `Write` node of a write.
    /// - Parameters:
    ///   - write: the write, with its document path.
    ///   - database: `projects/{p}/databases/{d}`, the database the write's path is in.
    /// - Throws: `SchemaInputError` (`write.shape`) when the write has no path.
    public static func writeNode(_ write: FirestoreWrite, database: String) throws -> JSONNode {
        guard let path = write.path else {
            throw SchemaInputError(rule: .writeShape, pointer: "", message: "a REST Write needs the document's path")
        }
        let name = JSONNode(.string(documentName(database: database, path: path)))
        var members: [JSONMember] = []
        switch write.operation {
        case .delete:
            members.append(JSONMember(key: "delete", value: name))
        case .update:
            let fields = try fieldsNode(write.restUpdateFields, pointer: "/update/fields")
            members.append(
                JSONMember(
                    key: "update",
                    value: JSONNode(
                        .object([JSONMember(key: "name", value: name), JSONMember(key: "fields", value: fields)]))))
            if let mask = write.updateMask {
                let paths = JSONNode(.array(mask.map { JSONNode(.string($0.description)) }))
                members.append(
                    JSONMember(
                        key: "updateMask", value: JSONNode(.object([JSONMember(key: "fieldPaths", value: paths)]))))
            }
            let transforms = write.transforms
            if !transforms.isEmpty {
                var nodes: [JSONNode] = []
                for t in transforms {
                    var tm = [JSONMember(key: "fieldPath", value: JSONNode(.string(t.path.description)))]
                    switch t.kind {
                    case .serverTimestamp:
                        tm.append(JSONMember(key: "setToServerValue", value: JSONNode(.string("REQUEST_TIME"))))
                    case .increment(.integer(let i)):
                        tm.append(JSONMember(key: "increment", value: try node(.integer(i))))
                    case .increment(.double(let d)):
                        tm.append(JSONMember(key: "increment", value: try node(.double(d))))
                    }
                    nodes.append(JSONNode(.object(tm)))
                }
                members.append(JSONMember(key: "updateTransforms", value: JSONNode(.array(nodes))))
            }
        }
        switch write.precondition {
        case nil: break
        case .exists(let b)?:
            members.append(
                JSONMember(
                    key: "currentDocument",
                    value: JSONNode(.object([JSONMember(key: "exists", value: JSONNode(.bool(b)))]))))
        case .updateTime(let t)?:
            members.append(
                JSONMember(
                    key: "currentDocument",
                    value: JSONNode(.object([JSONMember(key: "updateTime", value: JSONNode(.string(t.rfc3339)))]))))
        }
        return JSONNode(.object(members))
    }

    /// The canonical bytes of a REST `Write`. See ``writeNode(_:database:)``.
    public static func encodeWrite(_ write: FirestoreWrite, database: String) throws -> [UInt8] {
        CanonicalJSONWriter.write(try writeNode(write, database: database))
    }

    /// The REST `CommitRequest` node of a request.
    /// - Throws: `SchemaInputError` (`write.shape`, pointer `/writes/{i}`) for a write without a path.
    public static func commitRequestNode(_ request: FirestoreCommitRequest) throws -> JSONNode {
        var members = [
            JSONMember(key: "database", value: JSONNode(.string(request.database))),
            JSONMember(key: "writes", value: JSONNode(.array(try writeNodes(request.writes, request.database)))),
        ]
        if let t = request.transaction {
            members.append(JSONMember(key: "transaction", value: JSONNode(.string(t.base64EncodedString()))))
        }
        return JSONNode(.object(members))
    }

    /// The canonical bytes of a REST `CommitRequest`. See ``commitRequestNode(_:)``.
    public static func encodeCommitRequest(_ request: FirestoreCommitRequest) throws -> [UInt8] {
        CanonicalJSONWriter.write(try commitRequestNode(request))
    }

    /// The canonical bytes of a REST `BatchWriteRequest` (`labels` only when there are any).
    /// - Throws: `SchemaInputError` (`write.shape`, pointer `/writes/{i}`) for a write without a path.
    public static func encodeBatchWriteRequest(_ request: FirestoreBatchWriteRequest) throws -> [UInt8] {
        var members = [
            JSONMember(key: "database", value: JSONNode(.string(request.database))),
            JSONMember(key: "writes", value: JSONNode(.array(try writeNodes(request.writes, request.database)))),
        ]
        if !request.labels.isEmpty {
            let labels = request.labels.map { JSONMember(key: $0.key, value: JSONNode(.string($0.value))) }
            members.append(JSONMember(key: "labels", value: JSONNode(.object(labels))))
        }
        return CanonicalJSONWriter.write(JSONNode(.object(members)))
    }

    static func writeNodes(_ writes: [FirestoreWrite], _ database: String) throws -> [JSONNode] {
        var out: [JSONNode] = []
        for (i, w) in writes.enumerated() {
            do {
                out.append(try writeNode(w, database: database))
            } catch var e as SchemaInputError {
                e.pointer = JSONPointer.appending("/writes", i) + e.pointer
                throw e
            }
        }
        return out
    }
}

extension FirestoreWrite {
    /// The `update` document's fields as the REST writer sends them: without sentinels, and for a
    /// write with a mask only the values at mask paths (nothing Firestore would ignore).
    var restUpdateFields: [String: FirestoreValue] {
        guard let mask else { return updateFields }
        let stripped = FirestoreValue.map(updateFields)
        var out: [String: FirestoreValue] = [:]
        for p in updateMask ?? mask {
            if let v = stripped[path: p] { try? Self.insert(v, at: p, into: &out, pointer: "") }
        }
        return out
    }
}

/// Reads REST write messages into ``FirestoreWrite``s (see ``FirestoreRESTJSON``'s write extension).
private struct WriteReader {
    var rest: RESTReader

    func fail(_ rule: InputRule, _ pointer: String, _ message: String, at offset: Int) -> SchemaInputError {
        rest.error(rule, pointer, message, at: offset)
    }

    func database(ofName name: String, pointer: String, at offset: Int) throws -> (database: String, path: String) {
        guard let split = FirestoreRESTJSON.splitDocumentName(name) else {
            throw fail(
                .referenceFormat, pointer,
                "\"\(name)\" is not projects/{project}/databases/{database}/documents/{collection}/{id}…", at: offset)
        }
        if let message = FirestoreLimits.documentPathViolation(split.path) {
            throw fail(.referenceFormat, pointer, message, at: offset)
        }
        return split
    }

    mutating func commitRequest(_ node: JSONNode) throws -> FirestoreCommitRequest {
        var database: String?
        var writes: [FirestoreWrite] = []
        var writesDatabase: (String, String, Int)?
        var transaction: Data?
        for m in try rest.members(node, pointer: "", what: "a CommitRequest") {
            switch m.name {
            case "database": database = try rest.string(m, "database")
            case "writes": (writes, writesDatabase) = try self.writes(m)
            case "transaction":
                guard case .string(let s) = m.value.kind, let d = ProtoJSONBase64.decode(s) else {
                    throw fail(.base64, m.pointer, "transaction must be base64", at: m.value.offset)
                }
                transaction = d
            default: throw rest.unknownMember(m, in: "CommitRequest", known: "database, writes, transaction")
            }
        }
        let named = try agree(database, writesDatabase, what: "CommitRequest", at: node.offset)
        return FirestoreCommitRequest(database: named, writes: writes, transaction: transaction)
    }

    mutating func batchWriteRequest(_ node: JSONNode) throws -> FirestoreBatchWriteRequest {
        var database: String?
        var writes: [FirestoreWrite] = []
        var writesDatabase: (String, String, Int)?
        var labels: [String: String] = [:]
        for m in try rest.members(node, pointer: "", what: "a BatchWriteRequest") {
            switch m.name {
            case "database": database = try rest.string(m, "database")
            case "writes": (writes, writesDatabase) = try self.writes(m)
            case "labels":
                guard case .object(let lm) = m.value.kind else {
                    throw fail(.restShape, m.pointer, "labels must be an object of strings", at: m.value.offset)
                }
                for l in lm {
                    guard case .string(let s) = l.value.kind else {
                        throw fail(
                            .restShape, JSONPointer.appending(m.pointer, l.key), "a label is a string",
                            at: l.value.offset)
                    }
                    labels[l.key] = s
                }
            default: throw rest.unknownMember(m, in: "BatchWriteRequest", known: "database, writes, labels")
            }
        }
        let named = try agree(database, writesDatabase, what: "BatchWriteRequest", at: node.offset)
        return FirestoreBatchWriteRequest(database: named, writes: writes, labels: labels)
    }

    /// The request's database: its `database` member, which every write must be in, or else the
    /// writes' database.
    func agree(_ member: String?, _ writes: (String, String, Int)?, what: String, at offset: Int) throws -> String {
        if let member, let (db, pointer, writeOffset) = writes, db != member {
            throw fail(
                .writeShape, pointer, "the write is in database \(db), the request in \(member)", at: writeOffset)
        }
        guard let database = member ?? writes?.0 else {
            throw fail(.writeShape, "", "a \(what) names its database or holds a write", at: offset)
        }
        return database
    }

    /// The writes of a request, which must all be in one database, and that database with the
    /// pointer and offset of the first write that names it.
    mutating func writes(_ m: RESTReader.Member) throws -> ([FirestoreWrite], (String, String, Int)?) {
        guard case .array(let elements) = m.value.kind else {
            throw fail(.restShape, m.pointer, "writes must be an array of Write", at: m.value.offset)
        }
        var out: [FirestoreWrite] = []
        var database: (String, String, Int)?
        for (i, e) in elements.enumerated() {
            let p = JSONPointer.appending(m.pointer, i)
            let (w, db) = try write(e, pointer: p)
            if let (first, _, _) = database, first != db {
                throw fail(.writeShape, p, "the write is in database \(db), the one before in \(first)", at: e.offset)
            }
            if database == nil { database = (db, p, e.offset) }
            out.append(w)
        }
        return (out, database)
    }

    mutating func write(_ node: JSONNode, pointer: String) throws -> (write: FirestoreWrite, database: String) {
        var operation: RESTReader.Member?
        var update: FirestoreRESTDocument?
        var name: (database: String, path: String)?
        var mask: [FieldPath]?
        var transforms: [(FirestoreFieldTransform, String, Int)] = []
        var precondition: FirestorePrecondition?
        for m in try rest.members(node, pointer: pointer, what: "a Write") {
            switch m.name {
            case "update", "delete", "transform":
                if let earlier = operation {
                    throw fail(
                        .writeShape, m.pointer, "a Write has one of update, delete, transform (also \(earlier.name))",
                        at: m.member.keyOffset)
                }
                operation = m
                switch m.name {
                case "update":
                    let doc = try rest.document(m.value, pointer: m.pointer)
                    guard let n = doc.name else {
                        throw fail(.writeShape, m.pointer, "the update document needs its name", at: m.value.offset)
                    }
                    if doc.createTime != nil || doc.updateTime != nil {
                        throw fail(
                            .writeShape, m.pointer, "createTime and updateTime are set by the server, not in a write",
                            at: m.value.offset)
                    }
                    name = try database(
                        ofName: n, pointer: JSONPointer.appending(m.pointer, "name"), at: m.value.offset)
                    update = doc
                case "delete":
                    name = try database(ofName: try rest.string(m, "delete"), pointer: m.pointer, at: m.value.offset)
                default:
                    for tm in try rest.members(m.value, pointer: m.pointer, what: "a DocumentTransform") {
                        switch tm.name {
                        case "document":
                            name = try database(
                                ofName: try rest.string(tm, "document"), pointer: tm.pointer, at: tm.value.offset)
                        case "fieldTransforms":
                            transforms += try fieldTransforms(tm)
                        default:
                            throw rest.unknownMember(tm, in: "DocumentTransform", known: "document, fieldTransforms")
                        }
                    }
                }
            case "updateMask":
                var paths: [FieldPath] = []
                for mm in try rest.members(m.value, pointer: m.pointer, what: "a DocumentMask") {
                    guard mm.name == "fieldPaths" else {
                        throw rest.unknownMember(mm, in: "DocumentMask", known: "fieldPaths")
                    }
                    guard case .array(let elements) = mm.value.kind else {
                        throw fail(
                            .restShape, mm.pointer, "fieldPaths must be an array of strings", at: mm.value.offset)
                    }
                    for (i, e) in elements.enumerated() {
                        let ep = JSONPointer.appending(mm.pointer, i)
                        guard case .string(let s) = e.kind else {
                            throw fail(.restShape, ep, "a field path is a string", at: e.offset)
                        }
                        paths.append(try fieldPath(s, pointer: ep, at: e.offset))
                    }
                }
                mask = paths
            case "updateTransforms":
                transforms += try fieldTransforms(m)
            case "currentDocument":
                for pm in try rest.members(m.value, pointer: m.pointer, what: "a Precondition") {
                    if precondition != nil {
                        throw fail(
                            .writeShape, pm.pointer, "a Precondition has exists or updateTime, not both",
                            at: pm.member.keyOffset)
                    }
                    switch pm.name {
                    case "exists":
                        guard case .bool(let b) = pm.value.kind else {
                            throw fail(.restShape, pm.pointer, "exists must be true or false", at: pm.value.offset)
                        }
                        precondition = .exists(b)
                    case "updateTime":
                        precondition = .updateTime(try rest.timestamp(pm.value, pointer: pm.pointer))
                    default: throw rest.unknownMember(pm, in: "Precondition", known: "exists, updateTime")
                    }
                }
            default:
                throw rest.unknownMember(
                    m, in: "Write",
                    known: "update, delete, transform, updateMask, updateTransforms, currentDocument")
            }
        }
        guard let operation, let name else {
            throw fail(.writeShape, pointer, "a Write has one of update, delete, transform", at: node.offset)
        }
        if operation.name == "delete" {
            if mask != nil || !transforms.isEmpty {
                throw fail(
                    .writeShape, pointer, "a delete has no updateMask and no updateTransforms", at: node.offset)
            }
            return (.delete(path: name.path, precondition: precondition), name.database)
        }
        if operation.name == "transform" {
            if mask != nil {
                throw fail(.writeShape, pointer, "a transform write has no updateMask", at: node.offset)
            }
            mask = []
        }
        let w = try inline(
            update?.fields ?? [:], mask: mask, transforms: transforms, path: name.path, precondition: precondition,
            pointer: pointer, node: node)
        return (w, name.database)
    }

    func fieldPath(_ s: String, pointer: String, at offset: Int) throws -> FieldPath {
        do {
            return try FieldPath(parsing: s)
        } catch let e as SchemaInputError {
            throw fail(e.rule, pointer, e.message, at: offset)
        }
    }

    mutating func fieldTransforms(_ m: RESTReader.Member) throws -> [(FirestoreFieldTransform, String, Int)] {
        guard case .array(let elements) = m.value.kind else {
            throw fail(.restShape, m.pointer, "\(m.member.key) must be an array of FieldTransform", at: m.value.offset)
        }
        var out: [(FirestoreFieldTransform, String, Int)] = []
        for (i, e) in elements.enumerated() {
            let p = JSONPointer.appending(m.pointer, i)
            var path: FieldPath?
            var kind: FirestoreFieldTransform.Kind?
            for tm in try rest.members(e, pointer: p, what: "a FieldTransform") {
                switch tm.name {
                case "fieldPath":
                    path = try fieldPath(try rest.string(tm, "fieldPath"), pointer: tm.pointer, at: tm.value.offset)
                case "setToServerValue", "increment":
                    if kind != nil {
                        throw fail(
                            .writeShape, tm.pointer, "a FieldTransform has one transform", at: tm.member.keyOffset)
                    }
                    if tm.name == "setToServerValue" {
                        switch tm.value.kind {
                        case .string("REQUEST_TIME"), .integer(1): kind = .serverTimestamp
                        default:
                            throw fail(
                                .writeTransform, tm.pointer, "setToServerValue must be \"REQUEST_TIME\"",
                                at: tm.value.offset)
                        }
                    } else {
                        switch try rest.value(tm.value, pointer: tm.pointer, depth: 1, inArray: false) {
                        case .integer(let n): kind = .increment(.integer(n))
                        case .double(let d) where d.isFinite: kind = .increment(.double(d))
                        default:
                            throw fail(
                                .writeTransform, tm.pointer, "increment takes a finite integerValue or doubleValue",
                                at: tm.value.offset)
                        }
                    }
                case "maximum", "minimum", "appendMissingElements", "removeAllFromArray":
                    throw fail(
                        .writeTransform, tm.pointer,
                        "\(tm.name) is not modelled (the sync schema writes serverTimestamp and increment only)",
                        at: tm.member.keyOffset)
                default:
                    throw rest.unknownMember(tm, in: "FieldTransform", known: "fieldPath, setToServerValue, increment")
                }
            }
            guard let path, let kind else {
                throw fail(.writeShape, p, "a FieldTransform has a fieldPath and a transform", at: e.offset)
            }
            out.append((FirestoreFieldTransform(path: path, kind: kind), p, e.offset))
        }
        return out
    }

    /// The canonical write of a REST update: transforms inline, the mask extended by the transform
    /// paths it does not cover, uncovered empty maps above a transform dropped.
    func inline(
        _ update: [String: FirestoreValue], mask restMask: [FieldPath]?,
        transforms: [(FirestoreFieldTransform, String, Int)], path: String, precondition: FirestorePrecondition?,
        pointer: String, node: JSONNode
    ) throws -> FirestoreWrite {
        let offset = node.offset
        var fields = update
        var mask = restMask
        if let restMask {
            let transformPaths = transforms.map(\.0.path)
            do {
                fields = try covered(
                    update, prefix: [], mask: restMask, transformPaths: transformPaths,
                    pointer: JSONPointer.appending(pointer, "update") + "/fields")
            } catch let e as SchemaInputError where e.line == nil {
                // The decoded fields keep no offsets: the position is the value's in the write's text.
                throw fail(e.rule, e.pointer, e.message, at: Self.offset(of: e.pointer, below: pointer, in: node))
            }
        }
        for (t, tp, toffset) in transforms {
            if let restMask {
                if let beneath = restMask.first(where: { t.path.isPrefix(of: $0) && t.path != $0 }) {
                    throw fail(
                        .writeMask, tp, "updateMask path `\(beneath)` is beneath transform `\(t.path)`", at: toffset)
                }
                if !restMask.contains(where: { $0.isPrefix(of: t.path) }) { mask?.append(t.path) }
            }
            try place(t, into: &fields, pointer: tp, at: toffset)
        }
        do {
            return try FirestoreWrite(path: path, fields: fields, mask: mask, precondition: precondition)
        } catch let e as SchemaInputError {
            throw fail(e.rule, pointer, "\(e.pointer): \(e.message)", at: offset)
        }
    }

    /// The update's values under the mask; uncovered empty maps above a transform are dropped,
    /// any other uncovered value is an error.
    func covered(
        _ fields: [String: FirestoreValue], prefix: [String], mask: [FieldPath], transformPaths: [FieldPath],
        pointer: String
    ) throws -> [String: FirestoreValue] {
        var out: [String: FirestoreValue] = [:]
        for (k, v) in fields.sorted(by: { $0.key < $1.key }) {
            let path = FieldPath(unchecked: prefix + [k])
            let p = JSONPointer.appending(pointer, k)
            if mask.contains(where: { $0.isPrefix(of: path) }) {
                out[k] = v
                continue
            }
            if case .map(let m) = v {
                if m.isEmpty {
                    if transformPaths.contains(where: { path.isPrefix(of: $0) && path != $0 }) { continue }
                } else {
                    let inner = try covered(
                        m, prefix: prefix + [k], mask: mask, transformPaths: transformPaths,
                        pointer: JSONPointer.appending(pointer, k) + "/mapValue/fields")
                    if !inner.isEmpty { out[k] = .map(inner) }
                    continue
                }
            }
            throw fail(
                .writeMask, p,
                "the update sets `\(path)` but updateMask does not list it, so Firestore ignores it; "
                    + "add it to updateMask or leave it out", at: -1)
        }
        return out
    }

    /// The offset of the node at `pointer` (a pointer below `base`, the pointer of `node`), or of the
    /// deepest node on the way that exists (members matched by JSON or proto field name).
    static func offset(of pointer: String, below base: String, in node: JSONNode) -> Int {
        guard pointer.utf8.starts(with: base.utf8) else { return node.offset }
        var current = node
        let below = String(Substring(pointer.utf8.dropFirst(base.utf8.count)))
        for raw in FirestoreLimits.slashSegments(below).dropFirst().map(String.init) {
            let token = raw.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch current.kind {
            case .object(let members):
                guard let m = members.first(where: { $0.key == token || RESTReader.jsonName($0.key) == token })
                else { return current.offset }
                current = m.value
            case .array(let elements):
                guard let i = Int(token), elements.indices.contains(i) else { return current.offset }
                current = elements[i]
            default: return current.offset
            }
        }
        return current.offset
    }

    /// Puts a transform's sentinel at its path.
    /// - Throws: `write.transform` when the update sets that path, or a non-map above it.
    func place(
        _ t: FirestoreFieldTransform, into fields: inout [String: FirestoreValue], pointer: String, at offset: Int
    )
        throws
    {
        func go(_ fields: inout [String: FirestoreValue], _ segments: ArraySlice<String>) throws {
            guard let head = segments.first else { return }
            if segments.count == 1 {
                if let existing = fields[head] {
                    throw fail(
                        .writeTransform, pointer,
                        "transform `\(t.path)` is on a path the write also sets (\(existing.typeName)); "
                            + "a write holds one value per field path", at: offset)
                }
                fields[head] = t.sentinel
                return
            }
            var inner: [String: FirestoreValue]
            switch fields[head] {
            case nil: inner = [:]
            case .map(let m)?: inner = m
            case let other?:
                throw fail(
                    .writeTransform, pointer,
                    "transform `\(t.path)` is beneath a field the write sets to \(other.typeName)", at: offset)
            }
            try go(&inner, segments.dropFirst())
            fields[head] = .map(inner)
        }
        try go(&fields, t.path.segments[...])
    }
}
