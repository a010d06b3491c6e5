import Foundation
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

    /// The generated path builders are the seed's paths (schema §2), each its template filled.
    @Test func pathBuildersFillTheTemplates() {
        #expect(SyncCollection.flights.documentPath(uid: "u1", id: "f1") == "users/u1/flights/f1")
        #expect(SyncCollection.mapFiles.documentPath(uid: "u1", id: "m") == "users/u1/mapFiles/m")
        #expect(SyncCollection.settings.documentPath(uid: "u1", id: "synced") == "users/u1/settings/synced")
        #expect(SyncCollection.users.documentPath(uid: "u1", id: "ignored") == "users/u1")
        #expect(SyncCollection.profilePath(uid: "u1") == "users/u1")
        #expect(SyncCollection.users.parentPath(uid: "u1") == "")
        for c in SyncCollection.allCases where c != .users {
            let id = c == .settings ? SchemaConstants.settingsDocumentId : "ID"
            #expect(c.parentPath(uid: "u1") == "users/u1")
            #expect(c.documentPath(uid: "u1", id: id) == c.parentPath(uid: "u1") + "/\(c.rawValue)/\(id)")
            let filled = c.pathTemplate.replacingOccurrences(of: "{uid}", with: "u1").split(separator: "/")
            #expect(c.documentPath(uid: "u1", id: id).split(separator: "/").dropLast() == filled.dropLast())
        }
    }

    /// The generated field names are the cloud keys, also where the Swift name differs.
    @Test func fieldNamesAreTheCloudKeys() {
        #expect(CommonFields.Field.deleted == "deleted")
        #expect(FlightDocument.Field.deleted == CommonFields.Field.deleted)
        #expect(StorageRef.Field.collection == "collection")
        #expect(SettingsEntry.Field.t == "t")
        #expect(StorageObjectKind.MapField.gzBytes == "gzBytes")
        #expect(StorageObjectKind.MapField.uploaded == "uploaded")
        #expect(ZoneValue.Field.type == "type")
        #expect(TurnpointZone.Field.r1 == "R1")
        #expect(TurnpointZone.Field.isAAT == "isAAT")
    }

    @Test func idTemplatesFillTheirPlaceholders() {
        #expect(
            DocumentIdRule.mapFileDownloaded.input(["source": "XCSOAR", "type": "AIRSPACE", "filename": "a|b"])
                == "XCSOAR|AIRSPACE|a|b")
        #expect(DocumentIdRule.settingsSynced.input([:]) == SchemaConstants.settingsDocumentId)
        #expect(DocumentIdRule.taskRandom.inputTemplate == nil)
    }
}
