import Foundation
import VultureSyncSchema

/// Field-merge payloads, tombstone writes and decoding with unknown fields (schema §2, §5.1, §5.4).
enum DocumentVectors {
    static func fixture(_ golden: DocumentGoldenDefinition) -> [String: FirestoreValue] { golden.fixture }

    static var file: VectorFile {
        var cases: [VectorDefinition] = []
        // Merge payloads: only changed fields plus the common fields (schema §5.1).
        func merge(
            _ id: String, _ golden: DocumentGoldenDefinition, _ edit: (inout [String: FirestoreValue]) -> Void,
            _ note: String
        ) {
            var f = golden.fixture
            let agreed = f["record"] ?? .map([:])
            var local = agreed.mapValue ?? [:]
            edit(&local)
            f.removeValue(forKey: "record")
            f["agreed"] = agreed
            f["local"] = .map(local)
            cases.append(
                VectorDefinition(
                    id: "required.merge-payload.\(id)", section: "schema §5.1", op: "merge.payload",
                    input: .map(["collection": .string(golden.collection), "fixture": .map(f)]), note: note))
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
            }, "pinned: a changed nested map is sent whole")
        merge(
            "flight.optional-removed", DocumentGoldens.flight,
            { r in
                var s = r["summary"]?.mapValue ?? [:]
                s.removeValue(forKey: "thermalAltitudeGained")
                r["summary"] = .map(s)
            }, "an optional key removed from a nested map: the map is sent whole without it")
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
            var f = golden.fixture
            f["record"] = nil
            f["tombstone"] = .boolean(true)
            if var c = f["context"]?.mapValue {
                c["deletedAt"] = ts("2026-11-02T12:00:00.500Z")
                f["context"] = .map(c)
            }
            if golden.collection == "mapFiles" || golden.collection == "homebases" {
                f["record"] = golden.fixture["record"]  // their ids come from record fields
            }
            cases.append(
                VectorDefinition(
                    id: "required.tombstone.\(golden.name)", section: "schema §5.4", op: "encode",
                    input: .map([
                        "collection": .string(golden.collection), "form": .string("write"), "fixture": .map(f),
                    ]),
                    note: "deleted: true, deletedAt and the common fields; every other field removed"))
        }

        // An unknown content: contentHash written as null, never "" (schema §5.5), and no content map.
        var pending = DocumentGoldens.mapFile.fixture
        if var r = pending["record"]?.mapValue {
            r["contentHash"] = .string("")
            r["filename"] = .string("france.txt")
            pending["record"] = .map(r)
        }
        pending["content"] = nil
        for form in DocumentForm.allCases {
            cases.append(
                VectorDefinition(
                    id: "required.encode.map-file-content-unknown.\(form.rawValue)", section: "schema §5.5",
                    op: "encode",
                    input: .map([
                        "collection": .string("mapFiles"), "form": .string(form.rawValue), "fixture": .map(pending),
                    ]),
                    note: "a map file whose content is unknown: contentHash null, never \"\", and content null"))
        }

        // Decoding with unknown fields: a reader keeps what it does not know (schema §2).
        func decode(
            _ id: String, _ golden: DocumentGoldenDefinition, _ extra: (inout [String: FirestoreValue]) -> Void,
            _ note: String
        ) {
            var doc = storedDocument(golden)
            extra(&doc)
            cases.append(
                VectorDefinition(
                    id: "required.decode.\(id)", section: "schema §2 common fields", op: "decode",
                    input: .map(["collection": .string(golden.collection), "document": .map(doc)]), note: note))
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
        return VectorFile(
            area: "documents", summary: "merge payloads, tombstone writes, decoding with unknown fields", cases: cases)
    }

    /// The stored form of a golden's fixture, encoded by the reference.
    static func storedDocument(_ golden: DocumentGoldenDefinition) -> [String: FirestoreValue] {
        (try? DocumentEncoderAccess.encode(golden, form: .stored)) ?? [:]
    }
}
