import Foundation
import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

/// Documents as Google's Python SDK renders them (`Fixtures/sdk-rest/`, made by
/// `Tools/ci/render-goldens-with-sdk.py`): the REST reader gets each golden's stored document back,
/// and `validate` agrees with the suite on every rendering — the goldens, the goldens after the SDK
/// idiom that drops None values (valid: a reader treats an absent nullable field as null), and every
/// stored-form `validate` vector (its golden verdict: no error, or the rule id).
@Suite struct SDKRenderingTests {
    static let fixtures = IdsTestSupport.packageRoot.appendingPathComponent(
        "Tests/VultureSyncSchemaTests/Fixtures/sdk-rest")
    static let goldens = IdsTestSupport.packageRoot.appendingPathComponent("Goldens/schema")
    static let documents = [
        "flight", "task", "mapFile", "homebase", "recentCompetition", "settings", "profile", "tombstone",
    ]
    /// Each document as Android and as iOS write it (`flight.android`, `flight.ios`).
    static let names = documents.flatMap { ["\($0).android", "\($0).ios"] }

    @Test(arguments: names)
    func sdkRenderingReadsAsTheGoldensStoredDocument(_ name: String) throws {
        let fixture = try Data(contentsOf: Self.fixtures.appendingPathComponent("\(name).json"))
        let golden = try CanonicalJSON.decode(
            Data(contentsOf: Self.goldens.appendingPathComponent("\(name).json")), file: "\(name).json")
        let stored = try #require(golden[fieldPath: "stored"]?.mapValue)
        let path = try #require(golden[fieldPath: "path"])
        let document = try FirestoreRESTJSON.decodeDocument(fixture, file: "sdk-rest/\(name).json")
        #expect(document.fields == stored)
        #expect(
            document.name.flatMap { FirestoreRESTJSON.splitDocumentName($0)?.path }.map(FirestoreValue.string) == path)
    }

    /// One rendering per document golden and no other: a new golden needs its rendering.
    @Test func everyDocumentGoldenHasARendering() throws {
        #expect(try Self.jsonFiles(Self.fixtures) == Self.jsonFiles(Self.goldens))
        #expect(try Self.jsonFiles(Self.fixtures) == Set(Self.names.map { "\($0).json" }))
        #expect(
            try Self.jsonFiles(Self.fixtures.appendingPathComponent("none-dropped"))
                == Set(Self.names.map { "\($0).json" }))
    }

    static func jsonFiles(_ folder: URL) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") })
    }

    /// validate's answer to a stored document, as the `validate` operation gives it: the first
    /// error's rule id, else nil and the warnings (`POINTER: RULE-ID`).
    static func verdict(_ fields: [String: FirestoreValue], collection: String, strict: Bool = false) -> (
        error: String?, warnings: [String]
    ) {
        guard let type = SyncSchema.vulture.collection(named: collection)?.documentType else {
            return ("no collection \(collection)", [])
        }
        let violations = SchemaValidator(schema: .vulture).validate(
            fields, documentType: type, options: ValidationOptions(form: .stored, strict: strict))
        return (
            violations.first { $0.severity == .error }?.rule, violations.map { "\($0.pointer): \($0.rule)" }
        )
    }

    /// The golden renderings, and the same documents after the SDK dropped their None values, are
    /// valid stored documents: validate reports nothing.
    @Test(arguments: names.flatMap { [$0, "none-dropped/\($0)"] })
    func validateAcceptsTheSDKRendering(_ name: String) throws {
        let fixture = try Data(contentsOf: Self.fixtures.appendingPathComponent("\(name).json"))
        let document = try FirestoreRESTJSON.decodeDocument(fixture, file: "sdk-rest/\(name).json")
        let path = try #require(document.name.flatMap { FirestoreRESTJSON.splitDocumentName($0)?.path })
        let validator = SchemaValidator(schema: .vulture)
        let (type, pathViolations) = validator.pathViolations(path: path, fields: document.fields)
        #expect(pathViolations.map(\.description) == [])
        let collection = try #require(
            type.flatMap { t in SyncSchema.vulture.collections.first { $0.documentType == t } })
        let verdict = Self.verdict(document.fields, collection: collection.name)
        #expect(verdict.error == nil && verdict.warnings == [], "\(verdict.warnings)")
        if name.hasPrefix("none-dropped/") {
            #expect(!document.fields.values.contains(.null), "the SDK idiom leaves no null behind")
        }
    }

    /// The stored-form cases of `Goldens/vectors/invalid-documents.json`.
    static func storedValidateCases() throws -> [String: FirestoreValue] {
        let file = IdsTestSupport.packageRoot.appendingPathComponent("Goldens/vectors/invalid-documents.json")
        let vectors = try CanonicalJSON.decode(Data(contentsOf: file), file: "invalid-documents.json")
        var out: [String: FirestoreValue] = [:]
        guard case .array(let all)? = vectors[fieldPath: "cases"] else { return [:] }
        for c in all {
            guard c[fieldPath: "op"] == .string("validate"), c[fieldPath: "input.form"] == .string("stored"),
                case .string(let id)? = c[fieldPath: "id"]
            else { continue }
            out[id] = c
        }
        return out
    }

    /// Every stored-form validate vector the SDK can render (a sentinel it cannot) has its rendering,
    /// and no rendering is left over from a case that is gone.
    @Test func everyStoredValidateVectorHasARendering() throws {
        let cases = try Self.storedValidateCases()
        let renderable = cases.filter { !($0.value[fieldPath: "input.document"].map(Self.holdsSentinel) ?? true) }
        #expect(
            try Self.jsonFiles(Self.fixtures.appendingPathComponent("validate"))
                == Set(renderable.keys.map { "\($0).json" }))
        #expect(renderable.count >= 20, "\(renderable.count) renderings")
    }

    static func holdsSentinel(_ v: FirestoreValue) -> Bool {
        switch v {
        case .serverTimestamp, .increment, .delete: true
        case .array(let a): a.contains(where: holdsSentinel)
        case .map(let m): m.values.contains(where: holdsSentinel)
        default: false
        }
    }

    /// validate's verdict on each vector's SDK rendering is the vector's golden: its rule id, or no
    /// error and the golden's warnings.
    @Test func validateAgreesWithTheVectorsOnEverySDKRendering() throws {
        let cases = try Self.storedValidateCases()
        let folder = Self.fixtures.appendingPathComponent("validate")
        for file in try Self.jsonFiles(folder).sorted() {
            let id = String(file.dropLast(".json".count))
            let c = try #require(cases[id], "no stored validate case \(id)")
            let document = try FirestoreRESTJSON.decodeDocument(
                Data(contentsOf: folder.appendingPathComponent(file)), file: "sdk-rest/validate/\(file)")
            guard case .string(let collection)? = c[fieldPath: "input.collection"] else {
                Issue.record("\(id): no collection")
                continue
            }
            let verdict = Self.verdict(
                document.fields, collection: collection, strict: c[fieldPath: "input.strict"] == .boolean(true))
            if case .string(let rule)? = c[fieldPath: "error"] {
                #expect(verdict.error == rule, "\(id): validate answers \(verdict.error ?? "valid"), the case \(rule)")
            } else {
                var warnings: [FirestoreValue] = []
                if case .array(let w)? = c[fieldPath: "output.warnings"] { warnings = w }
                #expect(verdict.error == nil, "\(id): validate answers \(verdict.error ?? ""), the case valid")
                #expect(verdict.warnings.map(FirestoreValue.string) == warnings, "\(id)")
            }
        }
    }

    /// The renderings carry what made the REST reader refuse them before: `"nullValue": 0`.
    @Test func renderingsUseNullValueZero() throws {
        let text = try String(contentsOf: Self.fixtures.appendingPathComponent("flight.android.json"), encoding: .utf8)
        #expect(text.contains(#""nullValue": 0"#))
    }
}
