import Foundation
import Testing
import VultureConformance
import VultureReference
import VultureScenarios
import VultureSyncEngine
import VultureSyncSchema
import VultureSyncTesting

/// A wrong sync engine — the reference engine with one injected bug, each something an engine
/// written from the prose might plausibly get wrong — and the required scenario that catches it,
/// with a piece of the failure that says why (an expectation, a commit rule or the request budget).
struct EngineMutant: CustomTestStringConvertible, Sendable {
    let bug: InjectedBug
    let caughtBy: String
    let because: String
    var testDescription: String { bug.rawValue }
}

/// Every injected bug (`InjectedBug.allCases`), with the scenario that catches it.
let engineMutants: [EngineMutant] = [
    EngineMutant(bug: .pagingByUpdatedAtAlone, caughtBy: "pull-page-edge-ties", because: "expected a row, found none"),
    EngineMutant(bug: .noOverlap, caughtBy: "overlap-late-commit", because: "expected a row, found none"),
    EngineMutant(bug: .strictCursor, caughtBy: "overlap-edge-inclusive", because: "expected a row, found none"),
    EngineMutant(
        bug: .clearDoesNotTravel, caughtBy: "clear-last-opened-travels", because: "/lastOpenedAt: expected null"),
    EngineMutant(
        bug: .trimWithoutIdTieBreak, caughtBy: "recents-tie-same-instant", because: "/lastOpenedAt: expected {"),
    EngineMutant(bug: .reserveWithoutPrecondition, caughtBy: "reserve-answer-lost", because: "/storageBytes: expected"),
    EngineMutant(bug: .purgeDeletesLive, caughtBy: "tombstone-purge", because: "expected a document, found none"),
    EngineMutant(
        bug: .downloadBeforeUploaded, caughtBy: "download-waits-for-uploaded",
        because: "/file: expected false, actual true"),
    EngineMutant(
        bug: .latestDatesByLaterEdit, caughtBy: "latest-date-not-latest-edit", because: "/lastOpenedAt: expected"),
    EngineMutant(
        bug: .editsAsFullDocuments, caughtBy: "push-alone-keeps-other-fields",
        because: "/glideRatio: expected 48.5, actual null"),
    EngineMutant(
        bug: .noFullPullAfterLongAbsence, caughtBy: "long-absence-converges", because: "is live here, not on the server"
    ),
    EngineMutant(
        bug: .uploadedNotOred, caughtBy: "uploaded-or-on-second-import",
        because: "/igc.uploaded: expected true, actual false"),
    EngineMutant(
        bug: .clientTimeMilliseconds, caughtBy: "same-field-microseconds",
        because: "/comments: expected \"b: 500 µs later\""),
    EngineMutant(bug: .storageBytesByValue, caughtBy: "storage-bytes-two-devices", because: "storageBytes is set to"),
    EngineMutant(bug: .payloadCapTenfold, caughtBy: "batch-payload-under-4mb", because: "bytes estimated in one batch"),
    EngineMutant(bug: .purgeBatchesOf500, caughtBy: "purge-over-400", because: "450 writes in one batch"),
    EngineMutant(bug: .noDuplicatePass, caughtBy: "r4-duplicates-first-ios-pull", because: "/deleted: expected true"),
    EngineMutant(
        bug: .duplicatePassEveryPull, caughtBy: "r4-duplicates-first-ios-pull", because: "/deleted: expected false"),
    EngineMutant(
        bug: .oneCursorForAllCollections, caughtBy: "cursor-per-collection", because: "expected a row, found none"),
    EngineMutant(
        bug: .pullOrderedByNameAlone, caughtBy: "pull-page-edge-ties",
        because: "the step failed: INVALID_ARGUMENT"),
    EngineMutant(bug: .lastSeenAtEverySync, caughtBy: "profile-last-seen-daily", because: "/lastSeenAt: expected"),
    EngineMutant(bug: .quotaErrorRetried, caughtBy: "quota-pause", because: "/error: expected paused"),
    EngineMutant(
        bug: .revivalByArrivalTime, caughtBy: "delete-against-skewed-clock", because: "/deleted: expected true"),
    EngineMutant(bug: .downloadUnchecked, caughtBy: "download-checked", because: "/file: expected false, actual true"),
    EngineMutant(bug: .tombstoneAsMerge, caughtBy: "delete-tombstone", because: "/comments: expected null"),
    EngineMutant(
        bug: .reserveMarkedUploaded, caughtBy: "reserve-upload-mark",
        because: "a reserve writes the record with uploaded = false"),
    EngineMutant(bug: .profileRewritten, caughtBy: "reserve-upload-mark", because: "/storageBytes: expected"),
]

/// The engine half of the suite as a judge: each wrong engine fails a named required scenario, and
/// each right engine that makes a choice the seed leaves open otherwise than the reference
/// (`EngineVariant`) passes every required one. MutantTests does the same for the codec cases.
@Suite struct EngineMutantTests {
    static let scenarios = Result { try GoldenSuite.load().cases.filter { $0.op == ScenarioConformance.caseOp } }

    static func run(_ cases: [ConformanceCase], bugs: Set<InjectedBug> = [], variants: Set<EngineVariant> = [])
        -> ConformanceRun
    {
        var implementation = ReferenceImplementation(schema: .vulture, injectedBugs: bugs, variants: variants)
        return ConformanceRunner.run(cases, on: &implementation)
    }

    @Test func everyInjectedBugHasACatchingScenario() {
        #expect(engineMutants.map(\.bug) == InjectedBug.allCases)
    }

    /// The named required scenario fails with the bug, for the reason named, and passes without it.
    @Test(arguments: engineMutants)
    func mutantIsCaught(_ mutant: EngineMutant) throws {
        let id = "required.scenario." + mutant.caughtBy
        let scenario = try #require(try Self.scenarios.get().first { $0.id == id }, "no required case \(id)")
        #expect(scenario.isRequired)
        let broken = try #require(Self.run([scenario], bugs: [mutant.bug]).results.first)
        guard case .failed(let message, _) = broken.outcome else {
            Issue.record("\(mutant.bug.rawValue) passes \(id)")
            return
        }
        // The reference passes it (ScenarioConformanceTests): the bug, not the scenario, fails it.
        #expect(message.contains(mutant.because), "\(mutant.bug.rawValue) fails \(id) otherwise: \(message)")
    }

    /// A right engine, whatever the choice it makes where the seed leaves one open, passes every
    /// required scenario; where a recommended scenario rests on that choice, it fails that one only.
    @Test(arguments: EngineVariant.allCases)
    func rightEnginePassesEveryRequiredScenario(_ variant: EngineVariant) throws {
        let run = Self.run(try Self.scenarios.get(), variants: [variant])
        let failed = run.results.filter { $0.outcome.isFailed }
        let required = failed.filter { !$0.id.hasPrefix("recommended.") }
        #expect(required.isEmpty, "\(required.flatMap(ConformanceRunner.failureLines).joined(separator: "\n"))")
        let expected: [EngineVariant: [String]] = [
            .pauseForADay: ["recommended.scenario.quota-pause-next-utc-day"],
            .recentsTieLargerIdKeeps: ["recommended.scenario.recents-tie-smaller-id-keeps"],
            .mergesMalformedDocuments: ["recommended.scenario.malformed-document-held"],
            // Both malformed-document scenarios rest on a pin this engine chooses otherwise.
            .stopsThePullAtAMalformedDocument: [
                "recommended.scenario.malformed-document-held",
                "recommended.scenario.malformed-documents-do-not-stop-the-pull",
            ],
        ]
        #expect(failed.map(\.id) == expected[variant, default: []])
        #expect(run.exitStatus == 0)
    }
}
