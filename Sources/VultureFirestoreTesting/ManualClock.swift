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

    /// Moves the clock by `seconds` (and `microseconds`), forward or back.
    public func advance(seconds: Int64, microseconds: Int64 = 0) {
        lock.lock()
        defer { lock.unlock() }
        let total = current.seconds * 1_000_000 + Int64(current.microseconds) + seconds * 1_000_000 + microseconds
        let s = total >= 0 ? total / 1_000_000 : (total - 999_999) / 1_000_000
        current = (try? FirestoreTimestamp(seconds: s, microseconds: Int32(total - s * 1_000_000))) ?? current
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
