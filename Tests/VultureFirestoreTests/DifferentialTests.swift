import Foundation
import Testing
import VultureEmulators
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// The in-memory Firestore held to the emulator: random write sequences applied to both, compared
/// after every commit — the commit's outcome (the same status when refused; the same update times
/// and transform results when applied) and every document of the sequence's collection by typed
/// value, with its create and update times.
///
/// The in-memory side commits at the emulator's commit time, with the emulator's request time
/// (read from a server timestamp's transform result) so both sides' times agree.
///
/// 2,000 sequences from a fixed base seed, in four chunks run one after the other (the emulator is
/// the bottleneck; running them at once only loads a two-core machine). A difference prints the case's seed
/// and its sequence as canonical JSON. Replay one case with
/// `VULTURE_DIFFERENTIAL_SEED=<seed> swift test --filter DifferentialTests`; another base seed with
/// `VULTURE_DIFFERENTIAL_BASE_SEED=<n>`, another count with `VULTURE_DIFFERENTIAL_CASES=<n>`.
@Suite("In-memory Firestore against the emulator", .enabled(if: EmulatorSupport.enabled, EmulatorSupport.skipReason))
struct DifferentialTests {
    static let environment = ProcessInfo.processInfo.environment
    static let baseSeed: UInt64 = environment["VULTURE_DIFFERENTIAL_BASE_SEED"].flatMap(parseSeed) ?? 0x5EED_2026_0008
    static let caseCount = environment["VULTURE_DIFFERENTIAL_CASES"].flatMap { Int($0) } ?? 2000
    static let replaySeed = environment["VULTURE_DIFFERENTIAL_SEED"].flatMap(parseSeed)
    static let chunks = 4

    static func parseSeed(_ s: String) -> UInt64? {
        s.hasPrefix("0x") ? UInt64(s.dropFirst(2), radix: 16) : UInt64(s)
    }

    @Test("2,000 random write sequences: in memory = emulator", .serialized, arguments: 0..<chunks)
    func randomSequences(chunk: Int) throws {
        let emulator = try EmulatorSupport.client()
        let seeds: [UInt64]
        if let replaySeed = Self.replaySeed {
            seeds = chunk == 0 ? [replaySeed] : []
        } else {
            seeds = stride(from: chunk, to: Self.caseCount, by: Self.chunks).map {
                SplitMix64.derive(Self.baseSeed, $0)
            }
        }
        var commits = 0
        var refused = 0
        var statuses: [String: Int] = [:]
        for seed in seeds {
            let outcome = try Self.run(seed: seed, emulator: emulator)
            commits += outcome.commits
            refused += outcome.refused
            statuses.merge(outcome.statuses, uniquingKeysWith: +)
            if let difference = outcome.difference {
                Issue.record(
                    Comment(
                        rawValue: "seed 0x\(String(seed, radix: 16)): \(difference)\n"
                            + "replay: VULTURE_DIFFERENTIAL_SEED=0x\(String(seed, radix: 16)) swift test --filter DifferentialTests"
                    ))
                return
            }
        }
        let summary = statuses.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("differential chunk \(chunk): \(seeds.count) sequences, \(commits) commits, refused: \(summary)")
        // Every chunk commits and both sides refuse some commits: the comparison is not vacuous.
        if Self.replaySeed == nil {
            #expect(commits > 2 * seeds.count, "commits \(commits)")
            #expect(refused > seeds.count / 20, "refused \(refused)")
        }
    }

    struct Outcome {
        var commits = 0
        var refused = 0
        var statuses: [String: Int] = [:]
        var difference: String?
    }

    /// Runs one sequence against both sides; the first difference ends it.
    static func run(seed: UInt64, emulator: FirestoreRESTClient) throws -> Outcome {
        // One collection per seed, of one length (document sizes, and so refusals at 1 MiB, must
        // not depend on the run).
        let hex = String(seed, radix: 16)
        let collection = "diff-" + String(repeating: "0", count: 16 - hex.count) + hex
        var generator = WriteSequenceGenerator(seed: seed, collection: collection)
        let memory = InMemoryFirestore(database: emulator.database, clock: { .minimum })
        var history: [JSONNode] = []
        var outcome = Outcome()
        for _ in 0..<generator.commitCount() {
            let writes = generator.commit(current: { try? memory.get($0) })
            if writes.isEmpty { continue }
            history.append(JSONNode(.array(writes.map { CanonicalJSON.node($0) })))
            func differ(_ what: String) -> String {
                "\(what)\nsequence (one array of writes per commit, the last one differs):\n"
                    + CanonicalJSONWriter.string(JSONNode(.array(history)))
            }
            outcome.commits += 1
            let remote: Result<FirestoreCommitResult, FirestoreError>
            do { remote = .success(try emulator.commit(writes)) } catch { remote = .failure(error) }
            switch remote {
            case .failure(let e):
                if e.status == .unavailable || e.status == .internal { throw e }
                outcome.refused += 1
                outcome.statuses[e.status.rawValue, default: 0] += 1
                do {
                    let local = try memory.commit(writes, commitTime: .maximum)
                    outcome.difference = differ("the emulator refused with \(e), in memory applied: \(local)")
                } catch let local {
                    if local.status != e.status {
                        outcome.difference = differ("the emulator refused with \(e), in memory with \(local)")
                    }
                }
            case .success(let result):
                guard let commitTime = result.commitTime else {
                    outcome.difference = differ("the emulator gave no commit time")
                    break
                }
                let requestTime = Self.requestTime(writes, result) ?? commitTime
                do {
                    let local = try memory.commit(writes, commitTime: commitTime, requestTime: requestTime)
                    if local != result {
                        outcome.difference = differ("commit results differ:\n emulator  \(result)\n in memory \(local)")
                    }
                } catch {
                    outcome.difference = differ("the emulator applied the commit, in memory refused: \(error)")
                }
            }
            if outcome.difference != nil { return outcome }
            let query = FirestoreQuery(parent: "", collectionId: collection)
            let remoteDocuments = try emulator.runQuery(query)
            let localDocuments = try memory.runQuery(query)
            if remoteDocuments != localDocuments {
                outcome.difference = differ(
                    "documents differ:\n emulator  \(describe(remoteDocuments))\n in memory \(describe(localDocuments))"
                )
                return outcome
            }
        }
        return outcome
    }

    /// The emulator's request time: the value of a server-timestamp transform of the commit.
    static func requestTime(_ writes: [FirestoreWrite], _ result: FirestoreCommitResult) -> FirestoreTimestamp? {
        for (w, r) in zip(writes, result.writeResults) {
            for (t, value) in zip(w.transforms, r.transformResults) {
                if case .serverTimestamp = t.kind, case .timestamp(let time) = value { return time }
            }
        }
        return nil
    }

    static func describe(_ documents: [FirestoreDocument]) -> String {
        documents.map { d in
            "\(d.path) created \(d.createTime) updated \(d.updateTime) "
                + CanonicalJSONWriter.string(CanonicalJSON.node(.map(d.fields))).replacingOccurrences(
                    of: "\n", with: " ")
        }.joined(separator: "\n           ")
    }
}
