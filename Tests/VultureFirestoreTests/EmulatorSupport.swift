import Foundation
import Testing
import VultureEmulators
import VultureFirestore
import VultureSyncSchema

/// The emulator tests' gate: they run where the emulator jar and Java are installed, and also where
/// they are missing but `VULTURE_REQUIRE_EMULATOR=1` (`.ci/run`), so that CI fails instead of
/// skipping. One emulator serves the whole test process (``FirestoreEmulator/shared()``); each test
/// uses collections of its own.
enum EmulatorSupport {
    static let availability = FirestoreEmulator.availability()

    /// True when the emulator tests should run.
    static let enabled: Bool = {
        if case .available = availability { return true }
        return FirestoreEmulator.isRequired
    }()

    /// Why they are skipped, printed by the test runner beside the skipped test.
    static let skipReason: Comment = {
        if case .unavailable(let why) = availability {
            if !FirestoreEmulator.isRequired { print("skipped: Firestore emulator tests: \(why)") }
            return Comment(rawValue: why)
        }
        return "the Firestore emulator is available"
    }()

    /// The shared emulator's REST client (token `owner`).
    static func client() throws -> FirestoreRESTClient {
        try FirestoreEmulator.shared().client()
    }

    /// A collection id no other test or run uses.
    static func uniqueCollection(_ prefix: String) -> String {
        counterLock.lock()
        defer { counterLock.unlock() }
        counter += 1
        return "\(prefix)-\(getpid())-\(counter)"
    }

    nonisolated(unsafe) private static var counter = 0
    private static let counterLock = NSLock()
}
