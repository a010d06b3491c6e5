import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// firestore-rest: every REST reader gives a value or a typed error with its position; what it reads
/// its writer writes back to the same value, and a document's fields read the same as canonical typed
/// JSON.
enum FirestoreRESTHarness {
    static let file = "fuzz.json"

    static func run(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let bytes = Array(input)

        let document = ReadOutcome { try FirestoreRESTJSON.decodeDocument(bytes, file: file) }
        try document.requireTyped("FirestoreRESTJSON.decodeDocument", text: input, file: file)
        if let d = document.value {
            let again = ReadOutcome { try FirestoreRESTJSON.decodeDocument(try FirestoreRESTJSON.encodeDocument(d)) }
            try require(again == .value(d), "document \(d) written and read back as \(again.shown)")
            try canonicalAgrees(.map(d.fields))
        }

        let value = ReadOutcome { try FirestoreRESTJSON.decodeValue(bytes, file: file) }
        try value.requireTyped("FirestoreRESTJSON.decodeValue", text: input, file: file)
        if let v = value.value {
            let again = ReadOutcome {
                try FirestoreRESTJSON.decodeValue(CanonicalJSONWriter.write(try FirestoreRESTJSON.node(v)))
            }
            try require(again == .value(v), "value \(v) written and read back as \(again.shown)")
            try canonicalAgrees(v)
        }

        let write = ReadOutcome { try WriteAndDatabase(FirestoreRESTJSON.decodeWrite(bytes, file: file)) }
        try write.requireTyped("FirestoreRESTJSON.decodeWrite", text: input, file: file)
        if let w = write.value {
            let again = ReadOutcome {
                try WriteAndDatabase(
                    FirestoreRESTJSON.decodeWrite(try FirestoreRESTJSON.encodeWrite(w.write, database: w.database)))
            }
            try require(again == .value(w), "write \(w.write) written and read back as \(again.shown)")
            let canonical = ReadOutcome { try CanonicalJSON.decodeWrite(CanonicalJSON.encode(w.write)) }
            try require(
                canonical == .value(w.write), "write \(w.write) as canonical JSON read back as \(canonical.shown)")
        }

        let commit = ReadOutcome { try FirestoreRESTJSON.decodeCommitRequest(bytes, file: file) }
        try commit.requireTyped("FirestoreRESTJSON.decodeCommitRequest", text: input, file: file)
        if let c = commit.value {
            let again = ReadOutcome {
                try FirestoreRESTJSON.decodeCommitRequest(try FirestoreRESTJSON.encodeCommitRequest(c))
            }
            try require(again == .value(c), "commit request written and read back as \(again.shown)")
        }

        let batch = ReadOutcome { try FirestoreRESTJSON.decodeBatchWriteRequest(bytes, file: file) }
        try batch.requireTyped("FirestoreRESTJSON.decodeBatchWriteRequest", text: input, file: file)
        if let b = batch.value {
            let again = ReadOutcome {
                try FirestoreRESTJSON.decodeBatchWriteRequest(try FirestoreRESTJSON.encodeBatchWriteRequest(b))
            }
            try require(again == .value(b), "batch write request written and read back as \(again.shown)")
        }

        // The message detection answers as the reader of the shape it detects.
        let message = ReadOutcome { try FirestoreRESTJSON.decodeWriteMessage(bytes, file: file) }
        try message.requireTyped("FirestoreRESTJSON.decodeWriteMessage", text: input, file: file)
        switch message.value {
        case .write(let w, let database)?:
            try require(write.value == WriteAndDatabase((w, database)), "decodeWriteMessage and decodeWrite disagree")
        case .commitRequest(let c)?:
            try require(commit.value == c, "decodeWriteMessage and decodeCommitRequest disagree")
        case .batchWriteRequest(let b)?:
            try require(batch.value == b, "decodeWriteMessage and decodeBatchWriteRequest disagree")
        case nil: break
        }
    }

    /// A stored-form value read from REST JSON reads the same from its canonical typed JSON.
    static func canonicalAgrees(_ value: FirestoreValue) throws(FuzzViolation) {
        let canonical = ReadOutcome { try CanonicalJSON.decode(CanonicalJSON.encode(value), form: .stored) }
        try require(canonical == .value(value), "REST value \(value) as canonical JSON read back as \(canonical.shown)")
    }
}

/// A write and the database its name is in, compared together.
struct WriteAndDatabase: Equatable {
    var write: FirestoreWrite
    var database: String

    init(_ pair: (write: FirestoreWrite, database: String)) {
        write = pair.write
        database = pair.database
    }
}
