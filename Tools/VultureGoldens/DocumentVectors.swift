import Foundation
import VultureConformance
import VultureReference
import VultureSchemaCore
import VultureSyncSchema

/// Field-merge payloads, tombstone writes and decoding with unknown fields (schema §2, §5.1, §5.4).
enum DocumentVectors {
    static func fixture(_ golden: DocumentGoldenDefinition) -> [String: FirestoreValue] { golden.fixture }

    static var file: VectorFile {
        var cases: [VectorDefinition] = []
        // Merge payloads: only changed fields plus the common fields, as a write with a mask (schema
        // §5.1), judged by its effect on the stored base: the agreed record as stored plus fields
        // this schema version does not know (Goldens/FORMAT.md, "Writes").
        func merge(
            _ id: String, _ golden: DocumentGoldenDefinition, _ edit: (inout [String: FirestoreValue]) -> Void,
            _ note: String, pins: [SchemaPin] = [],
            base adjust: (inout [String: FirestoreValue]) -> Void = { $0["glideRatio"] = .double(42.5) }
        ) {
            var f = DocumentGoldens.holdingId(golden)
            let agreed = f["record"] ?? .map([:])
            var local = agreed.mapValue ?? [:]
            edit(&local)
            var base = storedBase(collection: golden.collection, fixture: f)
            adjust(&base)
            f.removeValue(forKey: "record")
            f["agreed"] = agreed
            f["local"] = .map(local)
            for writer in Writer.allCases {
                cases.append(
                    VectorDefinition(
                        id: "merge-payload.\(id).\(writer.rawValue)", section: "schema §5.1", op: "merge.payload",
                        input: .map(["collection": .string(golden.collection), "fixture": .map(writer.writing(f))]),
                        note: note, pins: pins, base: base))
            }
        }
        merge(
            "flight.comments", DocumentGoldens.flight, { $0["comments"] = .string("Re-read the trace: 520 km.") },
            "one edited field: it and the common fields, nothing else")
        merge(
            "flight.favorite-and-rating", DocumentGoldens.flight,
            {
                $0["isFavorite"] = .boolean(false)
                $0["rating"] = .integer(4)
            }, "two edited fields")
        merge(
            "flight.clear", DocumentGoldens.flight, { $0["weglideFlightId"] = .null },
            "a cleared field is sent as null, not left out")
        merge(
            "flight.summary", DocumentGoldens.flight,
            { r in
                var s = r["summary"]?.mapValue ?? [:]
                s["analysisVersion"] = .integer(3)
                s["thermalAltitudeGained"] = .integer(9_702)
                r["summary"] = .map(s)
            }, "a changed nested map is replaced through its mask path (summary), never merged key by key",
            pins: [.mergeNestedMapWhole])
        merge(
            "flight.optional-removed", DocumentGoldens.flight,
            { r in
                var s = r["summary"]?.mapValue ?? [:]
                s.removeValue(forKey: "thermalAltitudeGained")
                r["summary"] = .map(s)
            },
            "an optional key removed from a nested map: summary is replaced through its mask path, so "
                + "summary.thermalAltitudeGained goes; a leaf merge (set(merge: true)) would leave the stored 9615 "
                + "behind",
            pins: [.mergeNestedMapWhole])
        merge(
            "flight.newer-fields-kept", DocumentGoldens.flight, { $0["comments"] = .string("Wave to 5,800 m.") },
            "the stored flight holds fields this version does not know (glideRatio, winglets); the merge write "
                + "masks what it changes and leaves them as stored (a full set would remove them)",
            base: { b in
                b["glideRatio"] = .double(42.5)
                b["winglets"] = .map(["span": .double(20.0), "since": ts("2026-05-01T00:00:00Z")])
            })
        merge(
            "settings.no-change", DocumentGoldens.settings, { _ in },
            "no setting changed: the common fields only; values is not sent (an empty values map in a merge is a "
                + "leaf and would wipe every stored setting, a newer version's keys among them)",
            base: { b in
                var values = b["values"]?.mapValue ?? [:]
                values["showAirspaceLabels"] = .map([
                    "v": .boolean(true), "t": .integer(1_790_000_000_000), "d": .string("android-9"),
                ])
                b["values"] = .map(values)
            })
        merge(
            "profile.storage-reserve", DocumentGoldens.profile,
            { r in
                // The reservation of another record: a map file's content (the golden's storageRef names the flight).
                r["storageRef"] = .map([
                    "collection": .string("mapFiles"), "id": .string(String(repeating: "c", count: 64)),
                ])
            },
            "a reservation moves storageBytes by $increment under the precondition exists: true: the stored "
                + "profile already counts another device's reservation (4,120 bytes more than this writer read), "
                + "which a value would overwrite, and on a missing profile the write fails instead of creating one",
            pins: [.profileNoCommonFields],
            base: { b in
                if case .integer(let before)? = DocumentGoldens.profile.fixture["storageBytesBefore"] {
                    b["storageBytes"] = .integer(before + 4_120)
                }
                b["glideRatio"] = nil
                b["plan"] = .string("pro")
            })
        merge("flight.no-change", DocumentGoldens.flight, { _ in }, "no change: the common fields only")
        merge(
            "homebase.used", DocumentGoldens.homebase, { $0["usedAt"] = ts("2026-04-19T07:45:00Z") },
            "a home base used again: usedAt")
        merge("task.notes", DocumentGoldens.task, { $0["notes"] = .null }, "task notes cleared")
        merge(
            "map-file.visibility", DocumentGoldens.mapFile, { $0["isVisible"] = .boolean(false) },
            "a map file hidden: isVisible only; its content map is unchanged and not sent")

        // Tombstones: a full replace with only the common fields (schema §5.4).
        for golden in [
            DocumentGoldens.flight, DocumentGoldens.task, DocumentGoldens.mapFile, DocumentGoldens.homebase,
            DocumentGoldens.recentCompetition,
        ] {
            var f = DocumentGoldens.holdingId(golden)
            f["record"] = nil
            f["tombstone"] = .boolean(true)
            if var c = f["context"]?.mapValue {
                c["deletedAt"] = ts("2026-11-02T12:00:00.500Z")
                f["context"] = .map(c)
            }
            if golden.collection == "mapFiles" || golden.collection == "homebases" {
                f["record"] = golden.fixture["record"]  // their ids come from record fields
            }
            for writer in Writer.allCases {
                cases.append(
                    VectorDefinition(
                        id: "tombstone.\(golden.name).\(writer.rawValue)", section: "schema §5.4", op: "encode",
                        input: .map([
                            "collection": .string(golden.collection), "form": .string("write"),
                            "fixture": .map(writer.writing(f)),
                        ]),
                        note: "deleted: true, deletedAt and the common fields; every other field removed",
                        pins: [.tombstoneFullReplace]))
            }
        }

        // An unknown content: contentHash written as null, never "" (schema §5.5), and no content map.
        var pending = DocumentGoldens.mapFile.fixture
        if var r = pending["record"]?.mapValue {
            r["contentHash"] = .string("")
            r["filename"] = .string("france.txt")
            pending["record"] = .map(r)
        }
        pending["content"] = nil
        pending = DocumentGoldens.holdingId(
            DocumentGoldenDefinition(name: "", section: "", collection: "mapFiles", fixture: pending, note: ""))
        for form in DocumentForm.allCases {
            for writer in Writer.allCases {
                cases.append(
                    VectorDefinition(
                        id: "encode.map-file-content-unknown.\(form.rawValue).\(writer.rawValue)",
                        section: "schema §5.5", op: "encode",
                        input: .map([
                            "collection": .string("mapFiles"), "form": .string(form.rawValue),
                            "fixture": .map(writer.writing(pending)),
                        ]),
                        note:
                            "a map file whose content is unknown: contentHash null, never \"\", and content null (a "
                            + "required nullable field is written as null, never left out)"))
            }
        }

        // Decoding with unknown fields: a reader keeps what it does not know (schema §2).
        func decode(
            _ id: String, _ golden: DocumentGoldenDefinition, _ extra: (inout [String: FirestoreValue]) -> Void,
            _ note: String, pins: [SchemaPin] = []
        ) {
            var doc = storedDocument(golden)
            extra(&doc)
            cases.append(
                VectorDefinition(
                    id: "decode.\(id)", section: "schema §2 common fields", op: "decode",
                    input: .map(["collection": .string(golden.collection), "document": .map(doc)]), note: note,
                    pins: pins))
        }
        decode(
            "flight.unknown-top-level", DocumentGoldens.flight, { $0["glideRatio"] = .double(42.5) },
            "a field from a newer version survives decode and encode")
        decode(
            "flight.unknown-nested", DocumentGoldens.flight,
            { d in
                var s = d["summary"]?.mapValue ?? [:]
                s["maximumAltitude"] = .integer(3_250)
                d["summary"] = .map(s)
            }, "an unknown key inside summary survives")
        decode(
            "flight.thermal-altitude-absent", DocumentGoldens.flight,
            { d in
                var s = d["summary"]?.mapValue ?? [:]
                s.removeValue(forKey: "thermalAltitudeGained")
                d["summary"] = .map(s)
            }, "thermalAltitudeGained absent (analysis version 1): not invented on the way back")
        decode(
            "settings.unknown-key", DocumentGoldens.settings,
            { d in
                var v = d["values"]?.mapValue ?? [:]
                v["showAirspaceLabels"] = .map([
                    "v": .boolean(true), "t": .integer(1_790_000_000_000), "d": .string("x"),
                ])
                d["values"] = .map(v)
            }, "a settings key from a newer version survives")
        decode(
            "task.unknown-in-turnpoint", DocumentGoldens.task,
            { d in
                guard case .array(var tps)? = d["turnpoints"], var first = tps.first?.mapValue else { return }
                first["ident"] = .string("AAC")
                tps[0] = .map(first)
                d["turnpoints"] = .array(tps)
            }, "an unknown key inside an array element survives")
        decode(
            "flight.ios-without-android-fields", DocumentGoldens.flight,
            { d in
                // What an iOS writer that never heard of these nullable fields stores (iOS has no taskId, …).
                for key in ["taskId", "weglideFlightId", "skylinesFlightId"] { d.removeValue(forKey: key) }
            },
            "a reader treats an absent field as null and writes it back as null (taskId, weglideFlightId, "
                + "skylinesFlightId): decode is not the identity",
            pins: [.presenceMeaning])
        decode(
            "flight.absent-defaults", DocumentGoldens.flight,
            { d in
                for key in ["rating", "waterBallast", "isRead"] { d.removeValue(forKey: key) }
            },
            "an absent non-nullable field reads as its default and is written back so (rating 0, waterBallast 0, "
                + "isRead false)",
            pins: [.fieldDefaults])
        // Decoding refuses what a reader cannot read: each stored document breaks one rule, and decode
        // must answer its rule id (a decode that accepts anything fails these).
        func decodeInvalid(
            _ id: String, _ section: String, _ golden: DocumentGoldenDefinition,
            _ change: (inout [String: FirestoreValue]) -> Void, _ note: String, error: String, pins: [SchemaPin] = []
        ) {
            var doc = storedDocument(golden)
            change(&doc)
            cases.append(
                VectorDefinition(
                    id: "decode.invalid.\(id)", section: section, op: "decode",
                    input: .map(["collection": .string(golden.collection), "document": .map(doc)]), note: note,
                    expectedError: error, pins: pins))
        }
        func inSummary(_ key: String, _ value: FirestoreValue) -> (inout [String: FirestoreValue]) -> Void {
            { d in
                var s = d["summary"]?.mapValue ?? [:]
                s[key] = value
                d["summary"] = .map(s)
            }
        }
        decodeInvalid(
            "integer-as-double", "schema §2 flights", DocumentGoldens.flight, inSummary("duration", .double(21_584)),
            "summary.duration is an integer (s): 21584.0 is refused, not rounded", error: "schema.type")
        decodeInvalid(
            "null-not-nullable", "schema §2 flights", DocumentGoldens.flight, { $0["inLogbook"] = .null },
            "inLogbook is not nullable: null is refused, not read as false", error: "schema.type")
        decodeInvalid(
            "enum", "schema §2 common fields", DocumentGoldens.flight, { $0["platform"] = .string("windows") },
            "platform is android or ios", error: "schema.enum")
        decodeInvalid(
            "missing-updated-at", "schema §2 common fields", DocumentGoldens.flight,
            { $0.removeValue(forKey: "updatedAt") },
            "updatedAt (the pull cursor) has neither a value nor a default", error: "schema.missing-field")
        decodeInvalid(
            "summary-missing", "schema §2 flights", DocumentGoldens.flight, { $0.removeValue(forKey: "summary") },
            "summary is a required map without a default (pin summaryRequired)", error: "schema.missing-field",
            pins: [.summaryRequired])
        decodeInvalid(
            "comments-too-long", "schema §3", DocumentGoldens.flight,
            { $0["comments"] = .string(String(repeating: "x", count: 10_001)) },
            "comments hold at most 10,000 characters", error: "schema.limit")
        decodeInvalid(
            "igc-sha256-not-hex", "schema §2 flights", DocumentGoldens.flight,
            { d in
                var igc = d["igc"]?.mapValue ?? [:]
                igc["sha256"] = .string("62A3995E")
                d["igc"] = .map(igc)
            }, "igc.sha256 is 64 lowercase hex characters", error: "schema.limit")
        decodeInvalid(
            "date-string", "schema §2 recentCompetitions", DocumentGoldens.recentCompetition,
            { $0["startDate"] = .string("25/07/2026") }, "calendar days are yyyy-MM-dd", error: "schema.format")
        decodeInvalid(
            "zone-type-outside", "schema §2 tasks", DocumentGoldens.task,
            { d in
                guard case .array(var tps)? = d["turnpoints"], var tp = tps.first?.mapValue,
                    var zone = tp["zone"]?.mapValue
                else { return }
                zone["type"] = .integer(7)
                tp["zone"] = .map(zone)
                tps[0] = .map(tp)
                d["turnpoints"] = .array(tps)
            }, "a zone type inside a turnpoint is a CUP style 0-4: 7 is none", error: "schema.enum")
        decodeInvalid(
            "sentinel", "schema §2 common fields", DocumentGoldens.flight, { $0["updatedAt"] = .serverTimestamp },
            "a stored document holds no write sentinel", error: "value.sentinel-in-stored-form")
        decodeInvalid(
            "live-deleted-at", "schema §5.4", DocumentGoldens.flight,
            { $0["deletedAt"] = ts("2026-11-02T12:00:00.500Z") },
            "deleted false with a deletedAt: only a tombstone has deletedAt", error: "schema.null-unless",
            pins: [.deletedAtOnlyTombstones])
        return VectorFile(
            area: "documents",
            summary: "merge payloads, tombstone writes, decoding with unknown fields and of invalid documents",
            cases: cases)
    }

    /// The stored document a merge write is judged on: the fixture's record (the agreed one) as the
    /// reference stores it.
    static func storedBase(collection: String, fixture: [String: FirestoreValue]) -> [String: FirestoreValue] {
        guard let stored = try? DocumentFixture(collection: collection, fixture: fixture).encode(form: .stored) else {
            fatalError("the agreed record of a \(collection) merge case does not encode")
        }
        return stored.document
    }

    /// The stored form of a golden's fixture, encoded by the reference.
    static func storedDocument(_ golden: DocumentGoldenDefinition) -> [String: FirestoreValue] {
        (try? DocumentEncoderAccess.encode(golden, form: .stored)) ?? [:]
    }
}
