import VultureSchemaCore

extension SchemaValidator {
    /// Every violation of one write (Firestore's `Write`, README "Writes") against the schema, in
    /// the order found: its document path (collection and deterministic id, as for a REST document
    /// name), then its fields.
    ///
    /// - A write without a mask is a full write: checked as a document in the write form (every
    ///   field present, `updatedAt` the server timestamp, `storageBytes` by `$increment`); a
    ///   tombstone must be one (schema §5.4, pin tombstoneFullReplace).
    /// - A write with a mask is a merge: every mask path must be a field the schema knows (an unknown
    ///   one is a `schema.unknown-field` warning, an error when `strict`), its value is checked
    ///   against that field; it carries the common fields (schema §5.1); `updatedAt` only as the
    ///   request-time transform (`schema.server-timestamp`); `storageBytes` only by increment
    ///   (`schema.increment-only`); no mask path set to an empty map (`schema.empty-map-leaf`); no
    ///   mask path deleting a required field or a field the schema does not know
    ///   (`schema.merge-removes-field`); never a tombstone (`schema.tombstone`); a blob map it sets
    ///   names this document's Storage object (`schema.storage-path`).
    /// - A delete has nothing to check beyond its path.
    ///
    /// Pointers are into the canonical write (`/fields/summary/x`, `/mask`); ``WriteViolation``
    /// carries the field path so a REST reader can point into its own message.
    ///
    /// - Parameters:
    ///   - write: the write; its path (relative to the database root) names the collection.
    ///   - documentType: the document type when the path does not tell it (`FlightDocument`).
    ///   - strict: unknown fields and settings keys are errors.
    public func validate(write: FirestoreWrite, documentType: String? = nil, strict: Bool = false)
        -> [WriteViolation]
    {
        var out: [WriteViolation] = []
        func add(_ v: SchemaViolation, _ place: WriteViolation.Place) {
            out.append(WriteViolation(violation: v, place: place))
        }
        let fields = write.fields ?? [:]
        var type = documentType
        if let path = write.path {
            let (t, violations) = pathViolations(path: path, fields: write.mask == nil ? fields : [:])
            // A field's finding (a blob map's Storage path) points at the field, the others at the path.
            for v in violations { add(v, v.pointer.isEmpty ? .path : .field(v.pointer)) }
            type = type ?? t
        }
        guard let fieldsOfWrite = write.fields else { return out }
        guard let type = type ?? inferDocumentType(fields: fieldsOfWrite, path: nil) else {
            add(
                SchemaViolation(
                    pointer: "", rule: SchemaRule.collection.rawValue,
                    message: "cannot tell the collection from the write's path or fields"), .path)
            return out
        }
        guard let mask = write.mask else {
            for v in validate(fields, documentType: type, options: ValidationOptions(form: .write, strict: strict)) {
                add(v, .field(v.pointer))
            }
            return out
        }
        let options = ValidationOptions(form: .write, strict: strict, mergeWrite: true)
        if fields[CommonFields.Field.deleted] == .boolean(true) {
            add(
                SchemaViolation(
                    pointer: "/fields/deleted", rule: SchemaRule.tombstone.rawValue,
                    message: "a tombstone is written as a full replace, without a mask (schema §5.4, pin "
                        + "tombstoneFullReplace), so that no stale field survives"), .field("/deleted"))
        }
        let top = schema.documentFields(of: type)
        for path in mask {
            let fieldPointer = path.segments.reduce("") { JSONPointer.appending($0, $1) }
            let value = FirestoreValue.map(fields)[path: path]
            let resolved = field(at: path.segments, in: top)
            let place: WriteViolation.Place = value == nil ? .mask(path) : .field(fieldPointer)
            func fail(_ rule: SchemaRule, _ message: String, severity: SchemaViolation.Severity = .error) {
                add(
                    SchemaViolation(
                        pointer: "/fields" + fieldPointer, rule: rule.rawValue, message: message, severity: severity),
                    place)
            }
            guard let resolved else {
                if value == nil {
                    fail(
                        .mergeRemovesField,
                        "the mask deletes \(path), a field this schema version does not know; a merge never removes "
                            + "a field the writer does not know (schema §5.1)")
                } else {
                    fail(
                        .unknownField, "the schema has no field \(path)", severity: strict ? .error : .warning)
                }
                continue
            }
            guard let value else {
                if case .field(let f) = resolved, f.isRequired {
                    fail(
                        .mergeRemovesField,
                        "the mask deletes \(path), which is required: a merge clears it with null "
                            + "(Goldens/FORMAT.md), never removes it")
                }
                continue
            }
            if case .map(let m) = value, m.isEmpty {
                fail(
                    .emptyMapLeaf,
                    "the mask sets \(path) to an empty map, which replaces the stored map whole (every key "
                        + "gone); mask only the changed keys (\(path).KEY) or leave \(path) out")
                continue
            }
            switch resolved {
            case .field(let f):
                if f.writeAs == .increment, !value.isIncrement {
                    fail(
                        .incrementOnly,
                        "\(path) moves only by {\"$increment\": n}; a value overwrites other devices' changes "
                            + "(schema §5.1)")
                    continue
                }
                var found: [SchemaViolation] = []
                checkField(value, field: f, pointer: "/fields" + fieldPointer, options: options, into: &found)
                for v in found { add(v, .field(String(v.pointer.dropFirst("/fields".count)))) }
            case .settingsEntry(let key):
                var found: [SchemaViolation] = []
                checkSettingsEntry(value, key: key, pointer: "/fields" + fieldPointer, options: options, into: &found)
                for v in found { add(v, .field(String(v.pointer.dropFirst("/fields".count)))) }
            case .dictionaryValue:
                break
            }
        }
        // A field null unless a flag is true (deletedAt: only a tombstone has it), set by the mask
        // while the flag is not set true by it.
        for f in top {
            guard let flag = f.limits.nullUnless, mask.contains(where: { $0.segments == [f.name] }),
                let value = fields[f.name], !value.isSentinel, value != .null, fields[flag] != .boolean(true)
            else { continue }
            add(
                SchemaViolation(
                    pointer: "/fields/" + f.name, rule: SchemaRule.nullUnless.rawValue,
                    message: "\(f.owner).\(f.name) is null unless \(flag) is true (limit nullUnless=\(flag)): only a "
                        + "tombstone has \(f.name); write null (schema §5.4)"), .field("/" + f.name))
        }
        // A blob map the mask sets: its Storage path is this document's object (schema §2), with the
        // uid and id of the write's path when it names one.
        let location = write.path.flatMap { DocumentLocation(path: $0) }
        for v in storagePathViolations(fields, documentType: type, location: location)
        where mask.contains(where: { v.isAt(field: $0.segments.first ?? "") }) {
            var shown = v
            shown.pointer = "/fields" + v.pointer
            add(shown, .field(v.pointer))
        }
        if schema.collection(documentType: type)?.hasCommonFields == true {
            for f in schema.fields(of: SyncSchema.commonFieldsOwner) where f.isRequired {
                if !mask.contains(where: { $0.segments == [f.name] }) {
                    add(
                        SchemaViolation(
                            pointer: "/mask", rule: SchemaRule.missingField.rawValue,
                            message: "a merge write carries the common fields (schema §5.1); the mask lacks \(f.name)"),
                        .mask(FieldPath(unchecked: [f.name])))
                }
            }
        }
        return out
    }

    /// What a field path names in the schema.
    enum ResolvedField {
        case field(SchemaField)
        case settingsEntry(String)
        case dictionaryValue
    }

    /// The schema field at `segments` through maps and dictionaries, or nil when the schema has none
    /// (arrays cannot be entered by a field path).
    func field(at segments: [String], in declared: [SchemaField]) -> ResolvedField? {
        guard let first = segments.first, let f = declared.first(where: { $0.name == first }) else { return nil }
        let rest = Array(segments.dropFirst())
        if rest.isEmpty { return .field(f) }
        switch f.type {
        case .map(let owner):
            return field(at: rest, in: schema.fields(of: owner))
        case .dictionary(let element):
            guard element == .map("SettingsEntry") else { return rest.count == 1 ? .dictionaryValue : nil }
            if rest.count == 1 { return schema.settingsKey(rest[0]) == nil ? nil : .settingsEntry(rest[0]) }
            guard schema.settingsKey(rest[0]) != nil else { return nil }
            return field(at: Array(rest.dropFirst()), in: schema.fields(of: "SettingsEntry"))
        default:
            return nil
        }
    }
}

/// One violation of a write (``SchemaValidator/validate(write:documentType:strict:)``): the
/// violation with its pointer into the canonical write, and what it is about.
public struct WriteViolation: Sendable, Hashable {
    /// Where in the write a violation lies.
    public enum Place: Sendable, Hashable {
        /// The document path (its collection or id).
        case path
        /// A value in the write's fields, at this pointer relative to the fields (`/summary/x`).
        case field(String)
        /// A mask path without a value (a delete), or the mask as a whole.
        case mask(FieldPath)
    }

    /// The violation; its pointer is into the canonical write (`/fields/summary/x`, `/mask`).
    public var violation: SchemaViolation
    /// What it is about, for readers that point into another form (REST).
    public var place: Place
}

extension FirestoreValue {
    /// True for an `$increment` sentinel.
    var isIncrement: Bool {
        if case .increment = self { return true }
        return false
    }
}

extension SchemaValidator {
    /// The checks of a commit as a whole that the security rules cannot make, since they judge each
    /// write alone and cannot list the others of its batch (Goldens/SCHEMA.md, "Security rules"):
    /// a commit that moves `storageBytes` carries the one blob change it counts (schema §5.1 "one
    /// blob-size change per batch", §5.4 "a tombstone lowers storageBytes in its own batch").
    ///
    /// For each write of a profile (`users/{uid}`) that moves `storageBytes` by a non-zero
    /// `$increment` (`schema.blob-batch` otherwise):
    /// - it names a record in `storageRef` ({collection, id} of a collection with a blob map), and
    ///   the commit writes that record;
    /// - no other write of the commit changes a blob: none sets another record's blob map, none
    ///   tombstones or deletes another record of a collection with a blob map, and no second write
    ///   moves `storageBytes`;
    /// - for a reservation (a positive increment), every write of the named record that sets its
    ///   blob map says `uploaded: false` (the mark is a later write, after the upload).
    ///
    /// - Parameter writes: the commit's writes in order, paths relative to the database root.
    /// - Returns: the violations with the index of the write each is about.
    public func validate(commit writes: [FirestoreWrite]) -> [(index: Int, violation: WriteViolation)] {
        var out: [(Int, WriteViolation)] = []
        func fail(_ index: Int, _ place: WriteViolation.Place, _ pointer: String, _ message: String) {
            out.append(
                (
                    index,
                    WriteViolation(
                        violation: SchemaViolation(
                            pointer: pointer, rule: SchemaRule.blobBatch.rawValue,
                            message: message + " (schema §5.1; the security rules cannot list a batch's writes)"),
                        place: place)
                ))
        }
        /// The blob map field of the record at `path` (`users/{uid}/{collection}/{id}`), or nil.
        func blobField(_ path: String?) -> String? {
            let segments = FirestoreLimits.slashSegments(path ?? "").filter { !$0.isEmpty }.map(String.init)
            guard segments.count == 4, let c = SyncCollection(rawValue: segments[2]) else { return nil }
            return StorageObjectKind.allCases.first { $0.recordType == c.documentType }?.mapField
        }
        /// Whether the write changes the record's blob: sets its map, tombstones or deletes it.
        func changesBlob(_ w: FirestoreWrite) -> Bool {
            guard let field = blobField(w.path) else { return false }
            if w.isDelete || w.fields?[CommonFields.Field.deleted] == .boolean(true) { return true }
            guard let mask = w.mask else { return true }  // a full write sets the map, null or not
            return mask.contains { $0.segments.first == field }
        }
        var moves: [(index: Int, uid: String, delta: Int64)] = []
        for (index, w) in writes.enumerated() {
            let segments = FirestoreLimits.slashSegments(w.path ?? "").filter { !$0.isEmpty }.map(String.init)
            guard segments.count == 2, segments[0] == "users",
                case .increment(let operand)? = w.fields?[ProfileDocument.Field.storageBytes]
            else { continue }
            let delta: Int64
            switch operand {
            case .integer(let i): delta = i
            case .double(let d): delta = d == 0 ? 0 : (d > 0 ? 1 : -1)
            }
            if delta != 0 { moves.append((index, segments[1], delta)) }
        }
        for (n, move) in moves.enumerated() {
            if n > 0 {
                fail(
                    move.index, .field("/storageBytes"), "/fields/storageBytes",
                    "a second storageBytes move in one commit: one blob-size change per batch")
                continue
            }
            guard case .map(let ref)? = writes[move.index].fields?[ProfileDocument.Field.storageRef],
                case .string(let c)? = ref[StorageRef.Field.collection],
                case .string(let id)? = ref[StorageRef.Field.id], let collection = SyncCollection(rawValue: c),
                collection != .users,
                let field = blobField(collection.documentPath(uid: move.uid, id: id))
            else {
                fail(
                    move.index, .field("/storageBytes"), "/fields/storageBytes",
                    "storageBytes moves without storageRef naming the record {collection, id} whose blob change it counts"
                )
                continue
            }
            let named = collection.documentPath(uid: move.uid, id: id)
            let recordWrites = writes.indices.filter { writes[$0].path == named }
            if recordWrites.isEmpty {
                fail(
                    move.index, .field("/storageRef"), "/fields/storageRef",
                    "storageBytes moves for \(named), which this commit does not write: the blob change and the "
                        + "storageBytes move it counts go in one batch")
            }
            for (index, w) in writes.enumerated() where index != move.index && w.path != named && changesBlob(w) {
                fail(
                    index, .path, "",
                    "\(w.path ?? "this write") changes a blob in the commit that moves storageBytes for \(named): one "
                        + "blob-size change per batch, a tombstone's in its own batch")
            }
            guard move.delta > 0 else { continue }
            for index in recordWrites {
                guard case .map(let map)? = writes[index].fields?[field],
                    map[StorageObjectKind.MapField.uploaded] == .boolean(true)
                else {
                    continue
                }
                fail(
                    index, .field("/\(field)/uploaded"), "/fields/\(field)/uploaded",
                    "the reservation of \(named) says uploaded: true: a blob is reserved not uploaded, and a later "
                        + "write, after the upload, marks it")
            }
        }
        return out
    }
}
