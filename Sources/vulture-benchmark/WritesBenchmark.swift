import Foundation
import VultureEmulators
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// `writes`: Firestore writes applied per second by ``InMemoryFirestore`` beside the Firestore
/// emulator over REST, the same writes in the same run: flight-like documents set whole, merged by
/// leaf paths with a server timestamp and an increment, and updated with a precondition; first one
/// write per commit, then 100 per commit.
enum WritesBenchmark {
    /// A counter clock (1 ms per commit), so the in-memory side never reads the wall clock.
    final class Clock: @unchecked Sendable {
        private var micros: Int64 = 1_792_504_987_000_000
        private let lock = NSLock()
        func now() -> FirestoreTimestamp {
            lock.lock()
            defer { lock.unlock() }
            micros += 1000
            return (try? FirestoreTimestamp(seconds: micros / 1_000_000, microseconds: Int32(micros % 1_000_000)))
                ?? .minimum
        }
    }

    /// `count` writes to 200 documents under `parent`: a full set the first time a document is
    /// written, then leaf merges (summary, `updatedAt` by server timestamp, `storageBytes` by
    /// increment) and updates with `exists: true`.
    static func writes(parent: String, count: Int) throws -> [FirestoreWrite] {
        let base = try BenchmarkDocuments.flightBase()
        var out: [FirestoreWrite] = []
        for i in 0..<count {
            let path = "\(parent)/flights/f\(i % 200)"
            switch i < 200 ? 0 : i % 3 {
            case 0:
                var fields = BenchmarkDocuments.flight(i, base: base).mapValue ?? [:]
                fields["updatedAt"] = .serverTimestamp
                out.append(try .set(fields, path: path))
            case 1:
                out.append(
                    try .set(
                        [
                            "summary": .map([
                                "duration": .integer(Int64(i)), "altitudeGained": .integer(Int64(i % 900)),
                            ]),
                            "updatedAt": .serverTimestamp, "storageBytes": .increment(.integer(512)),
                        ], merge: true, path: path))
            default:
                out.append(
                    try .update(
                        [
                            try FieldPath(["comments"]): .string("note \(i)"),
                            try FieldPath(["rating"]): .integer(Int64(i % 5)),
                        ],
                        path: path))
            }
        }
        return out
    }

    static func commits(_ writes: [FirestoreWrite], perCommit: Int) -> [[FirestoreWrite]] {
        stride(from: 0, to: writes.count, by: perCommit).map { Array(writes[$0..<min($0 + perCommit, writes.count)]) }
    }

    static func apply(_ commits: [[FirestoreWrite]], to db: any FirestoreDatabase) throws {
        for c in commits { _ = try db.commit(c) }
    }

    static func run() throws {
        print("writes: Firestore writes applied per second, flight-like documents under users/…/flights")
        print(machineLine())
        let emulator: FirestoreEmulator?
        switch FirestoreEmulator.availability() {
        case .available:
            emulator = try FirestoreEmulator.start()
        case .unavailable(let why):
            print("  the emulator side is skipped: \(why)")
            emulator = nil
        }
        defer { emulator?.stop() }
        for (label, perCommit, count) in [("1 write per commit", 1, 1000), ("100 writes per commit", 100, 5000)] {
            let memoryCommits = commits(try writes(parent: "users/memory", count: count), perCommit: perCommit)
            // The in-memory side: the median of three runs, each on a fresh database (wall time).
            let memory = median(
                try (0..<3).map { _ in
                    let clock = Clock()
                    return try seconds { try apply(memoryCommits, to: InMemoryFirestore(clock: { clock.now() })) }
                })
            let ours = Double(count) / memory
            print("  \(label): \(Report.count(count)) writes")
            print(Report.line("ours: InMemoryFirestore", Report.rate(ours, "writes/s")))
            if let emulator {
                // The emulator side once (it keeps what it was sent: a run writes under a parent of its own).
                let client = emulator.client()
                let remoteCommits = commits(
                    try writes(parent: "users/run-\(perCommit)", count: count), perCommit: perCommit)
                let remote = try seconds { try apply(remoteCommits, to: client) }
                let theirs = Double(count) / remote
                print(
                    Report.line("Firestore emulator over REST", Report.rate(theirs, "writes/s"), ratio: ours / theirs))
            }
        }
    }
}
