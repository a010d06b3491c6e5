import Foundation
import Testing
import VultureConformance
import VultureSyncSchema

/// An implementation with one seeded fault: the reference's answers, changed by `fault` for the
/// operations it names.
struct MutantImplementation: ConformanceImplementation {
    var reference = ReferenceImplementation(schema: .vulture)
    let fault: @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer

    mutating func answer(_ testCase: ConformanceCase) -> ImplementationAnswer {
        fault(testCase, reference.answer(testCase))
    }
}

/// One seeded fault and the case that must catch it.
struct Mutant: CustomTestStringConvertible, Sendable {
    let name: String
    let caughtBy: String
    let fault: @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer
    var testDescription: String { name }
}

/// Changes the `document` of `encode` / `merge.payload` outputs.
func document(
    _ ops: Set<String> = ["encode"],
    _ change: @escaping @Sendable (ConformanceCase, inout [String: FirestoreValue]) -> Void
) -> @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer {
    { c, answer in
        guard ops.contains(c.op), case .output(.map(var out)) = answer, case .map(var doc)? = out["document"] else {
            return answer
        }
        change(c, &doc)
        out["document"] = .map(doc)
        return .output(.map(out))
    }
}

func form(_ c: ConformanceCase) -> String? {
    if case .string(let f)? = c.input.mapValue?["form"] { return f }
    return nil
}

func sha256Hex(_ s: String) -> String { DocumentIds.flightId(igcBytes: Data(s.utf8)) }

let mutants: [Mutant] = [
    Mutant(
        name: "misspelt field (iOS waterBalast)", caughtBy: "required.schema.flight.write",
        fault: document { _, d in
            if let v = d.removeValue(forKey: "waterBallast") { d["waterBalast"] = v }
        }),
    Mutant(
        name: "an integer written as a double", caughtBy: "required.schema.flight.stored",
        fault: document { _, d in
            guard var s = d["summary"]?.mapValue, case .integer(let i)? = s["duration"] else { return }
            s["duration"] = .double(Double(i))
            d["summary"] = .map(s)
        }),
    Mutant(
        name: "an optional without a value omitted", caughtBy: "required.schema.flight.write",
        fault: document { _, d in
            d = d.filter { $0.value != .null }
        }),
    Mutant(
        name: "updatedAt as a client time", caughtBy: "required.schema.homebase.write",
        fault: document { c, d in
            guard form(c) == "write", let client = d["clientUpdatedAt"], d["updatedAt"] == .serverTimestamp else {
                return
            }
            d["updatedAt"] = client
        }),
    Mutant(
        name: "a missing common field", caughtBy: "required.schema.task.stored",
        fault: document { _, d in
            d.removeValue(forKey: "updatedBy")
        }),
    Mutant(
        name: "an invented field", caughtBy: "required.schema.recentCompetition.write",
        fault: document { _, d in
            d["syncedAt"] = d["clientUpdatedAt"] ?? .null
        }),
    Mutant(
        name: "Swift's own trim and lowercase for the home-base id", caughtBy: "required.ids.homebase.next-line",
        fault: { c, answer in
            guard c.op == "id.homebase", case .string(let name)? = c.input.mapValue?["name"] else { return answer }
            return .output(.string(sha256Hex(name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())))
        }),
    Mutant(
        name: "a tombstone that keeps fields", caughtBy: "required.schema.tombstone.write",
        fault: document { c, d in
            guard d["deleted"] == .boolean(true) else { return }
            d["filename"] = .string("2016-11-08-XCS-AAA-02.igc")
        }),
    Mutant(
        name: "a blob with Content-Encoding gzip", caughtBy: "required.blobs.metadata.igc",
        fault: { c, answer in
            guard c.op == "blob.metadata", case .output(.map(var m)) = answer else { return answer }
            m["contentEncoding"] = .string("gzip")
            return .output(.map(m))
        }),
    Mutant(
        name: "storageBytes written as a total", caughtBy: "required.schema.profile.write",
        fault: document { c, d in
            guard form(c) == "write", case .increment(.integer(let n))? = d["storageBytes"] else { return }
            d["storageBytes"] = .integer(12_408_221 + n)
        }),
    Mutant(
        name: "a merge write that sends the whole document", caughtBy: "required.merge-payload.flight.comments",
        fault: { c, answer in
            guard c.op == "merge.payload", case .map(let f)? = c.input.mapValue?["fixture"] else { return answer }
            var fixture = f
            fixture["record"] = f["local"]
            fixture["agreed"] = nil
            fixture["local"] = nil
            var reference = ReferenceImplementation(schema: .vulture)
            var input = c.input.mapValue ?? [:]
            input["fixture"] = .map(fixture)
            input["form"] = .string("write")
            return reference.answer(
                ConformanceCase(id: c.id, section: c.section, op: "encode", input: .map(input), expected: c.expected))
        }),
    Mutant(
        name: "a cleared field left out of the merge write", caughtBy: "required.merge-payload.flight.clear",
        fault: document(["merge.payload"]) { _, d in
            d = d.filter { $0.value != .null || $0.key == "deletedAt" }
        }),
    Mutant(
        name: "a reader that drops unknown fields", caughtBy: "required.decode.flight.unknown-top-level",
        fault: { c, answer in
            guard c.op == "decode", case .output(.map(var m)) = answer else { return answer }
            m.removeValue(forKey: "glideRatio")
            return .output(.map(m))
        }),
    Mutant(
        name: "a validator that accepts everything", caughtBy: "required.invalid.comments-too-long",
        fault: { c, answer in
            c.op == "validate" ? .output(.map(["warnings": .array([])])) : answer
        }),
    Mutant(
        name: "a download that skips the hash check", caughtBy: "required.blobs.verify.wrong-id",
        fault: { c, answer in
            guard c.op == "blob.verify", case .error(let code, _) = answer, code == "blob.flight-id-mismatch" else {
                return answer
            }
            return .output(.map(["sizeBytes": .integer(0)]))
        }),
    Mutant(
        name: "an empty contentHash written as \"\"", caughtBy: "required.encode.map-file-content-unknown.write",
        fault: document { _, d in
            if d["contentHash"] == .null { d["contentHash"] = .string("") }
        }),
]

@Suite struct MutantTests {
    static let suite = Result { try GoldenSuite.load() }

    /// Every mutant fails the run, and the named case is among those that catch it.
    @Test(arguments: mutants + syncRuleMutants)
    func mutantIsCaught(_ mutant: Mutant) throws {
        let suite = try Self.suite.get()
        #expect(suite.cases.contains { $0.id == mutant.caughtBy }, "no case \(mutant.caughtBy)")
        var implementation = MutantImplementation(fault: mutant.fault)
        let run = ConformanceRunner.run(suite.cases, on: &implementation)
        let caught = run.results.filter { $0.outcome.isFailed }.map(\.id)
        #expect(run.exitStatus == 1, "\(mutant.name) was not caught")
        #expect(
            caught.contains(mutant.caughtBy), "\(mutant.name) caught by \(caught.prefix(5)), not \(mutant.caughtBy)")
    }

    /// The failure report for a misspelt field says which field was meant.
    @Test func misspeltFieldReportSuggestsTheSchemaName() throws {
        var implementation = MutantImplementation(fault: mutants[0].fault)
        let run = ConformanceRunner.run(
            try Self.suite.get().cases, on: &implementation, only: ["required.schema.flight.write"])
        let lines = ConformanceRunner.report(run, failureList: nil)
        #expect(
            lines.contains {
                $0.contains("/document/waterBalast: unexpected") && $0.contains("did you mean waterBallast?")
            })
        #expect(lines.last == "0 passed, 1 failed")
    }
}
