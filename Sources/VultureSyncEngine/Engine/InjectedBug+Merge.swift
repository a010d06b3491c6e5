import VultureSyncSchema

extension InjectedBug {
    /// ``DocumentMerge/merge(base:local:remote:collection:context:)`` as an engine with `bugs` merges
    /// (the merge bugs: `clientTimeMilliseconds`, `latestDatesByLaterEdit`, `uploadedNotOred`);
    /// without them, the merge itself.
    static func merge(
        base: [String: FirestoreValue]?, local: [String: FirestoreValue], remote: [String: FirestoreValue],
        collection: SyncCollection, context: MergeContext, bugs: Set<InjectedBug>
    ) -> MergeResult {
        guard !bugs.isEmpty else {
            return DocumentMerge.merge(
                base: base, local: local, remote: remote, collection: collection, context: context)
        }
        var (b, l, r) = (base, local, remote)
        if bugs.contains(.clientTimeMilliseconds) {
            func truncate(_ doc: inout [String: FirestoreValue]) {
                guard case .timestamp(let t)? = doc[clientTime] else { return }
                doc[clientTime] = .timestamp(
                    (try? FirestoreTimestamp(seconds: t.seconds, microseconds: t.microseconds / 1000 * 1000)) ?? t)
            }
            if b != nil { truncate(&b!) }
            truncate(&l)
            truncate(&r)
        }
        var result = DocumentMerge.merge(base: b, local: l, remote: r, collection: collection, context: context)
        guard !result.isTombstone, l["deleted"] != .boolean(true), r["deleted"] != .boolean(true) else { return result }
        if bugs.contains(.latestDatesByLaterEdit) {
            for field in ["lastOpenedAt", "usedAt"] where l[field] != nil || r[field] != nil {
                result.document[field] = laterEdit(b?[field], l[field], r[field], l, r)
            }
        }
        if bugs.contains(.uploadedNotOred) {
            for kind in StorageObjectKind.allCases where kind.recordType == collection.documentType {
                guard case .map(var merged)? = result.document[kind.mapField],
                    case .map(let lm)? = l[kind.mapField], case .map(let rm)? = r[kind.mapField],
                    lm["path"] == rm["path"]
                else { continue }
                merged["uploaded"] = laterEdit(
                    b?[kind.mapField]?.mapValue?["uploaded"], lm["uploaded"], rm["uploaded"], l, r)
                result.document[kind.mapField] = .map(merged)
            }
        }
        return result
    }

    static let clientTime = "clientUpdatedAt"

    /// The default rule: the side that changed; both changed → the later `clientUpdatedAt` (a tie to
    /// the server). Absent and null alike.
    static func laterEdit(
        _ base: FirestoreValue?, _ local: FirestoreValue?, _ remote: FirestoreValue?,
        _ l: [String: FirestoreValue], _ r: [String: FirestoreValue]
    ) -> FirestoreValue {
        let (b, x, y) = (base ?? .null, local ?? .null, remote ?? .null)
        if x == y { return y }
        if x != b && y == b { return x }
        if y != b && x == b { return y }
        guard case .timestamp(let lt)? = l[clientTime], case .timestamp(let rt)? = r[clientTime] else { return y }
        return lt > rt ? x : y
    }
}
