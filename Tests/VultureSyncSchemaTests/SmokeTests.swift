import Testing
@testable import VultureSyncSchema

@Test func documentSchemaVersionIsOne() {
    #expect(VultureSyncSchema.documentSchemaVersion == 1)
}
