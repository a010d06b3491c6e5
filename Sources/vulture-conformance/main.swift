import VultureSyncSchema

print("vulture-conformance: schema version \(VultureSyncSchema.documentSchemaVersion)")
