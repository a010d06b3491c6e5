import Testing
import VultureSchemaCore
import VultureSyncSchema

/// Module-qualified names resolve: no declaration in the module is named like the module (an
/// `enum VultureSyncSchema` once made `VultureSyncSchema.Sport` fail to compile in an app).
@Suite struct ModuleNameTests {
    @Test func moduleQualifiedNamesResolve() {
        #expect(ObjectIdentifier(VultureSyncSchema.Sport.self) == ObjectIdentifier(Sport.self))
        #expect(ObjectIdentifier(VultureSyncSchema.MapFileSource.self) == ObjectIdentifier(MapFileSource.self))
        #expect(ObjectIdentifier(VultureSyncSchema.IGCBlob.self) == ObjectIdentifier(IGCBlob.self))
        #expect(ObjectIdentifier(VultureSchemaCore.FirestoreValue.self) == ObjectIdentifier(FirestoreValue.self))
    }
}
