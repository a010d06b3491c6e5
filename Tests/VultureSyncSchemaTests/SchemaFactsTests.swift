import Testing
import VultureSchemaCore

@testable import VultureSyncSchema

/// The generated facts agree with the layers that cannot read them and with the seed.
@Suite struct SchemaFactsTests {
    @Test func firestoreLimitInTheValueModelIsTheSpecLimit() {
        #expect(Int64(FirestoreLimits.maximumDocumentBytes) == SchemaLimits.documentMaxBytes)
    }

    @Test func storageLimitsComeFromTheTables() {
        #expect(StorageLimits.maximumObjectBytes == 32_000_000)
        #expect(StorageLimits.maximumRawIGCBytes == 64 * 1024 * 1024)
        #expect(StorageObjectKind.igc.maximumRawBytes == StorageLimits.maximumRawIGCBytes)
        #expect(StorageObjectKind.allCases.allSatisfy { $0.maximumObjectBytes == StorageLimits.maximumObjectBytes })
    }

    @Test func pushOrderIsTheSeeds() {
        #expect(SyncCollection.pushOrder == [.tasks, .mapFiles, .homebases, .recentCompetitions, .flights, .settings])
        #expect(SyncCollection.users.pushOrder == nil)
    }

    @Test func everyMergeRuleRowHasAKind() {
        #expect(MergeRule.all.count == 21)
        #expect(Set(MergeRule.all.map(\.kind)) == Set(MergeRuleKind.allCases))
        #expect(MergeRule.all.first == MergeRule(nil, nil, .threeWayLatestClientUpdatedAt, .server))
    }

    @Test func idTemplatesFillTheirPlaceholders() {
        #expect(
            DocumentIdRule.mapFileDownloaded.input(["source": "XCSOAR", "type": "AIRSPACE", "filename": "a|b"])
                == "XCSOAR|AIRSPACE|a|b")
        #expect(DocumentIdRule.settingsSynced.input([:]) == SchemaConstants.settingsDocumentId)
        #expect(DocumentIdRule.taskRandom.inputTemplate == nil)
    }
}
