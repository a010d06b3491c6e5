import Foundation
import Testing
import VultureConformance
import VultureReference
import VultureScenarios
import VultureSchemaCore
import VultureSyncSchema

/// An implementation with one seeded fault: the reference's answers, changed by `fault` for the
/// operations it names.
struct MutantImplementation: ConformanceImplementation {
    var reference = ReferenceImplementation(schema: .vulture)
    let fault: @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer

    mutating func answer(_ testCase: ConformanceCase) -> ImplementationAnswer {
        fault(testCase, reference.answer(testCase))
    }

    mutating func answer(_ testCase: ConformanceCase, server: EngineServerChannel) -> ImplementationAnswer {
        reference.answer(testCase, server: server)
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

/// Changes the `write` of `merge.payload` outputs: its fields, its mask (text paths; nil: no mask)
/// and its precondition.
func mergeWrite(
    _ change:
        @escaping @Sendable (
            ConformanceCase, inout [String: FirestoreValue], inout [String]?, inout FirestoreValue?
        ) -> Void
) -> @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer {
    { c, answer in
        guard c.op == "merge.payload", case .output(.map(var out)) = answer, case .map(var write)? = out["write"],
            case .map(var fields)? = write["fields"]
        else { return answer }
        var mask: [String]? = nil
        if case .array(let paths)? = write["mask"] {
            mask = paths.compactMap { if case .string(let p) = $0 { p } else { nil } }
        }
        var precondition = write["precondition"]
        change(c, &fields, &mask, &precondition)
        write["fields"] = .map(fields)
        write["mask"] = mask.map { .array($0.sorted().map { .string($0) }) }
        write["precondition"] = precondition
        out["write"] = .map(write)
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
        name: "misspelt field (iOS waterBalast)", caughtBy: "required.schema.flight.android.write",
        fault: document { _, d in
            if let v = d.removeValue(forKey: "waterBallast") { d["waterBalast"] = v }
        }),
    Mutant(
        name: "an integer written as a double", caughtBy: "required.schema.flight.android.stored",
        fault: document { _, d in
            guard var s = d["summary"]?.mapValue, case .integer(let i)? = s["duration"] else { return }
            s["duration"] = .double(Double(i))
            d["summary"] = .map(s)
        }),
    Mutant(
        name: "an optional without a value omitted", caughtBy: "required.schema.flight.android.write",
        fault: document { _, d in
            d = d.filter { $0.value != .null }
        }),
    Mutant(
        name: "updatedAt as a client time", caughtBy: "required.schema.homebase.ios.write",
        fault: document { c, d in
            guard form(c) == "write", let client = d["clientUpdatedAt"], d["updatedAt"] == .serverTimestamp else {
                return
            }
            d["updatedAt"] = client
        }),
    Mutant(
        name: "a missing common field", caughtBy: "required.schema.task.ios.stored",
        fault: document { _, d in
            d.removeValue(forKey: "updatedBy")
        }),
    Mutant(
        name: "an invented field", caughtBy: "required.schema.recentCompetition.android.write",
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
        name: "a tombstone that keeps fields", caughtBy: "required.schema.tombstone.ios.write",
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
        name: "storageBytes written as a total", caughtBy: "required.schema.profile.android.write",
        fault: document { c, d in
            guard form(c) == "write", case .increment(.integer(let n))? = d["storageBytes"] else { return }
            d["storageBytes"] = .integer(12_408_221 + n)
        }),
    Mutant(
        name: "a merge write that sends the whole document (a set without a mask)",
        caughtBy: "required.merge-payload.flight.comments.android",
        fault: mergeWrite { c, fields, mask, _ in
            guard case .map(let f)? = c.input.mapValue?["fixture"] else { return }
            var fixture = f
            fixture["record"] = f["local"]
            fixture["agreed"] = nil
            fixture["local"] = nil
            var reference = ReferenceImplementation(schema: .vulture)
            var input = c.input.mapValue ?? [:]
            input["fixture"] = .map(fixture)
            input["form"] = .string("write")
            let full = reference.answer(
                ConformanceCase(id: c.id, section: c.section, op: "encode", input: .map(input), expected: c.expected))
            guard case .output(.map(let out)) = full, case .map(let document)? = out["document"] else { return }
            fields = document
            mask = nil
        }),
    Mutant(
        name: "a cleared field left out of the merge write", caughtBy: "required.merge-payload.flight.clear.android",
        fault: mergeWrite { _, fields, mask, _ in
            let cleared = fields.filter { $0.value == .null && $0.key != "deletedAt" }.map(\.key)
            for key in cleared { fields.removeValue(forKey: key) }
            mask = mask?.filter { !cleared.contains($0) }
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
        name: "an empty contentHash written as \"\"",
        caughtBy: "required.encode.map-file-content-unknown.write.android",
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
        // The scenarios judge engines (EngineMutantTests); these mutants change codec and rule answers.
        var implementation = MutantImplementation(fault: mutant.fault)
        let run = ConformanceRunner.run(
            suite.cases.filter { $0.op != ScenarioConformance.caseOp }, on: &implementation)
        let caught = run.results.filter { $0.outcome.isFailed }.map(\.id)
        if mutant.caughtBy.hasPrefix("required.") {
            #expect(run.exitStatus == 1, "\(mutant.name) was not caught")
        }
        #expect(
            caught.contains(mutant.caughtBy), "\(mutant.name) caught by \(caught.prefix(5)), not \(mutant.caughtBy)")
    }

    /// The failure report for a misspelt field says which field was meant.
    @Test func misspeltFieldReportSuggestsTheSchemaName() throws {
        var implementation = MutantImplementation(fault: mutants[0].fault)
        let run = ConformanceRunner.run(
            try Self.suite.get().cases, on: &implementation, only: ["required.schema.flight.android.write"])
        let lines = ConformanceRunner.report(run, failureList: nil)
        #expect(
            lines.contains {
                $0.contains("/document/waterBalast: unexpected") && $0.contains("did you mean waterBallast?")
            })
        #expect(lines.last == "0 passed, 1 failed")
    }
}

// MARK: The holes of issue 12: each wrong implementation fails the named case.

/// Replaces an operation's input before the reference answers it.
func input(
    _ op: String, _ change: @escaping @Sendable (inout [String: FirestoreValue]) -> Void
) -> @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer {
    { c, answer in
        guard c.op == op, var m = c.input.mapValue else { return answer }
        change(&m)
        var reference = ReferenceImplementation(schema: .vulture)
        return reference.answer(
            ConformanceCase(id: c.id, section: c.section, op: c.op, input: .map(m), expected: c.expected))
    }
}

/// Changes the `kvs` of a `settings.fromIOS` input.
func iosStore(_ change: @escaping @Sendable (inout [String: FirestoreValue]) -> Void)
    -> @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer
{
    input("settings.fromIOS") { m in
        var kvs = m["kvs"]?.mapValue ?? [:]
        change(&kvs)
        m["kvs"] = .map(kvs)
    }
}

/// The comments of a `validate` input, when it has them.
func comments(_ c: ConformanceCase) -> String? {
    if case .string(let s)? = c.input.mapValue?["document"]?.mapValue?["comments"] { return s }
    return nil
}

let holeMutants: [Mutant] = [
    Mutant(
        name: "a no-op decode (answers its input)", caughtBy: "required.decode.flight.ios-without-android-fields",
        fault: { c, answer in
            c.op == "decode" ? .output(c.input.mapValue?["document"] ?? .null) : answer
        }),
    Mutant(
        name: "comment length in UTF-16 units", caughtBy: "recommended.invalid.valid.comments-astral-at-limit",
        fault: { c, answer in
            guard c.op == "validate", let text = comments(c), text.utf16.count > 10_000 else { return answer }
            return .error(code: "schema.max-chars", message: "\(text.utf16.count) UTF-16 units")
        }),
    Mutant(
        name: "comment length in grapheme clusters", caughtBy: "recommended.invalid.comments-too-long-combining",
        fault: { c, answer in
            guard c.op == "validate", let text = comments(c), text.count <= 10_000,
                case .error("schema.max-chars", _) = answer
            else { return answer }
            return .output(.map(["warnings": .array([])]))
        }),
    Mutant(
        name: "a home-base trim that drops U+FEFF (JavaScript's)", caughtBy: "required.ids.homebase.byte-order-mark",
        fault: { c, answer in
            guard c.op == "id.homebase", case .string(let name)? = c.input.mapValue?["name"] else { return answer }
            let stripped = String(
                name.unicodeScalars.drop { $0 == "\u{FEFF}" }.reversed().drop { $0 == "\u{FEFF}" }
                    .reversed().map(Character.init))
            return .output(.string(DocumentIds.homebaseId(name: stripped)))
        }),
    Mutant(
        name: "a home-base trim of Unicode White_Space (what SCHEMA.md used to say)",
        caughtBy: "required.ids.homebase.information-separators",
        fault: { c, answer in
            guard c.op == "id.homebase", case .string(let name)? = c.input.mapValue?["name"] else { return answer }
            let scalars = name.unicodeScalars
            let kept = scalars.drop { $0.properties.isWhitespace }.reversed().drop { $0.properties.isWhitespace }
            let trimmed = String(String.UnicodeScalarView(kept.reversed()))
            return .output(.string(sha256Hex(trimmed.lowercased())))
        }),
    Mutant(
        name: "a boolean key true only for 1 (VulturePinned: 2)",
        caughtBy: "recommended.settings.bridging.boolean-from-2",
        fault: iosStore { kvs in
            if case .integer(let n)? = kvs["VulturePinned"], n != 0, n != 1 { kvs["VulturePinned"] = nil }
        }),
    Mutant(
        name: "an integer key that rounds a double (6.7 → 7)",
        caughtBy: "recommended.settings.bridging.integer-from-fraction",
        fault: iosStore { kvs in
            if case .double(let d)? = kvs["VultureFlarmLoggerInterval"] {
                kvs["VultureFlarmLoggerInterval"] = .integer(Int64(d.rounded()))
            }
        }),
    Mutant(
        name: "a double key that refuses a boolean (opacity true)",
        caughtBy: "recommended.settings.bridging.double-from-boolean",
        fault: iosStore { kvs in
            if case .boolean? = kvs["VultureSkySightOverlayOpacity"] { kvs["VultureSkySightOverlayOpacity"] = nil }
        }),
    Mutant(
        name: "a task id hashing an empty externalUrl", caughtBy: "recommended.ids.task.empty-url",
        fault: { c, answer in
            guard c.op == "id.task", c.input.mapValue?["externalUrl"] == .string("") else { return answer }
            return .output(.string(sha256Hex("")))
        }),
    Mutant(
        name: "a gunzip that ignores ISIZE", caughtBy: "required.blobs.verify.bad-length",
        fault: { c, answer in
            guard c.op == "blob.verify", case .error("gzip.length", _) = answer,
                case .bytes(let gz)? = c.input.mapValue?["gz"], let reader = try? GzipDecompressor()
            else { return answer }
            // What a reader that never looks at ISIZE returns: the data before the 4-byte trailer field.
            var size = 0
            guard (try? reader.decompress(gz.dropLast(4), output: { size += $0.count })) != nil else { return answer }
            return .output(.map(["sizeBytes": .integer(Int64(size))]))
        }),
    Mutant(
        name: "a document-id length counted in characters", caughtBy: "required.ids.recent-competition.too-long",
        fault: { c, answer in
            guard c.op == "id.recentCompetition", case .error("id.too-long", _) = answer,
                case .string(let id)? = c.input.mapValue?["competitionId"], id.count <= 1_500
            else { return answer }
            return .output(.string(id))
        }),
    Mutant(
        name: "validate ignoring merge: true", caughtBy: "required.invalid.valid.merge-write",
        fault: input("validate") { m in m["merge"] = nil }),
    Mutant(
        name: "validate accepting any merge write", caughtBy: "required.invalid.merge-write-deletes-required",
        fault: { c, answer in
            c.op == "validate" && c.input.mapValue?["merge"] == .boolean(true)
                ? .output(.map(["warnings": .array([])])) : answer
        }),
    Mutant(
        name: "a map file's unknown content left out instead of null",
        caughtBy: "required.encode.map-file-content-unknown.write.android",
        fault: document { _, d in
            if d["content"] == .null { d["content"] = nil }
        }),
    Mutant(
        name: "a decode that accepts anything (every check skipped, the input answered back)",
        caughtBy: "required.decode.invalid.integer-as-double",
        fault: { c, answer in
            guard c.op == "decode", case .error = answer else { return answer }
            return .output(c.input.mapValue?["document"] ?? .null)
        }),
    Mutant(
        name: "a validate that accepts a deletedAt on a live document",
        caughtBy: "required.invalid.live-deleted-at.stored",
        fault: { c, answer in
            guard c.op == "validate", case .error("schema.null-unless", _) = answer else { return answer }
            return .output(.map(["warnings": .array([])]))
        }),
    Mutant(
        name: "a stored-form validate that wants every field of a full write (the SDK's dropped Nones refused)",
        caughtBy: "required.invalid.valid.stored-nullable-absent",
        fault: { c, answer in
            guard c.op == "validate", form(c) == "stored", case .map(let doc)? = c.input.mapValue?["document"],
                case .string(let name)? = c.input.mapValue?["collection"],
                let type = SyncSchema.vulture.collection(named: name)?.documentType,
                doc["deleted"] != .boolean(true),
                SyncSchema.vulture.documentFields(of: type).contains(where: { $0.isRequired && doc[$0.name] == nil })
            else { return answer }
            return .error(code: "schema.missing-field", message: "every required field, as in a full write")
        }),
]

@Suite struct HoleMutantTests {
    /// Every mutant fails its named case (and the run, when the case is required).
    @Test(arguments: holeMutants)
    func mutantIsCaught(_ mutant: Mutant) throws {
        let suite = try MutantTests.suite.get()
        #expect(suite.cases.contains { $0.id == mutant.caughtBy }, "no case \(mutant.caughtBy)")
        // The scenarios judge engines (EngineMutantTests); these mutants change codec and rule answers.
        var implementation = MutantImplementation(fault: mutant.fault)
        let run = ConformanceRunner.run(
            suite.cases.filter { $0.op != ScenarioConformance.caseOp }, on: &implementation)
        let caught = run.results.filter { $0.outcome.isFailed }.map(\.id)
        #expect(
            caught.contains(mutant.caughtBy), "\(mutant.name) caught by \(caught.prefix(5)), not \(mutant.caughtBy)")
        if mutant.caughtBy.hasPrefix("required.") { #expect(run.exitStatus == 1) }
    }

    /// A settings codec that does not map one key through its iOS keys (reads it as its default, or writes
    /// nothing for it) fails a named case, for each of the 42 keys in both directions.
    @Test(arguments: SyncSchema.vulture.settingsKeys.map(\.key))
    func everySettingsKeyIsExercisedThroughItsIOSKeys(_ key: String) throws {
        let suite = try MutantTests.suite.get()
        let schema = SyncSchema.vulture
        let spec = try #require(schema.settingsKey(key))
        let codec = SettingsCodec(schema: schema)
        let reading: @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer = { c, answer in
            guard c.op == "settings.fromIOS", case .output(.map(var out)) = answer,
                case .map(var values)? = out["values"], case .map(var entry)? = values[key]
            else { return answer }
            entry["v"] = spec.defaultValue
            entry["t"] = .integer(0)
            values[key] = .map(entry)
            out["values"] = .map(values)
            return .output(.map(out))
        }
        let written = Set(codec.iosValues(fromCloud: [key: spec.defaultValue]).keys)
        let writing: @Sendable (ConformanceCase, ImplementationAnswer) -> ImplementationAnswer = { c, answer in
            guard c.op == "settings.toIOS", c.input.mapValue?["values"]?.mapValue?[key] != nil,
                case .output(.map(var out)) = answer, case .map(var kvs)? = out["kvs"]
            else { return answer }
            for iosKey in written { kvs[iosKey] = nil }
            out["kvs"] = .map(kvs)
            return .output(.map(out))
        }
        for (fault, caughtBy) in [
            (reading, "required.settings.all-keys.from-ios"),
            (
                writing,
                key == "isInFlightCurrentTrackVisible"
                    ? "recommended.settings.to-ios.show-track" : "required.settings.all-keys.to-ios"
            ),
        ] {
            var implementation = MutantImplementation(fault: fault)
            let run = ConformanceRunner.run(suite.cases, on: &implementation)
            let caught = run.results.filter { $0.outcome.isFailed }.map(\.id)
            #expect(caught.contains(caughtBy), "\(key): caught by \(caught), not \(caughtBy)")
        }
    }
}
