import Foundation
import VultureSchemaCore

/// Emits `Goldens/firestore.rules`: the Firestore security rules of the schema (schema §2, §3, §5.1,
/// §6), every name and number from the tables — the collections and their paths, the common fields
/// (a tombstone holds only them), the fields written as server timestamps (`== request.time`), the
/// schema version, the `maxChars` / `maxBytes` / `maxItems` limits of each document's own fields,
/// the blob maps (`storageBytes` moves only by the change of the record `storageRef` names), the
/// storage cap and the Pro claim.
struct FirestoreRulesEmitter {
    let spec: SchemaSpec

    static let path = "Goldens/firestore.rules"
    static let sources = ["collections.tsv", "fields.tsv", "blobs.tsv", "limits.tsv", "constants.tsv", "enums.tsv"]

    func file() -> GeneratedFile {
        GeneratedFile(relativePath: Self.path, contents: lines().joined(separator: "\n") + "\n")
    }

    private func constant(_ name: String) -> FirestoreValue? { spec.constants.first { $0.name == name }?.value }
    private func limit(_ name: String) -> Int64? { spec.limits.first { $0.name == name }?.value }

    /// A string literal in the rules language (single quotes, `\` and `'` escaped).
    private func quoted(_ s: String) -> String {
        "'" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    private func list(_ items: [String]) -> String { "[" + items.map(quoted).joined(separator: ", ") + "]" }

    /// The field of the record that keys a shared object: the placeholder of the blob's path
    /// (`users/{uid}/files/{contentHash}.gz`) when it names a field of the record, so that records
    /// with the same value share one object; nil when the path is keyed by the document id
    /// (`{flightId}`), one object per record.
    private func sharingKey(_ blob: BlobSpec) -> String? {
        for segment in blob.pathTemplate.split(separator: "/").dropFirst(2) {
            guard segment.hasPrefix("{"), let close = segment.firstIndex(of: "}") else { continue }
            let name = String(segment[segment.index(after: segment.startIndex)..<close])
            if spec.fields.contains(where: { $0.owner == blob.record && $0.name == name }) { return name }
        }
        return nil
    }

    private func lines() -> [String] {
        let commonOwner = "CommonFields"
        let common = spec.fields.filter { $0.owner == commonOwner }
        let serverTimes = common.filter { $0.writeAs == .serverTimestamp }.map(\.name)
        // Spec/ is validated before generation: the constants and the limit are there.
        var schemaVersion = ""
        if case .integer(let v)? = constant("schemaVersion") { schemaVersion = String(v) }
        var proClaim = ""
        if case .string(let s)? = constant("proClaim") { proClaim = s }
        var proEntitlement = ""
        if case .string(let s)? = constant("proEntitlement") { proEntitlement = s }
        let cap = limit("storageCapBytes").map(String.init) ?? ""
        // Blob maps: the collection whose document type holds each map field.
        let blobs: [(collection: String, field: String)] = spec.blobs.compactMap { blob in
            spec.collections.first { $0.documentType == blob.record }.map { ($0.name, blob.mapField) }
        }
        let profile = spec.collections.first { !$0.hasCommonFields && $0.pathTemplate.split(separator: "/").count == 2 }
        let storageRefCollections =
            spec.enums.first { $0.name == "StorageRefCollection" }?.cases.compactMap { c -> String? in
                if case .string(let v) = c.cloudValue { return v }
                return nil
            } ?? []

        var out = [
            "// " + SchemaGenerator.doNotEdit(Self.sources),
            "// Firestore security rules of the Vulture sync schema (Goldens/SCHEMA.md; README \"Security rules\"):",
            "// only the signed-in user's users/{uid} tree; a server-time updatedAt; the schema version; the",
            "// rule caps on fields; storageBytes moved only by the blob change storageRef names, and kept",
            "// under the cap unless the token's \(proClaim) claim holds '\(proEntitlement)'; a blob map's gzBytes changed only",
            "// in such a batch (or, for shared content, naming a live record that holds it) and uploaded set",
            "// only in a later write; a tombstone holds only the common fields and a live document no deletedAt.",
            "// What these rules cannot check (the rules language cannot, Goldens/SCHEMA.md \"Security rules\"):",
            "// - Storage: that the object is in Cloud Storage, of gzBytes bytes, before uploaded turns true",
            "//   (Firestore rules cannot read Storage; that is storage.rules' side, not generated here);",
            "// - a reservation that counts shared content already counted (knowing that another live record",
            "//   holds the content takes a query, and rules can only read documents they can name);",
            "// - the batch as a whole: rules judge each write and cannot list the others, so \"a tombstone",
            "//   lowers storageBytes in its own batch\" is checked on commit requests by",
            "//   vulture-conformance validate --form write --format rest (schema.blob-batch), not here.",
            "rules_version = '2';",
            "service cloud.firestore {",
            "  match /databases/{database}/documents {",
            "    // The signed-in user owns users/{uid}; everything outside it is closed (schema §2).",
            "    function isOwner(uid) {",
            "      return request.auth != null && request.auth.uid == uid;",
            "    }",
            "",
            "    // The ID token's \(proClaim) claim holds '\(proEntitlement)': no storage cap (schema §6).",
            "    function isPro() {",
            "      return request.auth.token.get(\(quoted(proClaim)), []) is list",
            "        && request.auth.token.get(\(quoted(proClaim)), []).hasAny([\(quoted(proEntitlement))]);",
            "    }",
            "",
            "    // Every document with the common fields: \(serverTimes.joined(separator: ", ")) the request's time, schema \(schemaVersion),",
            "    // and the tombstone shape — a deleted document holds only the common fields, with a deletedAt;",
            "    // a live one has no deletedAt (fields.tsv limit nullUnless, pin deletedAtOnlyTombstones).",
            "    function commonFieldsValid() {",
            "      let data = request.resource.data;",
        ]
        var commonChecks = serverTimes.map { "data.\($0) == request.time" }
        commonChecks.append("data.schema == \(schemaVersion)")
        commonChecks.append("data.deleted is bool")
        // A field null unless a flag is true (limit nullUnless: deletedAt) is what a tombstone carries
        // besides the common fields, and what a live document never holds (pin deletedAtOnlyTombstones).
        var tombstoneCarries: [String] = []
        var liveChecks: [String] = []
        for f in common {
            for case .nullUnless(let flag) in f.limits {
                tombstoneCarries.append("data.\(f.name) is \(f.type == .timestamp ? "timestamp" : "bool")")
                liveChecks.append(
                    "(data.get(\(quoted(flag)), false) == true || data.get(\(quoted(f.name)), null) == null)")
            }
        }
        commonChecks.append(
            "(!data.deleted || (data.keys().hasOnly(\(list(common.map(\.name))))"
                + tombstoneCarries.map { " && " + $0 }.joined() + "))")
        commonChecks += liveChecks
        out.append("      return " + commonChecks.joined(separator: "\n        && ") + ";")
        out += ["    }", ""]

        out += [
            "    // A string's characters as Unicode code points (pins.tsv charCount): size() counts UTF-16",
            "    // units, so each character beyond the Basic Multilingual Plane (two units) is taken back once.",
            "    function codePoints(s) {",
            "      return s.size() - ((s + '.').split('[\\\\x{10000}-\\\\x{10FFFF}]').size() - 1);",
            "    }",
            "",
            "    // A deleted document, or none: the tombstone purge deletes only tombstones (schema §5.4).",
            "    function isTombstoneOrMissing() {",
            "      return resource == null || resource.data.get('deleted', false) == true;",
            "    }",
            "",
            "    // A record's blob map: null for a tombstone or no map.",
            "    function blobMapOf(data, field) {",
            "      return data.get('deleted', false) == true ? null : data.get(field, null);",
            "    }",
            "",
            "    // The counted gzBytes of a record's blob map: 0 for a tombstone or no map.",
            "    function blobBytes(record, field) {",
            "      return blobMapOf(record.data, field) == null ? 0 : blobMapOf(record.data, field).get('gzBytes', 0);",
            "    }",
            "",
            "    // A change of this record's counted gzBytes (a reservation, a release) rides in a batch whose",
            "    // storageBytes moves by exactly that change and whose storageRef names this record (schema §5.1).",
            "    function blobChangeCounted(uid, collection, id, field, sharedBy) {",
            "      let change = blobBytes(request.resource, field) - (resource == null ? 0 : blobBytes(resource, field));",
            "      return change == 0 || storageMovedFor(uid, collection, id, change)",
            "        || (sharedBy != '' && storageUnmoved(uid) && sharesContent(uid, collection, id, sharedBy));",
            "    }",
            "",
            "    // The profile after the batch names this record, and its storageBytes moved by change in the batch.",
            "    function storageMovedFor(uid, collection, id, change) {",
            "      let profile = /databases/$(database)/documents/users/$(uid);",
            "      let was = exists(profile) ? get(profile).data.get('storageBytes', 0) : 0;",
            "      return existsAfter(profile)",
            "        && getAfter(profile).data.get('storageRef', null) == {'collection': collection, 'id': id}",
            "        && getAfter(profile).data.get('storageBytes', 0) - was == change;",
            "    }",
            "",
            "    // storageBytes does not move in this batch.",
            "    function storageUnmoved(uid) {",
            "      let profile = /databases/$(database)/documents/users/$(uid);",
            "      return existsAfter(profile) && getAfter(profile).data.get('storageBytes', 0)",
            "        == (exists(profile) ? get(profile).data.get('storageBytes', 0) : 0);",
            "    }",
            "",
            "    // Shared content, counted once (schema §2, §5.4; pin sharedContentNamed): the object is keyed by",
            "    // the record's field key (contentHash), and the profile's storageRef names another live record of",
            "    // the collection with the same key, which holds the object. The key is the one of the map",
            "    // written, or for a release (a tombstone, a map removed) the one the record had.",
            "    function sharesContent(uid, collection, id, key) {",
            "      let ref = getAfter(/databases/$(database)/documents/users/$(uid)).data.get('storageRef', null);",
            "      let value = blobMapOf(request.resource.data, blobField(collection)) != null",
            "        ? request.resource.data.get(key, null) : (resource == null ? null : resource.data.get(key, null));",
            "      return ref is map && ref.get('collection', null) == collection && ref.get('id', null) is string",
            "        && ref.id != id && value is string && liveWithKey(uid, collection, ref.id, key, value);",
            "    }",
            "",
            "    // users/{uid}/{collection}/{other} after the batch is live and holds key == value.",
            "    function liveWithKey(uid, collection, other, key, value) {",
            "      let path = /databases/$(database)/documents/users/$(uid)/$(collection)/$(other);",
            "      return existsAfter(path) && getAfter(path).data.get('deleted', false) != true",
            "        && getAfter(path).data.get(key, null) == value;",
            "    }",
            "",
            "    // uploaded is false when a blob map is written with new content (a reservation), and turns true",
            "    // only in a later write that changes nothing else of the map (schema §5.1: reserve, upload, mark).",
            "    function uploadedInOrder(field) {",
            "      let after = blobMapOf(request.resource.data, field);",
            "      return after == null || after.get('uploaded', false) == false",
            "        || (resource != null && onlyUploadedChanged(after, blobMapOf(resource.data, field)));",
            "    }",
            "",
            "    // The map before the write was there and differs from after only in uploaded.",
            "    function onlyUploadedChanged(after, before) {",
            "      return before is map && after.diff(before).affectedKeys().hasOnly(['uploaded']);",
            "    }",
            "",
            "    // The blob map field of a storageRef collection.",
            "    function blobField(collection) {",
            "      return "
                + blobs.map { "collection == \(quoted($0.collection)) ? \(quoted($0.field)) : (" }.joined()
                + "''" + String(repeating: ")", count: blobs.count) + ";",
            "    }",
            "",
            "    // How much this batch changes the counted gzBytes of users/{uid}/{collection}/{id} (get() of a",
            "    // missing document is an error, not null: exists() first).",
            "    function blobDelta(uid, collection, id) {",
            "      let path = /databases/$(database)/documents/users/$(uid)/$(collection)/$(id);",
            "      let field = blobField(collection);",
            "      let after = existsAfter(path) ? blobBytes(getAfter(path), field) : 0;",
            "      let before = exists(path) ? blobBytes(get(path), field) : 0;",
            "      return after - before;",
            "    }",
            "",
            "    // storageBytes moves only by the blob change of the record storageRef names, in the same batch",
            "    // (one blob change per batch, schema §5.1), and stays at most \(cap) bytes unless Pro or lowered (§6).",
            "    function storageBytesValid(uid) {",
            "      let before = resource == null ? 0 : resource.data.get('storageBytes', 0);",
            "      let after = request.resource.data.get('storageBytes', 0);",
            "      let ref = request.resource.data.get('storageRef', null);",
            "      return after is int",
            "        && (after <= \(cap) || after <= before || isPro())",
            "        && (after == before",
            "          || (ref is map && ref.get('collection', null) in \(list(storageRefCollections))",
            "            && ref.get('id', null) is string && blobDelta(uid, ref.collection, ref.id) == after - before));",
            "    }",
            "",
        ]

        if let profile {
            out += [
                "    // \(profile.pathTemplate): the profile.",
                "    match /\(profile.pathTemplate) {",
                "      allow read: if isOwner(uid);",
                "      allow create, update: if isOwner(uid) && request.resource.data.schema == \(schemaVersion)"
                    + " && storageBytesValid(uid);",
                "      allow delete: if false;",
                "    }",
            ]
        }
        for collection in spec.collections where collection.hasCommonFields {
            let segments = collection.pathTemplate.split(separator: "/").map(String.init)
            guard let last = segments.last else { continue }
            let fixedId = !last.hasPrefix("{")
            let matchPath = segments.dropLast().joined(separator: "/") + "/{id}"
            var checks = ["isOwner(uid)"]
            if fixedId { checks.append("id == \(quoted(last))") }
            var write = checks + ["commonFieldsValid()"]
            for blob in spec.blobs where blob.record == collection.documentType {
                write.append(
                    "blobChangeCounted(uid, \(quoted(collection.name)), id, \(quoted(blob.mapField)), "
                        + "\(quoted(sharingKey(blob) ?? "")))")
                write.append("uploadedInOrder(\(quoted(blob.mapField)))")
            }
            for field in spec.fields where field.owner == collection.documentType {
                for l in field.limits {
                    let value = "request.resource.data.\(field.name)"
                    let size: String
                    let bound: Int
                    switch l {
                    case .maxChars(let n): (size, bound) = ("codePoints(\(value))", n)
                    case .maxBytes(let n), .maxItems(let n): (size, bound) = ("\(value).size()", n)
                    default: continue
                    }
                    write.append(
                        "(request.resource.data.get(\(quoted(field.name)), null) == null || \(size) <= \(bound))")
                }
            }
            out += [
                "",
                "    // \(collection.pathTemplate)",
                "    match /\(matchPath) {",
                // A pull is a query over the collection: its read rule may depend on the path's uid only.
                "      allow read: if isOwner(uid);",
                "      allow create, update: if " + write.joined(separator: "\n        && ") + ";",
                "      allow delete: if " + (checks + ["isTombstoneOrMissing()"]).joined(separator: " && ") + ";",
                "    }",
            ]
        }
        out += ["  }", "}"]
        return out
    }
}
