import Foundation
import Testing

@testable import VultureSyncSchema

/// Every document golden as Google's Python SDK renders it (`Fixtures/sdk-rest/`, made by
/// `Tools/ci/render-goldens-with-sdk.py`): the REST reader gets each golden's stored document back.
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
        func jsonFiles(_ folder: URL) throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") })
        }
        #expect(try jsonFiles(Self.fixtures) == jsonFiles(Self.goldens))
        #expect(try jsonFiles(Self.fixtures) == Set(Self.names.map { "\($0).json" }))
    }

    /// The renderings carry what made the REST reader refuse them before: `"nullValue": 0`.
    @Test func renderingsUseNullValueZero() throws {
        let text = try String(contentsOf: Self.fixtures.appendingPathComponent("flight.android.json"), encoding: .utf8)
        #expect(text.contains(#""nullValue": 0"#))
    }
}
