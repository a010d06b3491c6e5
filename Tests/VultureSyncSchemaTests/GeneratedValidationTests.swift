import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

/// The straight-line checks generated from Spec/ (`Generated/DocumentValidation.swift`) say "valid"
/// exactly when the table walk finds nothing to report, on every golden and fixture document and on
/// thousands of seeded mutations of them in every form; and the validator's verdicts are those of the
/// table walk alone.
@Suite struct GeneratedValidationTests {
    /// The same tables, not marked as generated: the validator walks them for every document.
    static let tablesOnly = SchemaValidator(
        schema: SyncSchema(
            collections: SyncSchema.vulture.collections, fields: SyncSchema.vulture.fields,
            enums: SyncSchema.vulture.enums, settingsKeys: SyncSchema.vulture.settingsKeys,
            unitTables: SyncSchema.vulture.unitTables))
    static let generated = SchemaValidator(schema: .vulture)

    static let optionSets: [ValidationOptions] = [
        ValidationOptions(form: .stored), ValidationOptions(form: .stored, strict: true),
        ValidationOptions(form: .write),
        ValidationOptions(form: .write, mergeWrite: true),
        ValidationOptions(form: .write, strict: true, mergeWrite: true),
    ]

    /// Every golden document (both forms) and every JSON Schema fixture, with its document type.
    static func documents() throws -> [(type: String, fields: [String: FirestoreValue])] {
        var out: [(String, [String: FirestoreValue])] = []
        let root = IdsTestSupport.packageRoot.appendingPathComponent("Goldens")
        let names = ["flight", "task", "mapFile", "homebase", "recentCompetition", "settings", "profile", "tombstone"]
        // One document golden per platform (Goldens 1.1.0: flight.android.json, flight.ios.json).
        for name in names.flatMap({ ["\($0).android", "\($0).ios"] }) {
            let golden = try CanonicalJSON.decode(Data(contentsOf: root.appendingPathComponent("schema/\(name).json")))
            guard case .string(let collection)? = golden[fieldPath: "collection"],
                let type = SyncSchema.vulture.collection(named: collection)?.documentType
            else { continue }
            for form in ["stored", "write"] {
                if let doc = golden[fieldPath: form]?.mapValue { out.append((type, doc)) }
            }
        }
        let fixtures = root.appendingPathComponent("jsonschema/fixtures")
        for kind in ["valid", "invalid"] {
            let folder = fixtures.appendingPathComponent(kind)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
                let collection = String(file.prefix { $0 != "." })
                guard let type = SyncSchema.vulture.collection(named: collection)?.documentType,
                    let doc = try CanonicalJSON.decode(Data(contentsOf: folder.appendingPathComponent(file))).mapValue
                else { continue }
                out.append((type, doc))
            }
        }
        return out
    }

    /// Values that break or meet the rules of most fields: every type, sentinels, limits' edges,
    /// near-miss enum and unit spellings (a Kelvin sign for K is `==` to K but not the same scalars).
    static let palette: [FirestoreValue] = [
        .null, .boolean(true), .integer(0), .integer(-1), .integer(1), .integer(101), .integer(50_000),
        .integer(.max), .double(0), .double(-0.5), .double(0.5), .double(100), .double(-90), .double(91),
        .double(180.5), .double(.nan), .double(.infinity), .double(250), .string(""), .string("glider"),
        .string("GLIDER"), .string("kph"), .string("\u{212A}ph"), .string("m"), .string("android"), .string("ios"),
        .string("2026-02-29"), .string("2024-02-29"), .string(String(repeating: "é", count: 10_001)),
        .string(String(repeating: "e", count: 10_000)), .string(String(repeating: "a", count: 64)),
        .string(String(repeating: "é", count: 10_000)), .string(String(repeating: "😀", count: 9_999) + "ab"),
        .string(String(repeating: "€", count: 10_000) + "\u{301}"),
        .string("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
        .string("0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"),
        .timestamp(try! FirestoreTimestamp(seconds: 1_792_504_987)), .bytes(Data(count: 3)),
        .bytes(Data(count: 64_001)), .serverTimestamp, .increment(.integer(1)), .increment(.double(1)), .delete,
        .array([]), .array([.string("android")]), .array([.string("windows")]), .map([:]), .map(["x": .integer(1)]),
        .geoPoint(GeoPoint(latitude: 1, longitude: 2)),
    ]

    /// One random change to a document: a field set to a palette value, removed, added, or a change
    /// one level down in a nested map, array element or settings entry.
    static func mutate(_ doc: [String: FirestoreValue], using rng: inout SplitMix64) -> [String: FirestoreValue] {
        var m = doc
        let keys = m.keys.sorted()
        guard let key = keys.randomElement(using: &rng) else {
            m["unknownField"] = .integer(1)
            return m
        }
        switch Int.random(in: 0..<16, using: &rng) {
        case 10...15: m[key] = nudge(m[key]!, using: &rng)
        case 0: m.removeValue(forKey: key)
        case 1: m["pilotNam"] = palette.randomElement(using: &rng)!
        case 2, 3, 4:
            switch m[key] {
            case .map(let inner)?: m[key] = .map(mutate(inner, using: &rng))
            case .array(let a)? where !a.isEmpty:
                var a = a
                let k = Int.random(in: 0..<a.count, using: &rng)
                if case .map(let inner) = a[k] {
                    a[k] = .map(mutate(inner, using: &rng))
                } else {
                    a[k] = palette.randomElement(using: &rng)!
                }
                m[key] = .array(a)
            default: m[key] = palette.randomElement(using: &rng)!
            }
        default: m[key] = palette.randomElement(using: &rng)!
        }
        return m
    }

    /// A value of the same kind, a little different: most stay valid, some cross a limit.
    static func nudge(_ v: FirestoreValue, using rng: inout SplitMix64) -> FirestoreValue {
        switch v {
        case .boolean(let b): return .boolean(!b)
        case .integer(let i): return .integer(i &+ Int64.random(in: -2...50, using: &rng))
        case .double(let d): return .double(d * Double.random(in: -0.1...1.9, using: &rng) + 0.25)
        case .string(let s): return .string(Bool.random(using: &rng) ? s + "é" : String(s.dropLast()))
        case .timestamp(let t): return .timestamp(try! FirestoreTimestamp(seconds: t.seconds + 3600))
        case .map(let inner):
            guard let key = inner.keys.sorted().randomElement(using: &rng) else { return v }
            var inner = inner
            inner[key] = nudge(inner[key]!, using: &rng)
            return .map(inner)
        case .array(let a):
            guard !a.isEmpty else { return v }
            var a = a
            let k = Int.random(in: 0..<a.count, using: &rng)
            a[k] = nudge(a[k], using: &rng)
            return .array(a)
        default: return v
        }
    }

    static func check(_ fields: [String: FirestoreValue], type: String, _ label: @autoclosure () -> String) {
        for options in optionSets {
            let walked = tablesOnly.validate(fields, documentType: type, options: options)
            if fields["deleted"] != .boolean(true) {
                let predicate = SchemaValidator.generatedFieldsAreValid(fields, documentType: type, options: options)
                // A blob map's Storage path depends on other fields and the document path: validate checks
                // it apart from the generated per-field predicates (storagePathViolations), in both validators.
                let mainWalk = walked.filter {
                    ($0.rule != SchemaRule.missingField.rawValue || !options.mergeWrite)
                        && $0.rule != SchemaRule.storagePath.rawValue
                }
                if predicate == true {
                    #expect(mainWalk.isEmpty, "\(label()) \(options): generated says valid, walk: \(walked)")
                } else {
                    #expect(!walked.isEmpty, "\(label()) \(options): generated says invalid, the walk finds nothing")
                }
            }
            #expect(generated.validate(fields, documentType: type, options: options) == walked, "\(label()) \(options)")
        }
    }

    @Test func goldensAndFixtures() throws {
        let docs = try Self.documents()
        #expect(docs.count > 60)
        for (k, d) in docs.enumerated() { Self.check(d.fields, type: d.type, "document \(k) (\(d.type))") }
    }

    @Test func seededMutations() throws {
        var rng = SplitMix64(state: 0x6E4A_11D8)
        var valid = 0
        var total = 0
        for (k, d) in try Self.documents().enumerated() {
            var current = d.fields
            for step in 0..<60 {
                current = step % 2 == 0 ? Self.mutate(d.fields, using: &rng) : Self.mutate(current, using: &rng)
                total += 1
                if Self.optionSets.contains(where: {
                    Self.generated.validate(current, documentType: d.type, options: $0).isEmpty
                }) {
                    valid += 1
                }
                Self.check(current, type: d.type, "document \(k) step \(step)")
            }
        }
        #expect(valid > total / 20 && valid < total, "\(valid) of \(total) mutants valid in some form")
    }

    @Test func settingsEntriesByKey() {
        for key in SyncSchema.vulture.settingsKeys {
            for v in Self.palette + [key.defaultValue] {
                let entry = FirestoreValue.map(["v": v, "t": .integer(1), "d": .string("device")])
                let doc: [String: FirestoreValue] = [
                    "schema": .integer(1), "updatedAt": .timestamp(try! FirestoreTimestamp(seconds: 1)),
                    "clientUpdatedAt": .timestamp(try! FirestoreTimestamp(seconds: 1)), "updatedBy": .string("d"),
                    "platform": .string("ios"), "deleted": .boolean(false), "deletedAt": .null,
                    "values": .map([key.key: entry, "unknownKey": entry]),
                ]
                Self.check(doc, type: "SettingsDocument", "settings \(key.key) = \(v)")
                var known = doc
                known["values"] = .map([key.key: entry])
                Self.check(known, type: "SettingsDocument", "settings \(key.key) = \(v)")
            }
        }
    }

    /// Collection inference from the one table gives what counting each collection's own fields gives.
    @Test func inferenceFromTheTable() throws {
        let schema = SyncSchema.vulture
        let common = Set(schema.fields(of: SyncSchema.commonFieldsOwner).map(\.name))
        func counted(_ fields: [String: FirestoreValue]) -> String? {
            var best: (String, Int)? = nil
            var tie = false
            for c in schema.collections {
                let own = Set(schema.fields(of: c.documentType).map(\.name)).subtracting(common)
                let score = fields.keys.filter { own.contains($0) }.count
                guard score > 0 else { continue }
                if let b = best, score <= b.1 {
                    if score == b.1 { tie = true }
                } else {
                    best = (c.documentType, score)
                    tie = false
                }
            }
            return tie ? nil : best?.0
        }
        var rng = SplitMix64(state: 0x1F3E)
        let names = Array(Set(schema.fields.map(\.name))).sorted()
        var inferred = 0
        for d in try Self.documents() {
            #expect(Self.generated.inferDocumentType(fields: d.fields, path: nil) == counted(d.fields))
        }
        for _ in 0..<3000 {
            var fields: [String: FirestoreValue] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &rng) { fields[names.randomElement(using: &rng)!] = .null }
            let got = Self.generated.inferDocumentType(fields: fields, path: nil)
            #expect(got == counted(fields), "\(fields.keys.sorted())")
            if got != nil { inferred += 1 }
        }
        #expect(inferred > 1000)
    }
}
