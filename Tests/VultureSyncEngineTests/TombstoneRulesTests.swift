import Testing
import VultureSchemaCore
import VultureSyncEngine
import VultureSyncSchema

/// Tombstones (schema §5.4): the document, the Storage objects a delete releases with the
/// storageBytes change, and the purge.
@Suite struct TombstoneRulesTests {
    static let hash = String(repeating: "c", count: 64)

    static func mapFile(_ hash: String?, gz: Int64 = 700, deleted: Bool = false) -> [String: FirestoreValue] {
        var d: [String: FirestoreValue] = [
            "contentHash": hash.map { .string($0) } ?? .null, "deleted": .boolean(deleted),
        ]
        if let hash {
            d["content"] = .map([
                "path": .string("users/u/files/\(hash).gz"), "gzBytes": .integer(gz), "uploaded": .boolean(true),
            ])
        }
        return d
    }

    @Test func theTombstoneHoldsOnlyTheCommonFields() {
        let context = WriterContext(
            uid: "u", deviceId: "dev", platform: "ios", clientUpdatedAt: time(5), serverTime: time(6))
        let write = TombstoneRules.tombstone(context: context, form: .write)
        #expect(write["deleted"] == .boolean(true))
        #expect(write["deletedAt"] == ts(5))
        #expect(write["updatedAt"] == .serverTimestamp)
        #expect(
            Set(write.keys) == [
                "schema", "updatedAt", "clientUpdatedAt", "updatedBy", "platform", "deleted", "deletedAt",
            ])
    }

    @Test func aFlightReleasesItsIGCObject() {
        let flight: [String: FirestoreValue] = [
            "igc": .map([
                "path": .string("users/u/igc/x.igc.gz"), "gzBytes": .integer(1234), "uploaded": .boolean(false),
            ])
        ]
        #expect(
            TombstoneRules.releasedObjects(collection: .flights, document: flight)
                == ReleasedObjects(objectPaths: ["users/u/igc/x.igc.gz"], storageBytesDelta: -1234))
        #expect(
            TombstoneRules.releasedObjects(collection: .flights, document: ["igc": .null])
                == ReleasedObjects(objectPaths: [], storageBytesDelta: 0))
    }

    @Test func aSharedContentObjectStays() {
        let mine = Self.mapFile(Self.hash)
        let shared = TombstoneRules.releasedObjects(
            collection: .mapFiles, document: mine, otherLiveDocuments: [Self.mapFile(Self.hash, gz: 1)])
        #expect(shared == ReleasedObjects(objectPaths: [], storageBytesDelta: 0))
        let onlyTombstones = TombstoneRules.releasedObjects(
            collection: .mapFiles, document: mine,
            otherLiveDocuments: [Self.mapFile(Self.hash, deleted: true), Self.mapFile(nil)])
        #expect(
            onlyTombstones == ReleasedObjects(objectPaths: ["users/u/files/\(Self.hash).gz"], storageBytesDelta: -700))
    }

    @Test func thePurgeCutoffIsRetentionDaysBeforeNow() throws {
        let now = time(100 * 86_400, 7)
        let cutoff = try #require(TombstoneRules.purgeCutoff(now: now))
        #expect(cutoff == time((100 - SchemaConstants.tombstoneRetentionDays) * 86_400, 7))
        #expect(TombstoneRules.purgeCutoff(now: .minimum) == nil)
    }

    @Test func thePurgeTakesOnlyOlderTombstonesOldestFirstInBatches() throws {
        let now = time(200 * 86_400)
        let cutoff = try #require(TombstoneRules.purgeCutoff(now: now))
        let size = Int(SchemaLimits.engineBatchMaxWrites)
        var candidates = (0...size).map { i in
            PurgeCandidate(name: "t\(size - i)", deletedAt: time(Int64(i)))
        }
        candidates.append(PurgeCandidate(name: "boundary", deletedAt: cutoff))
        candidates.append(PurgeCandidate(name: "young", deletedAt: time(199 * 86_400)))
        candidates.append(PurgeCandidate(name: "undated", deletedAt: nil))
        let batches = TombstoneRules.purgeBatches(candidates.reversed(), now: now)
        #expect(batches.map(\.count) == [size, 1])
        #expect(batches.first?.first == "t\(size)")
        #expect(batches.last == ["t0"])
        #expect(!batches.joined().contains("boundary"))
    }

    @Test func equalInstantsArePurgedByName() {
        let old = time(0)
        let batches = TombstoneRules.purgeBatches(
            [PurgeCandidate(name: "b", deletedAt: old), PurgeCandidate(name: "a", deletedAt: old)],
            now: time(200 * 86_400))
        #expect(batches == [["a", "b"]])
    }
}
