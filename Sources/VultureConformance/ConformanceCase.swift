import Foundation
import VultureFirestore
import VultureScenarios
import VultureSchemaCore
import VultureSyncSchema

/// One conformance case: a stable id, the schema section it tests, an operation with its input,
/// and what a conforming implementation answers (Goldens/protocol/README.md).
///
/// Ids are hierarchical and stable (`required.ids.homebase.trim`); the first component says
/// whether the case is `required` (a failure fails the run) or `recommended` (reported only).
public struct ConformanceCase: Sendable, Hashable {
    /// What a conforming implementation answers.
    public enum Expectation: Sendable, Hashable {
        /// This output, compared by typed value.
        case output(FirestoreValue)
        /// A typed rejection with this error code (a rule id such as `value.array-in-array`).
        case error(code: String)
    }

    /// Stable hierarchical id (`required.ids.homebase.trim`); `recommended.` marks a non-required case.
    public var id: String
    /// The schema section the case tests (`schema §4`).
    public var section: String
    /// The operation (`encode.flight`, `id.homebase`, …): see the protocol page.
    public var op: String
    /// The operation's input, canonical typed JSON.
    public var input: FirestoreValue
    /// What a conforming implementation answers: an output or a typed rejection.
    public var expected: Expectation
    /// Why the case exists, in a sentence (the golden's `note`); printed with every failure.
    public var note: String?
    /// The pins of `Spec/pins.tsv` the expected answer rests on (the golden's `pins`); a case resting on a
    /// `choice` or `open` pin is `recommended.*`.
    public var pins: [String]
    /// The stored document an answer's `write` is judged on (the golden's `base`): when present and
    /// the expected output holds a `write`, the runner applies the golden's write and the answer's to
    /// it and compares the results (``WriteEffect``; Goldens/FORMAT.md, "Writes"), not the writes.
    public var base: [String: FirestoreValue]?

    /// A case as a golden file states it (Goldens/protocol/README.md).
    public init(
        id: String, section: String, op: String, input: FirestoreValue, expected: Expectation, note: String? = nil,
        pins: [String] = [], base: [String: FirestoreValue]? = nil
    ) {
        self.id = id
        self.section = section
        self.op = op
        self.input = input
        self.expected = expected
        self.note = note
        self.pins = pins
        self.base = base
    }

    /// True unless the id starts with `recommended.`.
    public var isRequired: Bool { !id.hasPrefix("recommended.") }

    /// What `--only` selects this case by (`ids.homebase`, `blobs.verify`, `schema.flights`, `settings`): the
    /// operation's area of `Spec/operations.tsv` with `{collection}` replaced by the input's collection; for an
    /// operation the table does not list, the op's first component (`merge` for `merge.fields`).
    public var area: String {
        if op == ScenarioConformance.caseOp { return ScenarioConformance.area }
        guard let operation = TesteeOperation(rawValue: op) else {
            return String(op.split(separator: ".").first ?? Substring(op))
        }
        var area = operation.areaTemplate
        if area.contains("{collection}") {
            let collection =
                input.mapValue?["collection"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "unknown"
            area = area.replacingOccurrences(of: "{collection}", with: collection)
        }
        return area
    }

    /// Whether `--only AREA` selects the case: its area is AREA or lies under it (`ids` selects `ids.homebase`).
    public func isIn(area selected: String) -> Bool {
        let own = area
        return own == selected || own.hasPrefix(selected + ".")
    }

    /// The writing platform of an encode-like case (`input.fixture.context.platform`: `android`, `ios`); nil
    /// for a case without a writer.
    public var writerPlatform: String? {
        if case .string(let p)? = input.mapValue?["fixture"]?.mapValue?["context"]?.mapValue?["platform"] { return p }
        return nil
    }
}

/// An implementation's answer to one case.
public enum ImplementationAnswer: Sendable, Hashable {
    /// `{seq, output}`.
    case output(FirestoreValue)
    /// `{seq, error: {code, message}}`: a typed rejection.
    case error(code: String, message: String)
    /// `{seq, skipped: reason}`.
    case skipped(reason: String)
    /// The testee broke the protocol, crashed or timed out: the case fails with this message.
    case broken(String)
}

/// Something that answers conformance cases: the built-in reference implementation, or a testee
/// process driven over the protocol.
public protocol ConformanceImplementation {
    /// Answers one case.
    mutating func answer(_ testCase: ConformanceCase) -> ImplementationAnswer

    /// Answers one engine operation of a scenario (`engine.reset`, `engine.step`, `engine.rows`;
    /// Goldens/protocol/README.md, Engine operations): the engines' Firestore and Cloud Storage
    /// requests meanwhile go to `server`. By default the case is answered as any other (an
    /// implementation without engines skips it).
    mutating func answer(_ testCase: ConformanceCase, server: EngineServerChannel) -> ImplementationAnswer
}

extension ConformanceImplementation {
    /// Answers the case without the server: ``answer(_:)``.
    public mutating func answer(_ testCase: ConformanceCase, server: EngineServerChannel) -> ImplementationAnswer {
        answer(testCase)
    }
}

extension ConformanceCase {
    /// Judges an answer against the expectation.
    public func judge(_ answer: ImplementationAnswer) -> CaseOutcome {
        switch (expected, answer) {
        case (_, .skipped(let reason)):
            return .skipped(reason: reason)
        case (_, .broken(let message)):
            return .failed(message: message, differences: [])
        case (.output(let want), .output(let got)) where base != nil && want.mapValue?["write"] != nil:
            return judgeWrite(want: want, got: got)
        case (.output(let want), .output(let got)):
            let d = TypedComparison.differences(expected: want, actual: got) { SchemaMembers.origin(of: $0, in: self) }
            return d.isEmpty
                ? .passed : .failed(message: "output differs from the golden in \(d.count) place(s)", differences: d)
        case (.output, .error(let code, let message)):
            return .failed(
                message: "rejected a valid input: \(code)" + (message.isEmpty ? "" : ": \(message)"), differences: [])
        case (.error(let want), .error(let code, _)):
            return code == want ? .passed : .failed(message: "rejected with \(code), expected \(want)", differences: [])
        case (.error(let want), .output(let got)):
            return .failed(
                message: "accepted an input that breaks \(want); answered \(CanonicalJSON.compactString(got))",
                differences: [])
        }
    }
}

extension ConformanceCase {
    /// The request time a case's writes are applied at: the fixture's `context.serverTime`, else
    /// 2000-01-01T00:00:00Z (both writes take the same one, so only equality matters).
    var requestTime: FirestoreTimestamp {
        if case .timestamp(let t)? = input.mapValue?["fixture"]?.mapValue?["context"]?.mapValue?["serverTime"] {
            return t
        }
        return FirestoreTimestamp(unchecked: 946_684_800, 0)
    }

    /// An output holding a `write`, judged by its effect on ``base`` (``WriteEffect``); the other
    /// members (`path`) by typed value.
    func judgeWrite(want: FirestoreValue, got: FirestoreValue) -> CaseOutcome {
        guard case .map(var wantMembers) = want, case .map(var gotMembers) = got, let base else {
            return .failed(message: "the answer is not a map {path, write}", differences: [])
        }
        let wantWrite = wantMembers.removeValue(forKey: "write") ?? .null
        guard let gotWrite = gotMembers.removeValue(forKey: "write") else {
            return .failed(
                message: "the answer has no write",
                differences: [ValueDifference(pointer: "/write", kind: .missing, expected: wantWrite, actual: nil)])
        }
        var d = TypedComparison.differences(expected: .map(wantMembers), actual: .map(gotMembers))
        let path: String
        if case .string(let p)? = wantMembers["path"] { path = p } else { path = "" }
        let expected: FirestoreWrite
        do {
            expected = try WriteEffect.write(from: wantWrite, path: path)
        } catch {
            return .failed(message: "the golden's write cannot be read: \(error)", differences: d)
        }
        let actual: FirestoreWrite
        do {
            actual = try WriteEffect.write(from: gotWrite, path: path)
        } catch {
            return .failed(message: "the answer's write is no write (README, Writes): \(error)", differences: d)
        }
        let collection: String? = input.mapValue?["collection"].flatMap {
            if case .string(let s) = $0 { s } else { nil }
        }
        let effect = WriteEffect.differences(
            expected: expected, actual: actual, base: base, path: path, requestTime: requestTime,
            documentType: collection.flatMap { SyncCollection(rawValue: $0)?.documentType })
        d += effect
        guard !d.isEmpty else { return .passed }
        var message = "output differs from the golden in \(d.count) place(s)"
        if !effect.isEmpty {
            message =
                "the write's effect on the stored base differs from the golden's in \(effect.count) place(s)"
                + (effect.first?.hint.map { ": \($0)" } ?? "")
        }
        return .failed(message: message, differences: d)
    }
}
