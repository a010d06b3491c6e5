import VultureSchemaCore

/// A blob map's Storage path field: the document's map field (`igc`), the map's owner in the schema
/// (`IGCBlob`), its path field (`path`) and the object kind the path names.
struct BlobPathField: Sendable {
    var mapField: String
    var owner: String
    var pathField: String
    var kind: StorageObjectKind
    /// What fills the object path's placeholder other than `{uid}`, for a path template
    /// `users/{uid}/…` with exactly one more placeholder; nil for any other template.
    var keyedBy: BlobKey?
    /// The collection whose documents hold the map, when the engine's collections name it.
    var collection: SyncCollection?

    /// What keys an object: the document's id (`{flightId}`, the collection path's last placeholder)
    /// or a field of the document (`{contentHash}`).
    enum BlobKey: Sendable {
        case documentId
        case field(String)
    }

    init(
        mapField: String, owner: String, pathField: String, kind: StorageObjectKind, collection: String,
        collectionPath: String
    ) {
        self.collection = SyncCollection(rawValue: collection)
        self.mapField = mapField
        self.owner = owner
        self.pathField = pathField
        self.kind = kind
        let template = kind.pathTemplate
        let prefix = "users/{uid}/"
        let placeholders = template.split(separator: "{").dropFirst().compactMap { $0.split(separator: "}").first }
        guard template.hasPrefix(prefix), placeholders.count == 2, placeholders[0] == "uid", placeholders[1] != "uid"
        else { return }
        let name = String(placeholders[1])
        keyedBy = collectionPath.hasSuffix("/{\(name)}") ? .documentId : .field(name)
    }
}

/// Where a document lives: the uid and the document id of its path `users/{uid}/COLLECTION/{id}`.
public struct DocumentLocation: Sendable, Hashable {
    /// The Firebase Auth uid, the path's second segment.
    public var uid: String
    /// The document id, the path's last segment.
    public var documentId: String

    /// A location as given.
    public init(uid: String, documentId: String) {
        self.uid = uid
        self.documentId = documentId
    }

    /// The location of a document path (`users/u/flights/x`, or a full REST name
    /// `projects/…/documents/users/u/flights/x`); nil for any other shape (the profile `users/{uid}`
    /// has no blob map).
    public init?(path: String) {
        let segments = Self.segments(of: path)
        guard segments.count == 4, segments[0] == "users", !segments[1].isEmpty, !segments[3].isEmpty else {
            return nil
        }
        self.init(uid: segments[1], documentId: segments[3])
    }

    /// The segments of a document path from `users` on: a full REST name
    /// `projects/…/documents/users/…` loses its prefix.
    static func segments(of path: String) -> [String] {
        let segments = FirestoreLimits.slashSegments(path).map(String.init)
        if let d = segments.firstIndex(of: "documents"), segments.first == "projects" {
            return Array(segments[(d + 1)...])
        }
        return segments
    }
}

extension SchemaValidator {
    /// The violations of the Storage paths in a document's blob maps (schema §2 Storage objects;
    /// `Spec/fields.tsv` limit `storagePath`, `Spec/blobs.tsv` path templates): every string field
    /// with a `storagePath` limit in a map field of the document (`/igc/path`, `/content/path`) must
    /// be its kind's path template with each placeholder filled:
    ///
    /// - `{uid}`: the uid of `location`; without one, any valid Firebase Auth uid (one path segment);
    /// - the placeholder the collection's path template names for the document id (`{flightId}`):
    ///   the id of `location`; without one, the id the collection's id rule gives for the fields
    ///   (a flight's `igc.sha256`), else any 64 lowercase hex characters;
    /// - any other placeholder (`{contentHash}`): the document's field of that name, or any 64
    ///   lowercase hex characters while it is null or absent.
    ///
    /// A tombstone has no blob map to check. A finding is `schema.storage-path` at the path field.
    public func storagePathViolations(
        _ fields: [String: FirestoreValue], documentType: String, location: DocumentLocation? = nil
    ) -> [SchemaViolation] {
        guard let pathFields = blobPathFields[documentType], fields[CommonFields.Field.deleted] != .boolean(true)
        else { return [] }
        var out: [SchemaViolation] = []
        for field in pathFields {
            guard case .map(let blobMap)? = fields[field.mapField], case .string(let path)? = blobMap[field.pathField]
            else { continue }
            if storagePathIsExpected(path, field: field, fields: fields, location: location) { continue }
            guard let collection = schema.collection(documentType: documentType) else { continue }
            if let message = storagePathProblem(
                path, kind: field.kind, label: "\(field.owner).\(field.pathField)", collection: collection,
                fields: fields, location: location)
            {
                out.append(
                    SchemaViolation(
                        pointer: JSONPointer.appending(JSONPointer.appending("", field.mapField), field.pathField),
                        rule: SchemaRule.storagePath.rawValue, message: message))
            }
        }
        return out
    }

    /// Whether `path` is the one object path the document's fields and `location` give, compared
    /// piece by piece: the common case of a right document, where no finding is worded.
    /// False also where the path is not determined (an id or hash the fields do not give, a uid that
    /// is not valid): ``storagePathProblem(_:kind:label:collection:fields:location:)`` then judges it.
    private func storagePathIsExpected(
        _ path: String, field: BlobPathField, fields: [String: FirestoreValue], location: DocumentLocation?
    ) -> Bool {
        guard let keyedBy = field.keyedBy else { return false }
        let hash: String
        // An id the id rule gave is 64 lowercase hex characters already.
        var hashChecked = false
        switch keyedBy {
        case .documentId:
            if let location {
                hash = location.documentId
            } else if let c = field.collection, let id = try? DocumentIds.documentId(collection: c, fields: fields) {
                hash = id.id
                hashChecked = id.rule.algorithm == .sha256Hex
            } else {
                return false
            }
        case .field(let name):
            guard case .string(let h)? = fields[name] else { return false }
            hash = h
        }
        let uid: String
        if let location {
            uid = location.uid
        } else {
            // Any valid uid: the segment after `users/` (the template's first placeholder).
            let bytes = path.utf8
            guard bytes.starts(with: "users/".utf8) else { return false }
            let start = bytes.index(bytes.startIndex, offsetBy: 6)
            guard let slash = bytes[start...].firstIndex(of: 0x2F) else { return false }
            uid = String(Substring(bytes[start..<slash]))
        }
        return BlobPaths.isObjectPath(path, field.kind, uid: uid, hash: hash, hashChecked: hashChecked)
    }

    /// What a placeholder of a path template must hold.
    private enum PlaceholderValue {
        /// Exactly this string (`what` says where it comes from).
        case exactly(String, what: String)
        /// Any valid Firebase Auth uid.
        case anyUid
        /// Any 64 lowercase hex characters.
        case anyHash(what: String)
    }

    /// What is wrong with `path` as the object path of `kind` for this document, or nil.
    private func storagePathProblem(
        _ path: String, kind: StorageObjectKind, label: String, collection: SchemaCollection,
        fields: [String: FirestoreValue], location: DocumentLocation?
    ) -> String? {
        let idPlaceholder = collection.pathTemplate.split(separator: "/").last.map(String.init)
        func value(of name: String) -> PlaceholderValue {
            if name == "uid" {
                return location.map { .exactly($0.uid, what: "this document's uid") } ?? .anyUid
            }
            if "{\(name)}" == idPlaceholder {
                if let location { return .exactly(location.documentId, what: "this document's id") }
                if let expected = expectedId(collection: collection.name, fields: fields) {
                    return .exactly(expected.id, what: "the document's id, \(expected.rule)")
                }
                return .anyHash(what: "the document's id")
            }
            if case .string(let s)? = fields[name] { return .exactly(s, what: "the document's \(name)") }
            return .anyHash(what: "the document's \(name), 64 lowercase hex characters")
        }
        let templateSegments = kind.pathTemplate.split(separator: "/", omittingEmptySubsequences: false)
        let pathSegments = path.split(separator: "/", omittingEmptySubsequences: false)
        var matches = templateSegments.count == pathSegments.count
        var expectedText: [String] = []
        var explained: [String] = []
        for (i, t) in templateSegments.enumerated() {
            guard let open = t.firstIndex(of: "{"), let close = t[open...].firstIndex(of: "}") else {
                expectedText.append(String(t))
                if matches, !pathSegments[i].utf8.elementsEqual(t.utf8) { matches = false }
                continue
            }
            let prefix = t[..<open]
            let suffix = t[t.index(after: close)...]
            let name = String(t[t.index(after: open)..<close])
            let wanted = value(of: name)
            switch wanted {
            case .exactly(let s, let what):
                expectedText.append(prefix + s + suffix)
                explained.append("{\(name)} \(what)")
            case .anyUid:
                expectedText.append(String(t))
                explained.append("{uid} a Firebase Auth uid")
            case .anyHash(let what):
                expectedText.append(String(t))
                explained.append("{\(name)} \(what)")
            }
            guard matches else { continue }
            let segment = pathSegments[i]
            guard segment.utf8.count >= prefix.utf8.count + suffix.utf8.count,
                segment.utf8.starts(with: prefix.utf8), segment.utf8.reversed().starts(with: suffix.utf8.reversed())
            else {
                matches = false
                continue
            }
            let middle = String(
                decoding: segment.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count), as: UTF8.self)
            switch wanted {
            case .exactly(let s, _): matches = Self.sameScalars(middle, s)
            case .anyUid: matches = (try? BlobPaths.validate(uid: middle)) != nil
            case .anyHash: matches = DocumentIds.isLowercaseHexSHA256(middle)
            }
        }
        if matches { return nil }
        let shown = path.unicodeScalars.count > 200 ? String(path.unicodeScalars.prefix(200)) + "…" : path
        return "\(label) is \"\(shown)\"; expected \(expectedText.joined(separator: "/")): the Storage path "
            + "\(kind.pathTemplate) (schema §2 Storage objects) with " + explained.joined(separator: ", ")
    }

    /// The finding of a task's random id that is not a lowercase 8-4-4-4-12 UUID (schema §4, pin
    /// taskRandomId), or nil: checked for a live document whose id rule leaves the id to the writer
    /// (`Spec/ids.tsv` algorithm randomUUID: a task without externalUrl).
    func randomIdViolation(collection: String, id: String, fields: [String: FirestoreValue]) -> SchemaViolation? {
        guard fields[CommonFields.Field.deleted] != .boolean(true), let c = SyncCollection(rawValue: collection)
        else { return nil }
        do throws(DocumentIdError) {
            _ = try DocumentIds.documentId(collection: c, fields: fields)
            return nil
        } catch {
            guard case .undetermined(let rule, _) = error, rule.algorithm == .randomUUID, !Self.isLowercaseUUID(id)
            else { return nil }
            return SchemaViolation(
                pointer: "", rule: SchemaRule.documentId.rawValue,
                message: "the document id is \(id.prefix(80)); a \(rule.record) without externalUrl has a random UUID "
                    + "written lowercase 8-4-4-4-12 (schema §4 says \"a random UUID string\"; the form is pinned "
                    + "\(SchemaPin.taskRandomId.rawValue), a \(SchemaPin.taskRandomId.kind.rawValue))")
        }
    }

    /// Whether `s` is a UUID written lowercase 8-4-4-4-12 (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, hex digits).
    public static func isLowercaseUUID(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 36 else { return false }
        for (i, c) in b.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if c != 0x2D { return false }
            } else if !((0x30...0x39).contains(c) || (0x61...0x66).contains(c)) {
                return false
            }
        }
        return true
    }
}
