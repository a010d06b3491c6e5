// VultureConformance — judges an implementation of the Vulture sync schema against Goldens/: the
// cases and their ids, the runner with failure lists and reports, typed comparison with hints, the
// testee protocol on both sides, the suite's fixture form, and the reference implementation that
// answers every operation with VultureSyncSchema. Format rules live in VultureSyncSchema, not here.
