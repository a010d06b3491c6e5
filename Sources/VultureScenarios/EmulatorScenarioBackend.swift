import Foundation
import VultureFirestore
import VultureFirestoreTesting
import VultureSchemaCore
import VultureSyncSchema

/// The real parts as a scenario's server: the Firestore emulator over REST (`FirestoreRESTClient`)
/// and a Cloud Storage server over its JSON API (`CloudStorageRESTClient` on fake-gcs-server).
/// Give every run its own emulator project and bucket, so runs never see each other's documents.
///
/// Devices reach Firestore as the signed-in user (`EmulatorIdToken`: `sub`/`user_id` and the
/// `revenueCatEntitlements` claim), so the security rules loaded in the emulator judge every write
/// the engine makes; another client's `serverCommit`, the expectations and the clock probe use
/// the `owner` token, which bypasses the rules.
///
/// Time: the emulator's clock is real and cannot be moved. Server timestamps (`updatedAt`, update
/// times) are its request times; ``start(for:)`` moves the scenario by whole days so that its start
/// falls within the day after the server's now (device clocks a little ahead of the server, times
/// of day kept); `advance` moves only the device clocks, and a late commit's `updatedAt` is taken
/// from ``serverNow()``, and the replay checks an expected `updatedAt` to be a timestamp, not its
/// value (``serverClockIsReal``). A comparison of a device clock with a server timestamp (the
/// purge's "on the server for the retention") sees the device ahead by the scenario's advances.
public final class EmulatorScenarioBackend: ScenarioBackend {
    /// The emulator's REST client with the `owner` token (no rules).
    public let owner: FirestoreRESTClient
    /// The bucket.
    public let bucket: CloudStorageRESTClient
    /// The path of the document the clock probe writes (outside `users/`).
    public static let probePath = "vulture-probe/clock"

    /// A backend on the emulator at `baseURL`, project `projectId`, and `bucket`.
    public init(firestoreURL baseURL: URL, projectId: String, bucket: CloudStorageRESTClient, timeout: Double = 60) {
        owner = FirestoreRESTClient(baseURL: baseURL, projectId: projectId, bearerToken: "owner", timeout: timeout)
        self.bucket = bucket
    }

    public var firestore: FirestoreDatabase { owner }
    public var storage: CloudStorage { bucket }

    /// The emulator's time now: the request time of a probe commit (a server timestamp).
    /// - Throws: `FirestoreError` when the commit fails.
    public func serverNow() throws(FirestoreError) -> FirestoreTimestamp {
        let write: FirestoreWrite
        do {
            write = try FirestoreWrite.set(["at": .serverTimestamp], path: Self.probePath)
        } catch {
            throw FirestoreError(.internal, "\(error)")
        }
        let result = try owner.commit([write])
        if case .timestamp(let t)? = result.writeResults.first?.transformResults.first { return t }
        if let t = result.commitTime { return t }
        throw FirestoreError(.internal, "the clock probe's commit reported no time")
    }

    /// True: server timestamps are the emulator's request times.
    public var serverClockIsReal: Bool { true }

    /// Seconds the scenario advanced so far: the emulator's clock did not move with them.
    public private(set) var advancedSeconds: Int64 = 0

    /// The server's clock is real and runs on its own: nothing moves here (the replay moves the
    /// device clocks), but the seconds are counted for ``lateCommitTime(lateBySeconds:)``.
    public func advance(seconds: Int64, microseconds: Int64) { advancedSeconds += max(0, seconds) }

    /// The emulator's now minus what of `late` the scenario's advances do not cover: in memory the
    /// server's clock moved by ``advancedSeconds`` since the scenario began, here it did not, so a
    /// commit late by 230 s after advances of 110 s lands 120 s before the emulator's now (never after
    /// it). The real time elapsed between requests (milliseconds) stays, so a commit meant to stand
    /// exactly on the overlap's edge stands that much inside it; advances made before the documents
    /// it is late against make it less late than in memory, never later.
    /// - Throws: `FirestoreError` when the clock probe fails.
    public func lateCommitTime(lateBySeconds late: Int64) throws(FirestoreError) -> FirestoreTimestamp {
        try serverNow().adding(seconds: -max(0, late - advancedSeconds))
    }

    /// A REST client whose token is the user's unsigned ID token with the claim's current value.
    public func database(signedInAs uid: String, entitlements: @escaping @Sendable () -> [String])
        -> FirestoreDatabase
    {
        let projectId = owner.projectId
        return FirestoreRESTClient(
            baseURL: owner.baseURL, projectId: projectId, databaseId: owner.databaseId, timeout: owner.timeout,
            bearerTokenSource: {
                EmulatorIdToken.unsigned(uid: uid, entitlements: entitlements(), projectId: projectId)
            }
        )
    }

    /// `scenario.start` moved by whole days into `[now, now + 1 day)` of the server's clock.
    public func start(for scenario: Scenario) throws(FirestoreError) -> FirestoreTimestamp {
        Self.start(scenario.start, near: try serverNow())
    }

    /// `start` moved by whole days into `[now, now + 1 day)`.
    public static func start(_ start: FirestoreTimestamp, near now: FirestoreTimestamp) -> FirestoreTimestamp {
        let day: Int64 = 86_400
        let behind = now.seconds - start.seconds
        // Whole days to add, rounded up: the moved start is at or after now.
        let days = behind >= 0 ? (behind + day - 1) / day : -((-behind) / day)
        return start.adding(seconds: days * day)
    }
}
