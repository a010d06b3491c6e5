import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// canonical-json: every way to read canonical typed JSON gives the same answer, and what is read
/// survives the canonical writer.
enum CanonicalJSONHarness {
    /// One reader kept across inputs, as a JSON Lines reader keeps it: its buffers and key cache
    /// must not carry one input into the next.
    nonisolated(unsafe) static let reusedReader = CanonicalJSONReader()
    static let file = "fuzz.json"

    static func run(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let bytes = Array(input)
        // The libFuzzer buffer itself (exactly sized, so the address sanitizer sees any read past it).
        let data =
            input.baseAddress.map {
                Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: $0), count: input.count, deallocator: .none)
            } ?? Data()
        // The same text inside a larger buffer, as one line of JSON Lines is read.
        let framed = [0x0A] + bytes + [0x0A]
        let slice = framed[1..<(framed.count - 1)]
        var outcomes: [DocumentForm?: ReadOutcome<FirestoreValue>] = [:]
        for form in [nil, DocumentForm.stored] {
            let fromData = ReadOutcome { try CanonicalJSON.decode(data, file: file, form: form) }
            try fromData.requireTyped("CanonicalJSON.decode(Data)", text: input, file: file)
            let others: [(String, ReadOutcome<FirestoreValue>)] = [
                (
                    "CanonicalJSON.decode([UInt8])",
                    ReadOutcome { try CanonicalJSON.decode(bytes, file: file, form: form) }
                ),
                (
                    "CanonicalJSON.decode(ArraySlice)",
                    ReadOutcome { try CanonicalJSON.decode(slice, file: file, form: form) }
                ),
                ("CanonicalJSONReader.decode", ReadOutcome { try reusedReader.decode(slice, file: file, form: form) }),
                (
                    "StrictJSONReader then CanonicalJSON.decode(node:)",
                    ReadOutcome {
                        let node = try StrictJSONReader.parse(bytes, file: file)
                        return try CanonicalJSON.decode(node: node, sourceBytes: bytes, file: file, form: form)
                    }
                ),
            ]
            for (name, outcome) in others {
                try require(
                    outcome == fromData,
                    "form \(form.map { "\($0)" } ?? "nil"): \(name) gave \(outcome.shown), "
                        + "CanonicalJSON.decode(Data) gave \(fromData.shown)")
            }
            if let value = fromData.value { try roundTrip(value, form: form) }
            outcomes[form] = fromData
        }
        // What the stored form accepts, the write form accepts as the same value.
        if let stored = outcomes[.stored]?.value {
            try require(outcomes[nil]?.value == stored, "the stored form accepted what the write form did not")
        }
        try writes(bytes, input)
    }

    /// The canonical bytes of `value` read back give `value`, and are their own canonical bytes.
    static func roundTrip(_ value: FirestoreValue, form: DocumentForm?) throws(FuzzViolation) {
        let encoded = CanonicalJSON.encode(value)
        let again = ReadOutcome { try CanonicalJSON.decode(encoded, file: "encoded", form: form) }
        try require(again == .value(value), "the canonical bytes of \(value) read back as \(again.shown)")
        let compact = Array(CanonicalJSON.compactString(value).utf8)
        let fromCompact = ReadOutcome { try CanonicalJSON.decode(compact, file: "compact", form: form) }
        try require(fromCompact == .value(value), "the compact text of \(value) read back as \(fromCompact.shown)")
        if let reencoded = again.value {
            try require(
                CanonicalJSON.encode(reencoded) == encoded, "canonical bytes are not a fixed point for \(value)")
        }
    }

    /// Canonical writes: a write read is written and read back as the same write.
    static func writes(_ bytes: [UInt8], _ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let write = ReadOutcome { try CanonicalJSON.decodeWrite(bytes, file: file) }
        try write.requireTyped("CanonicalJSON.decodeWrite", text: input, file: file)
        guard let w = write.value else { return }
        let encoded = CanonicalJSON.encode(w)
        let again = ReadOutcome { try CanonicalJSON.decodeWrite(encoded, file: "encoded") }
        try require(again == .value(w), "the canonical bytes of write \(w) read back as \(again.shown)")
    }
}
