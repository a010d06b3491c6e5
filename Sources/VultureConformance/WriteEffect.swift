import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// Judges a write by its effect (Goldens/FORMAT.md, "Writes"; schema §5.1): the golden's write and
/// the testee's are each applied, with Firestore's semantics (`FirestoreWrite.apply(to:requestTime:)`),
/// to the case's stored base — a document that also holds fields this schema version does not know —
/// and the two results are compared by typed value. Two writes pass as equal when they leave the
/// same document, so `mergeFields: ["summary"]` and a leaf mask plus a `$delete` of each removed key
/// both pass. When the golden's write carries a precondition, both are also applied to a missing
/// document, where they must succeed or fail alike.
///
/// Every difference is reported under `/effect` (the document after the write) with its field path
/// and the fix: a stale nested key ("replace summary with mergeFields/update"), a removed field the
/// golden leaves as stored (an unknown field among them), an empty-map wipe, a counter set instead
/// of moved by `$increment`.
public enum WriteEffect {
    /// The canonical typed JSON of a write without its path: `{"fields": …, "mask"?: […],
    /// "precondition"?: …}`, or `{"delete": true, "precondition"?: …}` (README, "Writes").
    public static func value(of write: FirestoreWrite) -> FirestoreValue {
        var w = write
        w.path = nil
        return (try? CanonicalJSON.decode(node: CanonicalJSON.node(w))) ?? .null
    }

    /// Reads a write from its canonical typed JSON value (the `write` member of an answer).
    /// - Throws: `SchemaInputError` (`write.shape`, `write.mask`, `write.field-path`, …) as
    ///   `CanonicalJSON.decodeWrite(_:file:)` does.
    public static func write(from value: FirestoreValue, path: String?) throws -> FirestoreWrite {
        var w = try CanonicalJSON.decodeWrite(CanonicalJSON.encode(value))
        if w.path == nil { w.path = path }
        return w
    }

    /// Every difference between the effects of `expected` (the golden's write) and `actual` (the
    /// testee's) on the stored document `base`, in field path order; empty when they leave the same
    /// document (and, when `expected` has a precondition, when both fare alike on a missing document).
    ///
    /// - Parameters:
    ///   - expected: the golden's write.
    ///   - actual: the testee's write.
    ///   - base: the stored document both writes are applied to (stored form).
    ///   - path: the document path (`users/{uid}/flights/{id}`).
    ///   - requestTime: the commit's request time every server timestamp takes.
    ///   - documentType: the document type (`FlightDocument`) that tells a field of this schema
    ///     version from an unknown one in the messages; nil when unknown.
    public static func differences(
        expected: FirestoreWrite, actual: FirestoreWrite, base: [String: FirestoreValue], path: String,
        requestTime: FirestoreTimestamp, documentType: String? = nil
    ) -> [ValueDifference] {
        let stored = FirestoreDocument(path: path, fields: base, createTime: requestTime, updateTime: requestTime)
        var out: [ValueDifference] = []
        let want: [String: FirestoreValue]?
        do {
            want = try expected.apply(to: stored, requestTime: requestTime).fields
        } catch {
            return [
                ValueDifference(
                    pointer: "/effect", kind: .valueMismatch, expected: nil, actual: nil,
                    hint: "the golden's write does not apply to the case's base (\(error)); the case is broken")
            ]
        }
        let got: [String: FirestoreValue]?
        do {
            got = try actual.apply(to: stored, requestTime: requestTime).fields
        } catch {
            return [
                ValueDifference(
                    pointer: "/effect", kind: .valueMismatch, expected: want.map { .map($0) }, actual: nil,
                    hint: "Firestore refuses the write on the stored base: \(error)")
            ]
        }
        let known = Set(documentType.map { SyncSchema.vulture.documentFields(of: $0).map(\.name) } ?? [])
        let context = Context(
            expected: expected, actual: actual, base: base, known: known, checksKnown: documentType != nil)
        context.compare(want.map { .map($0) }, got.map { .map($0) }, at: [], into: &out)
        if expected.precondition != nil {
            out += missingDocumentDifferences(expected: expected, actual: actual, requestTime: requestTime)
        }
        return out
    }

    /// Both writes applied to a missing document: they must both fail with one status, or leave one
    /// document.
    static func missingDocumentDifferences(
        expected: FirestoreWrite, actual: FirestoreWrite, requestTime: FirestoreTimestamp
    ) -> [ValueDifference] {
        func outcome(_ w: FirestoreWrite) -> Result<[String: FirestoreValue]?, FirestoreError> {
            do throws(FirestoreError) {
                return .success(try w.apply(to: nil, requestTime: requestTime).fields)
            } catch {
                return .failure(error)
            }
        }
        switch (outcome(expected), outcome(actual)) {
        case (.failure(let e), .failure(let a)) where e.status == a.status:
            return []
        case (.success(let e), .success(let a)) where e == a:
            return []
        case (.failure(let e), .success(let a)):
            return [
                ValueDifference(
                    pointer: "/effect", kind: .unexpected, expected: nil, actual: a.map { .map($0) },
                    hint: "on a missing document the golden's write fails with \(e.status.rawValue) (precondition "
                        + "\(preconditionText(expected.precondition))) but this write creates a document; add the "
                        + "precondition")
            ]
        case (.success(let e), .failure(let a)):
            return [
                ValueDifference(
                    pointer: "/effect", kind: .missing, expected: e.map { .map($0) }, actual: nil,
                    hint: "on a missing document this write fails (\(a)), the golden's does not")
            ]
        case (.failure(let e), .failure(let a)):
            return [
                ValueDifference(
                    pointer: "/effect", kind: .valueMismatch, expected: nil, actual: nil,
                    hint: "on a missing document the golden's write fails with \(e.status.rawValue), this one with "
                        + "\(a.status.rawValue)")
            ]
        case (.success(let e), .success(let a)):
            return [
                ValueDifference(
                    pointer: "/effect", kind: .valueMismatch, expected: e.map { .map($0) }, actual: a.map { .map($0) },
                    hint: "on a missing document the two writes leave different documents")
            ]
        }
    }

    static func preconditionText(_ p: FirestorePrecondition?) -> String {
        switch p {
        case .exists(let b)?: "exists: \(b)"
        case .updateTime(let t)?: "updateTime: \(t)"
        case nil: "none"
        }
    }

    /// What the messages need to know while walking the two results.
    struct Context {
        var expected: FirestoreWrite
        var actual: FirestoreWrite
        var base: [String: FirestoreValue]
        /// The top-level fields of this schema version.
        var known: Set<String>
        var checksKnown: Bool

        func pointer(_ segments: [String]) -> String {
            segments.reduce("/effect") { JSONPointer.appending($0, $1) }
        }

        func text(_ segments: [String]) -> String {
            segments.isEmpty ? "the document" : FieldPath(unchecked: segments).description
        }

        func isUnknown(_ segments: [String]) -> Bool {
            checksKnown && !segments.isEmpty && !known.contains(segments[0])
        }

        func compare(
            _ e: FirestoreValue?, _ a: FirestoreValue?, at segments: [String], into out: inout [ValueDifference]
        ) {
            let stored = FirestoreValue.map(base)[path: FieldPath(unchecked: segments)]
            switch (e, a) {
            case (nil, nil):
                return
            case (nil, let a?):
                var hint = "\(text(segments)) is in the document after this write, not after the golden's"
                if segments.count > 1, stored == a {
                    let parent = FieldPath(unchecked: Array(segments.dropLast()))
                    hint =
                        "stale nested key \(text(segments)): the write merged \(parent) key by key and left a key "
                        + "the edit removed; replace \(parent) with mergeFields/update (mask path \(parent)), or "
                        + "delete \(text(segments)) through the mask"
                } else if stored == a {
                    hint = "\(text(segments)) stays as stored, but the golden's write removes it"
                }
                out.append(
                    ValueDifference(pointer: pointer(segments), kind: .unexpected, expected: nil, actual: a, hint: hint)
                )
            case (let e?, nil):
                var hint = "\(text(segments)) is missing after this write"
                if stored == e {
                    let what = isUnknown(segments) ? "unknown field" : "field"
                    hint =
                        "removed \(what) \(text(segments)): the golden's write leaves it as stored"
                        + (isUnknown(segments) ? " (a field this schema version does not know)" : "")
                        + "; a merge never removes a field the writer does not know or did not change — send a "
                        + "mask (set(merge)/mergeFields/update), not a full set"
                }
                out.append(
                    ValueDifference(pointer: pointer(segments), kind: .missing, expected: e, actual: nil, hint: hint))
            case (.map(let em)?, .map(let am)?):
                if am.isEmpty, !em.isEmpty {
                    out.append(
                        ValueDifference(
                            pointer: pointer(segments), kind: .valueMismatch, expected: e, actual: a,
                            hint: "empty-map wipe at \(text(segments)): an empty map in a merge is a leaf and "
                                + "replaces the stored map; mask only the changed keys (\(text(segments)).KEY) or "
                                + "leave \(text(segments)) out"))
                    return
                }
                for key in Set(em.keys).union(am.keys).sorted(by: CanonicalJSONWriter.utf16Precedes) {
                    compare(em[key], am[key], at: segments + [key], into: &out)
                }
            case (let e?, let a?):
                guard e != a else { return }
                var hint = "\(text(segments)) differs after the write"
                let path = FieldPath(unchecked: segments)
                let incremented = expected.transforms.contains { $0.path == path && isIncrement($0.kind) }
                let actualIncrement = actual.transforms.contains { $0.path == path && isIncrement($0.kind) }
                if incremented && !actualIncrement {
                    hint =
                        "\(text(segments)) must move by $increment: the stored base holds another writer's change, "
                        + "which a value overwrites"
                }
                out.append(
                    ValueDifference(
                        pointer: pointer(segments), kind: .valueMismatch, expected: e, actual: a, hint: hint)
                )
            }
        }

        func isIncrement(_ kind: FirestoreFieldTransform.Kind) -> Bool {
            if case .increment = kind { return true }
            return false
        }
    }
}
