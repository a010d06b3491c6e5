import Foundation
import VultureSchemaCore
import VultureSyncSchema

/// A clock that moves only when told: the injected time of a device or of the in-memory server, so
/// a run replays exactly (no wall clock inside the engine or the simulation).
public final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: FirestoreTimestamp

    /// A clock showing `start`.
    public init(_ start: FirestoreTimestamp) { current = start }

    /// The time now.
    public var now: FirestoreTimestamp {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// Moves the clock by `seconds` (and `microseconds`), forward or back; a move past Firestore's
    /// range stops at its end (``FirestoreTimestamp/adding(seconds:microseconds:)``).
    public func advance(seconds: Int64, microseconds: Int64 = 0) {
        lock.lock()
        defer { lock.unlock() }
        current = current.adding(seconds: seconds, microseconds: microseconds)
    }

    /// Sets the clock.
    public func set(_ time: FirestoreTimestamp) {
        lock.lock()
        defer { lock.unlock() }
        current = time
    }

    /// The clock as the closure the engine and the in-memory Firestore take.
    public var source: @Sendable () -> FirestoreTimestamp { { [self] in self.now } }
}
