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
            "// under the cap unless the token's \(proClaim) claim holds '\(proEntitlement)'; a tombstone holds only the",
            "// common fields. Accepted gaps: a record's blob map can change without storageBytes moving",
            "// (a map file sharing its content object with another counts it once), and a shared content",
            "// object's tombstone is not checked against the other documents that share it.",
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
            "    // The counted gzBytes of a record's blob map: 0 for a tombstone or no map.",
            "    function blobBytes(record, field) {",
            "      return record.data.get('deleted', false) == true || record.data.get(field, null) == null",
            "        ? 0 : record.data.get(field, null).get('gzBytes', 0);",
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
