import Foundation
import VultureConformance
import VultureReference
import VultureSchemaCore
import VultureSyncSchema

/// Invalid documents, each breaking one rule; the case names the rule id a validator must report
/// (schema §2 fields and limits, §5.4 tombstones, Goldens/FORMAT.md forms).
enum InvalidDocumentVectors {
    static var file: VectorFile {
        let flightStored = DocumentVectors.storedDocument(DocumentGoldens.flight)
        let flightWrite = (try? DocumentEncoderAccess.encode(DocumentGoldens.flight, form: .write)) ?? [:]
        let settingsStored = DocumentVectors.storedDocument(DocumentGoldens.settings)
        let taskStored = DocumentVectors.storedDocument(DocumentGoldens.task)
        let recentStored = DocumentVectors.storedDocument(DocumentGoldens.recentCompetition)
        let tombstone = (try? DocumentEncoderAccess.encode(DocumentGoldens.tombstone, form: .stored)) ?? [:]
        let profileWrite = (try? DocumentEncoderAccess.encode(DocumentGoldens.profile, form: .write)) ?? [:]
        var cases: [VectorDefinition] = []
        func add(
            _ id: String, _ section: String, collection: String, form: DocumentForm, strict: Bool = false,
            merge: Bool = false, _ base: [String: FirestoreValue], _ mutate: (inout [String: FirestoreValue]) -> Void,
            _ note: String, error: String?, pins: [SchemaPin] = []
        ) {
            var doc = base
            mutate(&doc)
            var input: [String: FirestoreValue] = [
                "collection": .string(collection), "form": .string(form.rawValue), "document": .map(doc),
            ]
            if strict { input["strict"] = .boolean(true) }
            if merge { input["merge"] = .boolean(true) }
            cases.append(
                VectorDefinition(
                    id: "invalid.\(id)", section: section, op: "validate", input: .map(input), note: note,
                    expectedError: error, pins: pins))
        }
        func summary(_ d: inout [String: FirestoreValue], _ key: String, _ v: FirestoreValue?) {
            var s = d["summary"]?.mapValue ?? [:]
            s[key] = v
            d["summary"] = .map(s)
        }
        add(
            "valid.flight-stored", "schema §2 flights", collection: "flights", form: .stored, flightStored, { _ in },
            "the golden flight itself is valid", error: nil)
        add(
            "valid.flight-write", "schema §2 flights", collection: "flights", form: .write, flightWrite, { _ in },
            "and so is its write form", error: nil)
        add(
            "unknown-field.lenient", "schema §2 common fields", collection: "flights", form: .stored, flightStored,
            { $0["waterBalast"] = .integer(0) },
            "a field the schema does not know is a warning for a reader (answered with warnings)", error: nil)
        add(
            "unknown-field.strict", "schema §2 flights", collection: "flights", form: .stored, strict: true,
            flightStored,
            { $0["waterBalast"] = .integer(0) }, "with --strict it is an error (the iOS spelling waterBalast)",
            error: "schema.unknown-field")
        add(
            "missing-field.write", "schema §2 flights", collection: "flights", form: .write, flightWrite,
            { $0.removeValue(forKey: "taskId") },
            "a full write lists every field: a nullable field without a value is written as null, not left out "
                + "(Goldens/FORMAT.md)",
            error: "schema.missing-field", pins: [.presenceMeaning])
        add(
            "missing-field.stored", "schema §2 common fields", collection: "flights", form: .stored, flightStored,
            { $0.removeValue(forKey: "updatedAt") },
            "a stored document without updatedAt: a reader has neither a value nor a default for it (the pull "
                + "cursor)", error: "schema.missing-field")
        add(
            "valid.stored-nullable-absent", "schema §2 common fields", collection: "flights", form: .stored,
            flightStored,
            { d in
                // What Google's SDKs store for a dictionary whose None values were dropped, and what an iOS
                // writer that never heard of these fields stores.
                for key in ["deletedAt", "taskId", "skylinesFlightId"] { d.removeValue(forKey: key) }
            },
            "a reader treats an absent nullable field as null (Goldens/FORMAT.md): a stored document without "
                + "deletedAt, taskId and skylinesFlightId is valid; only a full write lists every field",
            error: nil, pins: [.presenceMeaning])
        add(
            "valid.stored-default-absent", "schema §2 flights", collection: "flights", form: .stored, flightStored,
            { d in
                for key in ["rating", "waterBallast", "isRead"] { d.removeValue(forKey: key) }
            },
            "a reader reads an absent non-nullable field as its default (rating 0, waterBallast 0, isRead false), "
                + "as decode does: valid in the stored form", error: nil, pins: [.fieldDefaults])
        add(
            "integer-for-double", "schema §2 flights", collection: "flights", form: .stored, flightStored,
            { summary(&$0, "optimizedDistance", .integer(512_437)) }, "summary.optimizedDistance is a double (m)",
            error: "schema.type")
        add(
            "double-for-integer", "schema §2 flights", collection: "flights", form: .stored, flightStored,
            { summary(&$0, "duration", .double(21_584)) }, "summary.duration is an integer (s)", error: "schema.type")
        add(
            "null-not-nullable", "schema §2 flights", collection: "flights", form: .stored, flightStored,
            { $0["inLogbook"] = .null },
            "inLogbook is not nullable", error: "schema.null")
        add(
            "enum", "schema §2 common fields", collection: "flights", form: .stored, flightStored,
            { $0["platform"] = .string("windows") },
            "platform is android or ios", error: "schema.enum")
        add(
            "comments-too-long", "schema §3", collection: "flights", form: .stored, flightStored,
            { $0["comments"] = .string(String(repeating: "x", count: 10_001)) }, "comments ≤ 10,000 characters",
            error: "schema.max-chars")
        add(
            "valid.comments-astral-at-limit", "schema §3", collection: "flights", form: .stored, flightStored,
            { $0["comments"] = .string(String(repeating: "\u{1F6E9}", count: 10_000)) },
            "10,000 × U+1F6E9 (an airplane, 2 UTF-16 units each): 10,000 code points, at the limit: valid; a count "
                + "in UTF-16 units (20,000) is wrong",
            error: nil, pins: [.charCount])
        add(
            "comments-too-long-combining", "schema §3", collection: "flights", form: .stored, flightStored,
            { $0["comments"] = .string(String(repeating: "e\u{301}", count: 5_000) + "x") },
            "5,000 × e + U+0301 and an x: 10,001 code points in 5,001 characters as a reader sees them: over the "
                + "limit; a count of grapheme clusters is wrong",
            error: "schema.max-chars", pins: [.charCount])
        add(
            "track-preview-too-large", "schema §3", collection: "flights", form: .stored, flightStored,
            { $0["trackPreview"] = .bytes(Data(count: 64_001)) }, "trackPreview ≤ 64 KB (pinned: 64,000 bytes)",
            error: "schema.max-bytes", pins: [.decimalSizes])
        add(
            "igc-sha256-not-hex", "schema §2 flights", collection: "flights", form: .stored, flightStored,
            { d in
                var igc = d["igc"]?.mapValue ?? [:]
                igc["sha256"] = .string("62A3995E")
                d["igc"] = .map(igc)
            }, "igc.sha256 is 64 lowercase hex characters", error: "schema.hex-length")
        // Blob sizes (schema §2 Storage objects; limits.tsv storageObjectMaxBytes, igcImportMaxRawBytes).
        func blob(_ field: String, _ d: inout [String: FirestoreValue], _ key: String, _ v: FirestoreValue) {
            var m = d[field]?.mapValue ?? [:]
            m[key] = v
            d[field] = .map(m)
        }
        add(
            "igc-gz-bytes-over-32mib", "schema §2 Storage objects", collection: "flights", form: .stored,
            flightStored, { blob("igc", &$0, "gzBytes", .integer(33_554_433)) },
            "igc.gzBytes is the size of one Storage object, at most 32 MB: 33,554,433 bytes is over the cap in "
                + "either reading of MB (32,000,000 or 33,554,432)", error: "schema.range")
        add(
            "igc-gz-bytes-over-32mb", "schema §2 Storage objects", collection: "flights", form: .stored,
            flightStored, { blob("igc", &$0, "gzBytes", .integer(SchemaLimits.storageObjectMaxBytes + 1)) },
            "32 MB is pinned as 32,000,000 bytes: one byte more is refused", error: "schema.range",
            pins: [.decimalSizes])
        add(
            "valid.igc-gz-bytes-at-cap", "schema §2 Storage objects", collection: "flights", form: .stored,
            flightStored, { blob("igc", &$0, "gzBytes", .integer(SchemaLimits.storageObjectMaxBytes)) },
            "igc.gzBytes 32,000,000, at the pinned cap: valid", error: nil, pins: [.decimalSizes])
        add(
            "igc-size-bytes-over-64mib", "schema §2 Storage objects", collection: "flights", form: .stored,
            flightStored, { blob("igc", &$0, "sizeBytes", .integer(SchemaLimits.igcImportMaxRawBytes + 1)) },
            "igc.sizeBytes is the IGC file's size before gzip, at most the 64 MiB import cap (67,108,864 bytes)",
            error: "schema.range")
        // Storage paths (schema §2: users/{uid}/igc/{flightId}.igc.gz; fields.tsv limit storagePath). The
        // document's path is not part of a validate case: {uid} is any uid, {flightId} the id igc.sha256 gives.
        let flightId: String = {
            if case .string(let s)? = flightStored["igc"]?.mapValue?["sha256"] { return s }
            return ""
        }()
        let igcPath = (try? BlobPaths.igcObjectPath(uid: "u1", flightId: flightId)) ?? ""
        let otherFlightPath =
            (try? BlobPaths.igcObjectPath(uid: "u1", flightId: String(repeating: "0", count: 64))) ?? ""
        for (id, path, note) in [
            (
                "igc-path-without-users-prefix", igcPath.split(separator: "/").dropFirst(2).joined(separator: "/"),
                "the object lives under users/{uid}/"
            ),
            (
                "igc-path-wrong-extension", String(igcPath.dropLast(3)),
                "the object is the gzipped file: {flightId}.igc.gz"
            ),
            (
                "igc-path-uppercase-hash", igcPath.replacingOccurrences(of: flightId, with: flightId.uppercased()),
                "the flight id in the path is lowercase hex"
            ),
            (
                "igc-path-other-flight", otherFlightPath,
                "the path names this flight's id (igc.sha256), not another flight's"
            ),
        ] {
            add(
                id, "schema §2 Storage objects", collection: "flights", form: .stored, flightStored,
                { blob("igc", &$0, "path", .string(path)) }, note, error: "schema.storage-path")
        }
        add(
            "valid.igc-path-any-uid", "schema §2 Storage objects", collection: "flights", form: .stored, flightStored,
            { blob("igc", &$0, "path", .string(igcPath)) },
            "without the document's path any uid is this document's uid: users/u1/igc/{flightId}.igc.gz is valid",
            error: nil)
        add(
            "valid.igc-size-bytes-at-cap", "schema §2 Storage objects", collection: "flights", form: .stored,
            flightStored, { blob("igc", &$0, "sizeBytes", .integer(SchemaLimits.igcImportMaxRawBytes)) },
            "igc.sizeBytes 67,108,864 (64 MiB), at the import cap: valid", error: nil)
        add(
            "updated-at-client-time", "schema §2 common fields", collection: "flights", form: .write, flightWrite,
            { $0["updatedAt"] = ts("2026-10-21T08:15:42.004Z") },
            "in the write form updatedAt is the server-timestamp sentinel", error: "schema.server-timestamp")
        add(
            "sentinel-in-stored-form", "schema §2 common fields", collection: "flights", form: .stored, flightStored,
            { $0["updatedAt"] = .serverTimestamp },
            "a stored document has no sentinels", error: "value.sentinel-in-stored-form")
        add(
            "tombstone-keeps-fields", "schema §5.4", collection: "flights", form: .stored, tombstone,
            { $0["comments"] = .string("stale") },
            "a tombstone keeps only the common fields and deletedAt", error: "schema.tombstone")
        add(
            "tombstone-without-deleted-at", "schema §5.4", collection: "flights", form: .stored, tombstone,
            { $0["deletedAt"] = .null },
            "a tombstone carries deletedAt", error: "schema.tombstone")
        let lateDelete = ts("2026-11-02T12:00:00.500Z")
        add(
            "live-deleted-at.stored", "schema §5.4", collection: "flights", form: .stored, flightStored,
            { $0["deletedAt"] = lateDelete },
            "deleted false with a deletedAt: only a tombstone has deletedAt (the purge's query deletedAt < cutoff "
                + "would delete this live flight)", error: "schema.null-unless", pins: [.deletedAtOnlyTombstones])
        add(
            "live-deleted-at.write", "schema §5.4", collection: "flights", form: .write, flightWrite,
            { $0["deletedAt"] = lateDelete }, "the same in a full write", error: "schema.null-unless",
            pins: [.deletedAtOnlyTombstones])
        add(
            "live-deleted-at.deleted-absent", "schema §5.4", collection: "flights", form: .stored, flightStored,
            { d in
                d.removeValue(forKey: "deleted")
                d["deletedAt"] = lateDelete
            }, "deleted absent reads as false: a deletedAt beside it is refused too", error: "schema.null-unless",
            pins: [.deletedAtOnlyTombstones])
        let homebaseStored = DocumentVectors.storedDocument(DocumentGoldens.homebase)
        add(
            "homebase-name-null", "schema §2 homebases", collection: "homebases", form: .stored, homebaseStored,
            { $0["name"] = .null }, "a home base's name is its key (the id hashes it): never null",
            error: "schema.null", pins: [.homebaseNameRequired])
        add(
            "homebase-name-absent", "schema §2 homebases", collection: "homebases", form: .stored, homebaseStored,
            { $0.removeValue(forKey: "name") },
            "nor absent: a reader has neither a value nor a default for it", error: "schema.missing-field",
            pins: [.homebaseNameRequired])
        add(
            "date-string", "schema §2 recentCompetitions", collection: "recentCompetitions", form: .stored,
            recentStored,
            { $0["startDate"] = .string("25/07/2026") }, "calendar days are yyyy-MM-dd", error: "schema.date-string")
        add(
            "turnpoints-too-many", "schema §3", collection: "tasks", form: .stored, taskStored,
            { d in
                guard case .array(let tps)? = d["turnpoints"], let first = tps.first else { return }
                d["turnpoints"] = .array(Array(repeating: first, count: 101))
            }, "turnpoints ≤ 100", error: "schema.max-items")
        add(
            "zone-type", "schema §2 tasks", collection: "tasks", form: .stored, taskStored,
            { d in
                guard case .array(var tps)? = d["turnpoints"], var tp = tps.first?.mapValue,
                    var zone = tp["zone"]?.mapValue
                else { return }
                zone["type"] = .string("symmetric")
                tp["zone"] = .map(zone)
                tps[0] = .map(tp)
                d["turnpoints"] = .array(tps)
            }, "a zone type is the CUP style integer, not its name", error: "schema.enum")
        add(
            "settings-unit-id", "schema §2 settings/synced", collection: "settings", form: .stored, settingsStored,
            { d in
                var v = d["values"]?.mapValue ?? [:]
                v["speedUnit"] = .map(["v": .integer(2), "t": .integer(1), "d": .string("x")])
                d["values"] = .map(v)
            }, "units are unit ids, not iOS indexes", error: "schema.type")
        add(
            "settings-range", "schema §2 settings/synced", collection: "settings", form: .stored, settingsStored,
            { d in
                var v = d["values"]?.mapValue ?? [:]
                v["flarmLoggerInterval"] = .map(["v": .integer(9), "t": .integer(1), "d": .string("x")])
                d["values"] = .map(v)
            }, "flarmLoggerInterval is 1…8 s", error: "schema.range")
        add(
            "storage-bytes-negative", "schema §2 users/{uid}", collection: "users", form: .write, profileWrite,
            { $0["storageBytes"] = .integer(-5) }, "storageBytes is never negative", error: "schema.range")
        add(
            "storage-bytes-increment-double", "schema §2 users/{uid}", collection: "users", form: .write, profileWrite,
            { $0["storageBytes"] = .increment(.double(1.5)) }, "storageBytes moves by an integer increment",
            error: "schema.sentinel")
        // Merge writes (validate with merge: true): the common fields plus the changed ones (schema §5.1).
        let common = Set(SyncSchema.vulture.fields(of: SyncSchema.commonFieldsOwner).map(\.name))
        let mergeWrite = flightWrite.filter { common.contains($0.key) }.merging([
            "comments": .string("Re-read the trace: 520 km.")
        ]) { a, _ in a }
        add(
            "valid.merge-write", "schema §5.1", collection: "flights", form: .write, merge: true, mergeWrite, { _ in },
            "a merge write holds the common fields and the changed ones: valid with merge: true", error: nil)
        add(
            "merge-write-as-full-write", "schema §5.1", collection: "flights", form: .write, mergeWrite, { _ in },
            "the same write checked as a full write (no merge) lacks the other fields", error: "schema.missing-field")
        add(
            "merge-write-without-common-fields", "schema §5.1", collection: "flights", form: .write, merge: true,
            ["comments": .string("x")], { _ in }, "a merge write carries the common fields",
            error: "schema.missing-field")
        add(
            "merge-write-deletes-required", "schema §5.1", collection: "flights", form: .write, merge: true,
            mergeWrite, { $0["comments"] = .delete },
            "a merge write clears a required field with null, never removes it with $delete", error: "schema.sentinel")
        add(
            "merge-write-tombstone", "schema §5.4", collection: "flights", form: .write, merge: true, mergeWrite,
            { d in
                d["deleted"] = .boolean(true)
                d["deletedAt"] = ts("2026-11-02T12:00:00.500Z")
            }, "a tombstone is a full replace, not a merge write", error: "schema.tombstone",
            pins: [.tombstoneFullReplace])

        // The map file whose content is unknown, as the encoder writes it: content is null, and it validates.
        let contentUnknown = Self.contentUnknownMapFile()
        add(
            "valid.map-file-content-unknown", "schema §5.5", collection: "mapFiles", form: .stored, contentUnknown,
            { _ in }, "content and contentHash null: the golden's own stored document is valid", error: nil)
        let contentUnknownWrite = Self.contentUnknownMapFile(form: .write)
        add(
            "map-file-content-left-out", "schema §2 mapFiles", collection: "mapFiles", form: .write,
            contentUnknownWrite, { $0.removeValue(forKey: "content") },
            "content is required and nullable: a full write writes it as null, never leaves it out "
                + "(Goldens/FORMAT.md)",
            error: "schema.missing-field", pins: [.presenceMeaning])
        add(
            "valid.map-file-content-absent-stored", "schema §2 mapFiles", collection: "mapFiles", form: .stored,
            contentUnknown, { $0.removeValue(forKey: "content") },
            "a stored map file without content reads as content null (no blob on this side): valid",
            error: nil, pins: [.presenceMeaning])
        let mapFileStored = DocumentVectors.storedDocument(DocumentGoldens.mapFile)
        add(
            "map-file-gz-bytes-over-32mib", "schema §2 Storage objects", collection: "mapFiles", form: .stored,
            mapFileStored, { blob("content", &$0, "gzBytes", .integer(33_554_433)) },
            "content.gzBytes is one Storage object's size too, at most 32 MB whichever reading of MB",
            error: "schema.range")
        add(
            "map-file-gz-bytes-over-32mb", "schema §2 Storage objects", collection: "mapFiles", form: .stored,
            mapFileStored, { blob("content", &$0, "gzBytes", .integer(SchemaLimits.storageObjectMaxBytes + 1)) },
            "and pinned as 32,000,000 bytes", error: "schema.range", pins: [.decimalSizes])
        add(
            "map-file-content-path-other-hash", "schema §2 Storage objects", collection: "mapFiles", form: .stored,
            mapFileStored,
            { d in
                let other = String(repeating: "ab", count: 32)
                blob(
                    "content", &d, "path",
                    .string((try? BlobPaths.contentObjectPath(uid: "u1", contentHash: other)) ?? ""))
            },
            "content.path names the document's contentHash: users/{uid}/files/{contentHash}.gz",
            error: "schema.storage-path")
        add(
            "map-file-content-path-igc-folder", "schema §2 Storage objects", collection: "mapFiles", form: .stored,
            mapFileStored,
            { d in
                guard case .string(let hash)? = d["contentHash"] else { return }
                // The IGC folder with the content object's name: {contentHash}.gz.
                let igc = (try? BlobPaths.igcObjectPath(uid: "u1", flightId: hash)) ?? ""
                let name = (try? BlobPaths.contentObjectPath(uid: "u1", contentHash: hash))?.split(separator: "/").last
                blob(
                    "content", &d, "path",
                    .string(igc.split(separator: "/").dropLast().joined(separator: "/") + "/" + (name ?? "")))
            }, "a map file's content is under files/, not igc/", error: "schema.storage-path")
        return VectorFile(
            area: "invalid-documents", summary: "documents that each break one rule, named by its rule id", cases: cases
        )
    }

    /// The document of the map file whose content is unknown (the encode case of the documents area), in `form`.
    static func contentUnknownMapFile(form: DocumentForm = .stored) -> [String: FirestoreValue] {
        var fixture = DocumentGoldens.mapFile.fixture
        if var r = fixture["record"]?.mapValue {
            r["contentHash"] = .string("")
            r["filename"] = .string("france.txt")
            fixture["record"] = .map(r)
        }
        fixture["content"] = nil
        return (try? DocumentFixture(collection: "mapFiles", fixture: fixture).encode(form: form).document) ?? [:]
    }
}
