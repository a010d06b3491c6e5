import Foundation
import VultureFirestore
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// The app's logbook: imports IGC files and syncs them through the reference engine, over the
/// app's own ``LogbookStore``. The backends are the app's to choose: in the app a `FirestoreClient`
/// over the Firebase SDK (`.client`), in its tests the testing product's `SDKSurfaceFirestore`,
/// which offers no more than the SDK does.
public final class Logbook {
    /// The engine, over the app's store.
    public let engine: SyncEngine
    /// The app's database under the engine's store.
    public let database: LogbookDatabase

    /// A logbook for the signed-in user `uid` on this device.
    public init(
        uid: String, deviceId: String, database: LogbookDatabase, firestore: SyncFirestore, storage: CloudStorage,
        clock: @escaping @Sendable () -> FirestoreTimestamp
    ) {
        self.database = database
        engine = SyncEngine(
            configuration: SyncConfiguration(uid: uid, deviceId: deviceId, platform: .ios),
            backend: firestore, storage: storage, store: LogbookStore(database: database), clock: clock)
    }

    /// Imports an IGC file as the pilot picked it: the header's pilot and glider go into the record,
    /// and a summary from the first and last fix until the app analyses the flight.
    /// - Returns: the flight id (the SHA-256 of the bytes, schema §2 flights).
    /// - Throws: ``LocalChangeError`` for a file the schema refuses.
    @discardableResult
    public func importFlight(igc: Data, filename: String) throws(LocalChangeError) -> String {
        let header = IGCHeader(igcBytes: igc)
        func text(_ s: String?) -> FirestoreValue { s.map { .string($0) } ?? .null }
        var summary = FlightSummary(takeoffAt: header.firstFix, landingAt: header.lastFix)
        if let t = header.firstFix, let l = header.lastFix { summary.duration = max(0, l.seconds - t.seconds) }
        return try engine.importFlight(
            igc: igc,
            fields: [
                "filename": .string(filename), "inLogbook": .boolean(true), "pilotName": text(header.pilotName),
                "gliderType": text(header.gliderType), "summary": summary.firestoreValue(form: .stored),
            ])
    }

    /// Pulls, then pushes (schema §5.1).
    /// - Throws: ``SyncError``; nothing local is lost.
    public func sync() throws(SyncError) { try engine.sync() }

    /// The flights in the logbook (not deleted), by id.
    public var flights: [LocalRow] { engine.store.rows(.flights).filter { !$0.isTombstone } }

    /// Marks the flight `id` a favourite or not (schema §2 flights `isFavorite`).
    /// - Throws: ``LocalChangeError`` when the logbook has no such flight.
    public func setFavorite(_ id: String, _ favorite: Bool) throws(LocalChangeError) {
        _ = try engine.save(.flights, id: id, changes: [FlightDocument.Field.isFavorite: .boolean(favorite)])
    }

    /// Sets the flight `id`'s comments.
    /// - Throws: ``LocalChangeError`` when the logbook has no such flight; `.schema` for comments
    ///   longer than the schema allows (`schema.max-chars`, 10,000 characters).
    public func setComments(_ id: String, _ comments: String) throws(LocalChangeError) {
        _ = try engine.save(.flights, id: id, changes: [FlightDocument.Field.comments: .string(comments)])
    }
}
