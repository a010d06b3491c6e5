import VultureFirestore
import VultureScenarios
import VultureSyncEngine
import VultureSyncSchema

/// The server a simulated world runs against: a scenario backend that can also list every
/// document of a user, for the invariants. ``InMemoryScenarioBackend`` (the deterministic
/// default) and ``EmulatorScenarioBackend`` (the Firestore emulator and fake-gcs-server; give each
/// run a project and a bucket of its own) are ones.
public protocol SimulationBackend: ScenarioBackend {
    /// Every document of user `uid`: the profile and every collection's documents, by path.
    /// - Throws: `FirestoreError` when the server does not answer.
    func documents(uid: String) throws(FirestoreError) -> [FirestoreDocument]
}

extension InMemoryScenarioBackend: SimulationBackend {
    public func documents(uid: String) throws(FirestoreError) -> [FirestoreDocument] {
        let profile = SyncCollection.profilePath(uid: uid)
        return memory.allDocuments.filter { $0.path == profile || $0.path.utf8.starts(with: (profile + "/").utf8) }
    }
}

extension EmulatorScenarioBackend: SimulationBackend {
    /// The profile (a get) and one query per collection, with the `owner` token.
    public func documents(uid: String) throws(FirestoreError) -> [FirestoreDocument] {
        var out: [FirestoreDocument] = []
        if let profile = try owner.get(SyncCollection.profilePath(uid: uid)) { out.append(profile) }
        for collection in SyncCollection.allCases where collection != .users {
            out += try owner.runQuery(
                FirestoreQuery(parent: collection.parentPath(uid: uid), collectionId: collection.rawValue))
        }
        return out.sorted { $0.path < $1.path }
    }
}
