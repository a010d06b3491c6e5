// ReferenceImplementation — answers every operation of the testee protocol with this package's own
// VultureSyncSchema, for the built-in run, the reference testee and the goldens writer.
import Foundation
import VultureConformance
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

/// A typed rejection an operation answers with: `{seq, error: {code, message}}`.
///
/// `code` is a stable rule id (`id.contains-slash`, `blob.object-too-large`, `schema.type`, …);
/// invalid-input cases expect it.
public struct OperationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable rule id (`id.contains-slash`, `input.shape`, …); the only part a case compares.
    public var code: String
    /// A plain-English explanation for a person; never compared.
    public var message: String

    /// A rejection with a rule id and an explanation.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// A rejection with one of the protocol's error codes (`Spec/rules.tsv`) and an explanation.
    public init(_ code: ErrorCode, message: String) {
        self.init(code: code.rawValue, message: message)
    }

    public var description: String { "\(code): \(message)" }
}

/// The reference implementation: every operation of the testee protocol answered by this
/// package's own codec. The built-in run and the reference testee executable both use it.
///
/// Operations (inputs and outputs are canonical typed JSON; see Goldens/protocol/README.md):
/// `encode`, `id.flight`, `id.homebase`, `id.task`, `id.mapFile`, `id.recentCompetition`,
/// `blob.path`, `blob.metadata`, `blob.uploadCheck`, `blob.verify`, `validate`, and those added
/// by the document and settings operation tables.
public struct ReferenceImplementation: ConformanceImplementation {
    /// An operation: input → output, or a typed rejection.
    public typealias Operation = @Sendable (FirestoreValue) throws(OperationError) -> FirestoreValue

    /// Every operation by name, but the engine operations (``engineOperations``).
    public let operations: [String: Operation]

    /// The engine operations (`engine.reset`, `engine.step`, `engine.rows`): answered by one
    /// reference `SyncEngine` per scenario device, whose requests go to the runner's server.
    public static let engineOperations: Set<String> = [
        TesteeOperation.engineReset.rawValue, TesteeOperation.engineStep.rawValue, TesteeOperation.engineRows.rawValue,
    ]

    /// The engines of the scenario being replayed (shared by copies of this value).
    let engines: ReferenceEngines

    /// Collects every operation table. Without a schema only the `id.*` and `blob.*` operations exist;
    /// cases of the schema-dependent ones (`encode`, `validate`, settings, …) are then skipped.
    /// `injectedBugs` give the engines of the engine operations those bugs (a broken testee for tests;
    /// empty otherwise), `variants` other choices the seed leaves free (a right testee unlike the
    /// reference, for tests; empty otherwise).
    public init(schema: SyncSchema? = nil, injectedBugs: Set<InjectedBug> = [], variants: Set<EngineVariant> = []) {
        engines = ReferenceEngines(injectedBugs: injectedBugs, variants: variants)
        var ops: [String: Operation] = [:]
        for table in [IdOperations.table, BlobOperations.table, ValidationOperations.table(schema: schema)] {
            ops.merge(table) { first, _ in first }
        }
        for table in ReferenceImplementation.extraTables(schema: schema) {
            ops.merge(table) { first, _ in first }
        }
        operations = ops
    }

    /// Runs the case's operation on its input: its output or typed rejection, or a skip when this
    /// implementation has no operation of that name.
    public mutating func answer(_ testCase: ConformanceCase) -> ImplementationAnswer {
        if Self.engineOperations.contains(testCase.op) {
            return .skipped(reason: "\(testCase.op) runs inside a scenario, with the runner's server")
        }
        guard let op = operations[testCase.op] else {
            return .skipped(reason: "the reference implementation has no operation \(testCase.op)")
        }
        do {
            return .output(try op(testCase.input))
        } catch {
            return .error(code: error.code, message: error.message)
        }
    }
}

extension ReferenceImplementation {
    /// Answers an engine operation with the reference engines, their requests going to `server`; any
    /// other case as ``answer(_:)``.
    public mutating func answer(_ testCase: ConformanceCase, server: EngineServerChannel) -> ImplementationAnswer {
        guard Self.engineOperations.contains(testCase.op) else { return answer(testCase) }
        do {
            return .output(try engines.answer(op: testCase.op, input: testCase.input, server: server))
        } catch {
            return .error(code: error.code, message: error.message)
        }
    }
}

/// Reading operation inputs: typed accessors that reject with `input.*` codes.
public struct OperationInput: Sendable {
    /// The input map's members by name.
    public let fields: [String: FirestoreValue]

    /// - Throws: `OperationError` (`input.shape`) unless `value` is a map.
    public init(_ value: FirestoreValue) throws(OperationError) {
        guard case .map(let m) = value else {
            throw OperationError(.inputShape, message: "an operation input is a map, found \(value.typeName)")
        }
        fields = m
    }

    /// The string member `key`.
    /// - Throws: `OperationError` (`input.shape`) when it is absent or not a string.
    public func string(_ key: String) throws(OperationError) -> String {
        guard case .string(let s)? = fields[key] else {
            throw OperationError(.inputShape, message: "input.\(key) must be a string")
        }
        return s
    }

    /// The string member `key`, or nil when it is absent or null.
    /// - Throws: `OperationError` (`input.shape`) when it is any other type.
    public func optionalString(_ key: String) throws(OperationError) -> String? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        default: throw OperationError(.inputShape, message: "input.\(key) must be a string or null")
        }
    }

    /// The bytes member `key`.
    /// - Throws: `OperationError` (`input.shape`) when it is absent or not bytes.
    public func bytes(_ key: String) throws(OperationError) -> Data {
        guard case .bytes(let b)? = fields[key] else {
            throw OperationError(.inputShape, message: "input.\(key) must be bytes")
        }
        return b
    }

    /// The integer member `key` (int64).
    /// - Throws: `OperationError` (`input.shape`) when it is absent or not an integer (a double is not).
    public func integer(_ key: String) throws(OperationError) -> Int64 {
        guard case .integer(let i)? = fields[key] else {
            throw OperationError(.inputShape, message: "input.\(key) must be an integer")
        }
        return i
    }

    /// The map member `key`.
    /// - Throws: `OperationError` (`input.shape`) when it is absent or not a map.
    public func map(_ key: String) throws(OperationError) -> [String: FirestoreValue] {
        guard case .map(let m)? = fields[key] else {
            throw OperationError(.inputShape, message: "input.\(key) must be a map")
        }
        return m
    }
}

extension DocumentIdError {
    /// The stable code of this error in the testee protocol (`id.empty`, `id.contains-slash`, …;
    /// `Spec/rules.tsv`).
    public var errorCode: ErrorCode {
        switch self {
        case .empty: .idEmpty
        case .tooLong: .idTooLong
        case .dotSegment: .idDotSegment
        case .reserved: .idReserved
        case .containsSlash: .idContainsSlash
        case .uidTooLong: .idUidTooLong
        case .notLowercaseHexSHA256: .idNotSHA256Hex
        case .invalidMapFileKey: .idInvalidMapFileKey
        case .undetermined(let rule, _): rule.algorithm == .randomUUID ? .idRandom : .inputShape
        }
    }

    /// ``errorCode``'s id.
    public var code: String { errorCode.rawValue }

    var operationError: OperationError { OperationError(errorCode, message: "\(self)") }
}

extension BlobError {
    /// The stable code of this error in the testee protocol (`blob.object-too-large`, `gzip.truncated`, …;
    /// `Spec/rules.tsv`). A uid error is `blob.invalid-uid.` followed by the id rule's code.
    public var errorCode: ErrorCode {
        switch self {
        case .invalidUid(let e):
            switch e {
            case .empty: .blobInvalidUidEmpty
            case .tooLong: .blobInvalidUidIdTooLong
            case .dotSegment: .blobInvalidUidDotSegment
            case .reserved: .blobInvalidUidReserved
            case .containsSlash: .blobInvalidUidContainsSlash
            // validate(uid:) throws only the rules above and the uid's own length.
            case .uidTooLong, .notLowercaseHexSHA256, .invalidMapFileKey, .undetermined: .blobInvalidUidUidTooLong
            }
        case .invalidHash: .blobInvalidHash
        case .objectTooLarge: .blobObjectTooLarge
        case .flightIdMismatch: .blobFlightIdMismatch
        case .gzip(let g): g.errorCode
        }
    }

    /// ``errorCode``'s id.
    public var code: String { errorCode.rawValue }

    var operationError: OperationError { OperationError(errorCode, message: "\(self)") }
}

extension GzipError {
    /// The stable code of this error in the testee protocol (`gzip.truncated`, `gzip.crc`, …; `Spec/rules.tsv`).
    public var errorCode: ErrorCode {
        switch self {
        case .truncated: .gzipTruncated
        case .crcMismatch: .gzipCRC
        case .lengthMismatch: .gzipLength
        case .invalidHeader: .gzipHeader
        case .corruptData: .gzipCorrupt
        case .trailingGarbage: .gzipTrailingGarbage
        case .outputLimitExceeded: .gzipOutputLimit
        case .zlibFailure: .gzipZlib
        case .file: .gzipFile
        }
    }

    /// ``errorCode``'s id.
    public var code: String { errorCode.rawValue }
}

/// The id operations (schema §4), answered by the one id dispatcher
/// ``DocumentIds/documentId(collection:fields:inputs:)`` where a rule is picked by the record.
enum IdOperations {
    static func documentId(_ collection: SyncCollection, fields: [String: FirestoreValue]) throws(OperationError)
        -> FirestoreValue
    {
        do throws(DocumentIdError) {
            return .string(try DocumentIds.documentId(collection: collection, fields: fields).id)
        } catch {
            throw error.operationError
        }
    }

    static let table: [String: ReferenceImplementation.Operation] = [
        "id.flight": { input throws(OperationError) in
            .string(DocumentIds.flightId(igcBytes: try OperationInput(input).bytes("igc")))
        },
        "id.homebase": { input throws(OperationError) in
            .string(DocumentIds.homebaseId(name: try OperationInput(input).string("name")))
        },
        "id.task": { input throws(OperationError) in
            let url = try OperationInput(input).optionalString("externalUrl")
            return try documentId(.tasks, fields: url.map { ["externalUrl": .string($0)] } ?? [:])
        },
        "id.mapFile": { input throws(OperationError) in
            let i = try OperationInput(input)
            var fields: [String: FirestoreValue] = [
                "source": .string(try i.string("source")), "type": .string(try i.string("type")),
            ]
            if i.fields["source"] == .string(MapFileSource.user.rawValue) {
                fields["contentHash"] = .string(try i.string("contentHash"))
            } else {
                fields["filename"] = .string(try i.string("filename"))
            }
            return try documentId(.mapFiles, fields: fields)
        },
        "id.contentHash": { input throws(OperationError) in
            let i = try OperationInput(input)
            switch try i.string("variant") {
            case "bytes": return .string(DocumentIds.contentHash(contentBytes: try i.bytes("content")))
            case let variant where variant == "iosText" || variant == "iosCub":
                let content = try i.string("content")
                guard let hash = DocumentIds.contentHash(iosContent: content, isCub: variant == "iosCub") else {
                    throw OperationError(.inputShape, message: "content is not standard padded Base64")
                }
                return .string(hash)
            case let other:
                throw OperationError(.inputShape, message: "variant is bytes, iosText or iosCub, not \(other)")
            }
        },
        "id.recentCompetition": { input throws(OperationError) in
            let id = try OperationInput(input).string("competitionId")
            do throws(DocumentIdError) {
                return .string(try DocumentIds.recentCompetitionId(competitionId: id))
            } catch {
                throw error.operationError
            }
        },
    ]
}

/// The Storage object operations (schema §2, Storage objects).
enum BlobOperations {
    static let table: [String: ReferenceImplementation.Operation] = [
        "blob.path": { input throws(OperationError) in
            let i = try OperationInput(input)
            let kind = try i.string("kind")
            let uid = try i.string("uid")
            let hash = try i.string("hash")
            do throws(BlobError) {
                switch kind {
                case "igc": return .string(try BlobPaths.igcObjectPath(uid: uid, flightId: hash))
                case "content": return .string(try BlobPaths.contentObjectPath(uid: uid, contentHash: hash))
                default: break
                }
            } catch {
                throw error.operationError
            }
            throw OperationError(.inputShape, message: "kind is igc or content")
        },
        "blob.metadata": { input throws(OperationError) in
            let i = try OperationInput(input)
            let metadata: StorageObjectMetadata
            switch try i.string("kind") {
            case "igc": metadata = .igc
            case "content":
                let recordId = try i.string("recordId")
                do throws(DocumentIdError) {
                    metadata = try StorageObjectMetadata.mapFileContent(recordId: recordId)
                } catch {
                    throw error.operationError
                }
            default: throw OperationError(.inputShape, message: "kind is igc or content")
            }
            return .map([
                "contentType": .string(metadata.contentType),
                "contentEncoding": metadata.contentEncoding.map { .string($0) } ?? .null,
                "customMetadata": .map(metadata.customMetadata.mapValues { .string($0) }),
            ])
        },
        "blob.uploadCheck": { input throws(OperationError) in
            let gzBytes = try OperationInput(input).integer("gzBytes")
            do throws(BlobError) {
                try StorageLimits.checkUploadSize(gzBytes: gzBytes)
            } catch {
                throw error.operationError
            }
            return .map([:])
        },
        "blob.verify": { input throws(OperationError) in
            let i = try OperationInput(input)
            let gz = try i.bytes("gz")
            let flightId = try i.string("flightId")
            do throws(BlobError) {
                let raw = try IGCDownload.verify(gzipped: gz, flightId: flightId)
                return .map(["sizeBytes": .integer(Int64(raw.count))])
            } catch {
                throw error.operationError
            }
        },
    ]
}

/// `validate`: `{collection, form, document, strict?, merge?}` → `{"warnings": [pointer: rule…]}`,
/// or the first error's rule id as a typed rejection (schema §2, Goldens/FORMAT.md).
enum ValidationOperations {
    static func table(schema: SyncSchema?) -> [String: ReferenceImplementation.Operation] {
        guard let schema else { return [:] }
        let validator = SchemaValidator(schema: schema)
        return [
            "validate": { input throws(OperationError) in
                let i = try OperationInput(input)
                let collectionName = try i.string("collection")
                guard let collection = schema.collection(named: collectionName) else {
                    throw OperationError(.inputShape, message: "unknown collection \(collectionName)")
                }
                guard let form = DocumentForm(rawValue: try i.string("form")) else {
                    throw OperationError(.inputShape, message: "form is write or stored")
                }
                let document = try i.map("document")
                do {
                    try FirestoreValue.map(document).validate(form: form)
                } catch let e as SchemaInputError {
                    throw OperationError(code: e.rule.rawValue, message: e.description)
                } catch {
                    throw OperationError(.inputShape, message: "\(error)")
                }
                let options = ValidationOptions(
                    form: form, strict: i.fields["strict"] == .boolean(true),
                    mergeWrite: i.fields["merge"] == .boolean(true))
                let violations = validator.validate(document, documentType: collection.documentType, options: options)
                if let first = violations.first(where: { $0.severity == .error }) {
                    throw OperationError(code: first.rule, message: first.description)
                }
                return .map(["warnings": .array(violations.map { .string("\($0.pointer): \($0.rule)") })])
            }
        ]
    }
}
