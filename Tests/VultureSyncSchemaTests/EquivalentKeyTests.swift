import Foundation
import Testing
import VultureSchemaCore
import VultureSyncSchema

/// Two keys of one object that differ in bytes but are canonically equivalent (`"é"`, `"e\u{301}"`):
/// a map's keys are Swift strings, which compare by canonical equivalence, so every reader refuses the
/// second as a duplicate instead of keeping one value and losing the other (the fuzz target
/// json-differential, where jansson keeps both: Tools/fuzz/regressions/json-differential).
@Suite struct EquivalentKeyTests {
    static let text = Array("{\"a\": 1,\n \"\u{E9}\": 1, \"e\u{301}\": 2}".utf8)

    static func expectDuplicate(_ body: () throws -> Void) {
        do {
            try body()
            Issue.record("accepted two canonically equivalent keys")
        } catch let e as SchemaInputError {
            #expect(e.rule == .jsonDuplicateKey, "\(e)")
            #expect(e.pointer == "/e\u{301}", "\(e)")
            #expect(e.file == "k.json" && e.line == 2 && e.column == 10, "\(e)")
        } catch {
            Issue.record("untyped \(error)")
        }
    }

    @Test func everyReaderRefusesTheSecondKey() {
        Self.expectDuplicate { _ = try StrictJSONReader.parse(Self.text, file: "k.json") }
        Self.expectDuplicate { _ = try CanonicalJSON.decode(Self.text, file: "k.json") }
        Self.expectDuplicate { _ = try CanonicalJSON.decode(Data(Self.text), file: "k.json", form: .stored) }
        Self.expectDuplicate { _ = try CanonicalJSONReader().decode(Self.text[...], file: "k.json") }
        Self.expectDuplicate { _ = try FirestoreRESTJSON.decodeValue(Self.text, file: "k.json") }
    }
}
