import Foundation
import VultureScenarios
import VultureSchemaCore
import VultureSyncSchema

/// The fuzz targets of Tools/fuzz (README "Fuzzing"): one per reader of untrusted bytes, plus the
/// differential target. Each reads one input and checks what must hold of the answer — a value that
/// survives its own round trip, or a typed error naming where and which rule — and reports anything
/// else as a ``FuzzViolation``. A crash inside a reader stays a crash, which libFuzzer reports.
///
/// The raw values are the target names `Tools/fuzz/run.sh` takes (the executables are `fuzz-NAME`).
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// Canonical typed JSON: `CanonicalJSON.decode` (one pass, the reused-buffer reader, the two-phase
    /// reading, a slice of a larger buffer), stored and write forms, and canonical writes.
    case canonicalJSON = "canonical-json"
    /// The strict RFC 8259 reader, `StrictJSONReader.parse`, and its canonical writer's round trip.
    case strictJSON = "strict-json"
    /// Firestore REST JSON: documents, values, `Write`, `CommitRequest`, `BatchWriteRequest` and the
    /// message detection, each round-tripped through its writer and through canonical typed JSON.
    case firestoreREST = "firestore-rest"
    /// Gunzip with SHA-256 verification (`IGCDownload.verify`), against the one-shot and the chunked
    /// decompressor.
    case gunzipSHA256 = "gunzip-sha256"
    /// The IGC header reader (`IGCHeader`) and the import check of `vulture-sync` (`IGCImportCheck`).
    case igcHeader = "igc-header"
    /// Testee protocol lines: the runner's reading of answers and server requests, and the testee
    /// side (`TesteeServer.handle(line:)`), whose replies the runner must read.
    case testeeProtocol = "testee-protocol"
    /// Scenario files (`Scenario`, `ScenarioStep`) read from canonical typed JSON.
    case scenario
    /// The Spec TSV reader (`TSVTable`) and the model read from it (`SchemaSpec`, validated).
    case specTSV = "spec-tsv"
    /// The canonical and REST readers against each other, against the strict reader, and (in the
    /// libFuzzer executable) against jansson, a reference JSON parser: accept/reject and the value.
    case jsonDifferential = "json-differential"

    /// Reads one input and checks the outcome.
    /// - Throws: ``FuzzViolation`` when a reader answered wrongly (an untyped error, an error without a
    ///   position, a value that does not survive its round trip, two readers that disagree).
    public func run(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        switch self {
        case .canonicalJSON: try CanonicalJSONHarness.run(input)
        case .strictJSON: try StrictJSONHarness.run(input)
        case .firestoreREST: try FirestoreRESTHarness.run(input)
        case .gunzipSHA256: try GunzipHarness.run(input)
        case .igcHeader: try IGCHeaderHarness.run(input)
        case .testeeProtocol: try TesteeProtocolHarness.run(input)
        case .scenario: try ScenarioHarness.run(input)
        case .specTSV: try SpecTSVHarness.run(input)
        case .jsonDifferential: try JSONDifferential.run(input, reference: nil)
        }
    }

    /// Builds what the harness keeps from one input to the next (`LLVMFuzzerInitialize` calls this):
    /// made during the first input instead, it would count as memory that input leaked.
    public func prepare() {
        if self == .specTSV { SpecTSVHarness.prepare() }
    }

    /// ``run(_:)`` on bytes held in an array.
    public func run(_ bytes: [UInt8]) throws(FuzzViolation) {
        let result: Result<Void, FuzzViolation> = bytes.withUnsafeBufferPointer { buffer in
            do throws(FuzzViolation) {
                try run(buffer)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// The largest seed of this target, in bytes (libFuzzer's inputs grow up to the largest input it
    /// starts from).
    public var maximumInputBytes: Int {
        switch self {
        case .gunzipSHA256, .specTSV: 65_536
        default: 16_384
        }
    }
}

/// A reader that answered wrongly: what was expected and what came.
public struct FuzzViolation: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for a person.
    public var message: String

    /// A violation described by `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// Throws a ``FuzzViolation`` with `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzViolation) {
    if !condition { throw FuzzViolation(message()) }
}

/// What a reader did with one input: a value, a typed input error, or another error (always a violation).
enum ReadOutcome<Value: Equatable>: Equatable {
    case value(Value)
    case rejected(SchemaInputError)
    case untyped(String)

    init(_ body: () throws -> Value) {
        do { self = .value(try body()) } catch let error as SchemaInputError { self = .rejected(error) } catch {
            self = .untyped("\(type(of: error)): \(error)")
        }
    }

    var value: Value? {
        if case .value(let v) = self { return v }
        return nil
    }

    var error: SchemaInputError? {
        if case .rejected(let e) = self { return e }
        return nil
    }

    /// Short text for messages.
    var shown: String {
        switch self {
        case .value(let v): "value \(String(describing: v).prefix(300))"
        case .rejected(let e): "error \(e)"
        case .untyped(let e): "untyped error \(e)"
        }
    }

    /// Throws unless the outcome is a value or a typed error with file, line and column inside `text`.
    func requireTyped(_ reader: String, text: UnsafeBufferPointer<UInt8>, file: String) throws(FuzzViolation) {
        switch self {
        case .value: return
        case .untyped(let e): throw FuzzViolation("\(reader) threw an untyped error: \(e)")
        case .rejected(let e):
            try requirePosition(e, reader: reader, text: text, file: file)
        }
    }
}

/// Throws unless `error` names `file` and a line:column that exists in `text` (the column may be one
/// past the line's end, where an unexpected end of input is).
func requirePosition(_ error: SchemaInputError, reader: String, text: UnsafeBufferPointer<UInt8>, file: String)
    throws(FuzzViolation)
{
    guard error.file == file, let line = error.line, let column = error.column else {
        throw FuzzViolation("\(reader): an error without file, line and column: \(error)")
    }
    var lines = 1
    for b in text where b == 0x0A { lines += 1 }
    try require(line >= 1 && line <= lines && column >= 1, "\(reader): position \(line):\(column) outside the text")
    // By bytes: a key that starts with a combining mark joins the "/" before it into one Character.
    try require(
        error.pointer.isEmpty || error.pointer.utf8.first == UInt8(ascii: "/"),
        "\(reader): malformed pointer in \(error)")
}
