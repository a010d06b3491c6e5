// VultureSyncEngine — one device: local store, push, pull, 3-way merge, recents trim, tombstones.
// Rules/ holds the decisions the schema fixes (schema §4 risk R4, §5.3–§5.5): the per-field merge
// dispatched by the generated `MergeRule.rule(for:fieldPath:)`, the recents trim, tombstones and their
// purge, and the R4 duplicate pass; each reads its parameters from the generated `SyncRule` rows.
// Deterministic: no clock, no randomness, no dictionary-order dependence; time comes in as arguments.
// Documents and rules come from VultureSyncSchema (the wire format), which a client imports beside this
// module (nothing is re-exported).
import VultureSyncSchema
