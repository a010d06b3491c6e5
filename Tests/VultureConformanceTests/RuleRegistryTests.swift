import Foundation
import Testing
import VultureConformance
import VultureReference
import VultureSchemaCore
import VultureSyncSchema

/// The registry of rule ids and error codes (`Spec/rules.tsv`, `RuleRegistry`) holds every code the
/// implementation can emit: the generated enums, every mapping of a Swift error to a code, every
/// rejection the reference answers over the suite, every code the testee server answers, and every
/// code literal left in the hand-written sources.
@Suite struct RuleRegistryTests {
    static let ids = Set(RuleRegistry.entries.map(\.id))

    @Test func theGeneratedEnumsAreTheRegistry() {
        let enums = Set(InputRule.allCases.map(\.rawValue)).union(SchemaRule.allCases.map(\.rawValue))
            .union(ErrorCode.allCases.map(\.rawValue))
        #expect(enums == Self.ids)
        #expect(RuleRegistry.entries.count == Self.ids.count, "an id is listed twice")
        for entry in RuleRegistry.entries {
            #expect(!entry.meaning.isEmpty && !entry.section.isEmpty && !entry.example.isEmpty, "\(entry.id)")
        }
    }

    /// A uid breaking each document-id rule maps to its registered `blob.invalid-uid.*` code.
    @Test func everyUidRejectionIsRegistered() {
        let uids: [(String, String)] = [
            ("", "blob.invalid-uid.id.empty"), ("..", "blob.invalid-uid.id.dot-segment"),
            ("__u__", "blob.invalid-uid.id.reserved"), ("u1/x", "blob.invalid-uid.id.contains-slash"),
            (String(repeating: "u", count: 129), "blob.invalid-uid.id.uid-too-long"),
            (String(repeating: "u", count: 1_501), "blob.invalid-uid.id.too-long"),
        ]
        for (uid, code) in uids {
            do throws(BlobError) {
                try BlobPaths.validate(uid: uid)
                Issue.record("uid \(uid.prefix(10)) accepted")
            } catch {
                #expect(error.code == code)
                #expect(Self.ids.contains(error.code))
            }
        }
    }

    /// Every rejection a golden expects, and every rejection the reference answers over the suite.
    @Test func everyRejectionOfTheSuiteIsRegistered() throws {
        let suite = try GoldenSuite.load()
        var reference = ReferenceImplementation(schema: .vulture)
        var seen: Set<String> = []
        for c in suite.cases {
            if case .error(let code) = c.expected { seen.insert(code) }
            if case .error(let code, _) = reference.answer(c) { seen.insert(code) }
        }
        #expect(!seen.isEmpty)
        #expect(seen.subtracting(Self.ids).isEmpty, "unregistered: \(seen.subtracting(Self.ids).sorted())")
    }

    /// The testee server's own protocol errors.
    @Test func everyProtocolErrorIsRegistered() throws {
        var server = TesteeServer(implementation: ReferenceImplementation(schema: .vulture), name: "t")
        var codes: [String] = []
        for line in [
            "hello", #"{"type": "case", "seq": 1, "case": "x", "op": "id.flight", "input": {}}"#,
            #"{"type": "start", "protocolVersion": 1}"#, #"{"type": "case"}"#, #"{"type": "case", "seq": 2}"#,
            #"{"type": "case", "seq": 3, "case": "x", "op": "id.flight", "input": {"$bytes": 5}}"#,
            #"{"type": "ping"}"#, #"{"type": "start", "protocolVersion": 9}"#,
        ] {
            guard let reply = server.handle(line: line).reply,
                case .string(let code)? = try CanonicalJSON.decode(Array(reply.utf8))[fieldPath: "error.code"]
            else { continue }
            codes.append(code)
        }
        #expect(
            Set(codes)
                == [
                    "protocol.unreadable", "protocol.not-started", "protocol.shape", "input.canonical",
                    "protocol.unknown-type", "protocol.unsupported-version",
                ])
        #expect(Set(codes).subtracting(Self.ids).isEmpty)
    }

    /// No hand-written source spells a code outside the registry (`code: "…"` or a `.rawValue` prefix).
    @Test func noHandWrittenCodeLiteralOutsideTheRegistry() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var literals: [String] = []
        for top in ["Sources", "Tools/VultureGoldens"] {
            guard
                let e = FileManager.default.enumerator(
                    at: root.appendingPathComponent(top), includingPropertiesForKeys: nil)
            else { continue }
            for case let url as URL in e where url.pathExtension == "swift" && !url.path.contains("/Generated/") {
                let text = try String(contentsOf: url, encoding: .utf8)
                for marker in ["code: \"", "expectedError: \"", "error: \""] {
                    var rest = Substring(text)
                    while let range = rest.range(of: marker) {
                        let after = rest[range.upperBound...]
                        if let end = after.firstIndex(of: "\"") {
                            let literal = String(after[..<end])
                            if !literal.contains("\\(") { literals.append(literal) }
                        }
                        rest = after
                    }
                }
            }
        }
        #expect(!literals.isEmpty)
        let unknown = Set(literals).subtracting(Self.ids)
        #expect(unknown.isEmpty, "code literals outside Spec/rules.tsv: \(unknown.sorted())")
    }

    /// Every operation the reference implements is in `Spec/operations.tsv`, and every row is implemented.
    @Test func theOperationsTableIsTheReference() {
        let implemented = Set(ReferenceImplementation(schema: .vulture).operations.keys).union(
            ReferenceImplementation.engineOperations)
        let documented = Set(TesteeOperation.allCases.map(\.rawValue))
        #expect(
            implemented == documented,
            "implemented only: \(implemented.subtracting(documented).sorted()); documented only: \(documented.subtracting(implemented).sorted())"
        )
        for op in TesteeOperation.allCases {
            for pattern in op.errors {
                let matches = RuleRegistry.entries.filter {
                    pattern.hasSuffix(".*") ? $0.id.hasPrefix(String(pattern.dropLast())) : $0.id == pattern
                }
                #expect(!matches.isEmpty, "\(op.rawValue): \(pattern)")
            }
        }
    }

    /// Each case's rejection is one its operation lists.
    @Test func everyExpectedRejectionIsListedByItsOperation() throws {
        for c in try GoldenSuite.load().cases {
            guard case .error(let code) = c.expected, let op = TesteeOperation(rawValue: c.op) else { continue }
            let listed = op.errors.contains {
                $0.hasSuffix(".*") ? code.hasPrefix(String($0.dropLast())) : code == $0
            }
            #expect(listed, "\(c.id): \(code) is not among \(op.rawValue)'s rejections \(op.errors)")
        }
    }

    /// The examples written as JSON text break the rule they illustrate when read (a write's example
    /// as a canonical write, or a REST `Write` where it has `update`).
    @Test func jsonExamplesBreakTheirRule() {
        var checked = 0
        for entry in RuleRegistry.entries
        where entry.id.hasPrefix("json.") || entry.id.hasPrefix("canonical.") || entry.id.hasPrefix("value.")
            || entry.id.hasPrefix("rest.") || entry.id.hasPrefix("write.")
        {
            guard let start = entry.example.firstIndex(of: "`"),
                let end = entry.example[entry.example.index(after: start)...].firstIndex(of: "`")
            else { continue }
            let text = String(entry.example[entry.example.index(after: start)..<end])
            do {
                if entry.id.hasPrefix("write."), text.contains("\"update\"") {
                    _ = try FirestoreRESTJSON.decodeWrite(Array(text.utf8))
                } else if entry.id.hasPrefix("write.") {
                    _ = try CanonicalJSON.decodeWrite(Array(text.utf8))
                } else if text.contains("Value\"") {
                    _ = try FirestoreRESTJSON.decodeDocument(Array(text.utf8))
                } else {
                    let value = try CanonicalJSON.decode(Array(text.utf8))
                    try value.validate(form: .stored)
                }
                Issue.record("\(entry.id): the example \(text) was accepted")
            } catch let e as SchemaInputError {
                #expect(e.rule.rawValue == entry.id, "\(entry.id): the example \(text) breaks \(e.rule.rawValue)")
            } catch {
                Issue.record("\(entry.id): \(error)")
            }
            checked += 1
        }
        #expect(checked >= 24)
    }
}
