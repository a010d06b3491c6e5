// VultureConformance — judges an implementation of the Vulture sync schema against Goldens/: the
// cases and their ids, the runner with failure lists and reports, typed comparison with hints, the
// testee protocol on both sides, and the suite's fixture form. The reference implementation is in
// VultureReference, so this module does not link the engine. Format rules live in VultureSyncSchema.
