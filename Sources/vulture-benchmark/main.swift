import VultureSyncSchema

print("vulture-benchmark")
