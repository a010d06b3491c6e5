import VultureSyncSchema

/// What the merge needs beyond the three documents.
struct RecordMergeContext {
    var localCreatedAt: FirestoreTimestamp
    var taskIds: Set<String>
}

/// The merge the engine calls. INTERIM: the default three-way rule only, until the rules of
/// Spec/merge-rules.tsv land in Rules/ (issue 9); replaced before this branch merges.
enum RecordMerge {
    struct Result {
        var document: [String: FirestoreValue]
        var deferredTaskId: String?
    }

    static func merge(
        collection: SyncCollection, base: [String: FirestoreValue]?, local: [String: FirestoreValue],
        remote: [String: FirestoreValue], context: RecordMergeContext
    ) -> Result {
        let base = base ?? [:]
        var out: [String: FirestoreValue] = [:]
        let localTime = local["clientUpdatedAt"]
        let remoteTime = remote["clientUpdatedAt"]
        let localLater: Bool = {
            guard case .timestamp(let l)? = localTime, case .timestamp(let r)? = remoteTime else { return false }
            return l > r
        }()
        for key in Set(base.keys).union(local.keys).union(remote.keys) {
            let b = base[key]
            let l = local[key]
            let r = remote[key]
            let value: FirestoreValue?
            if l == b { value = r } else if r == b { value = l } else { value = localLater ? l : r }
            out[key] = value
        }
        out["updatedAt"] = remote["updatedAt"]
        return Result(document: out, deferredTaskId: nil)
    }
}
