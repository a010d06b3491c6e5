import VultureFuzzTargets

// libFuzzer's entry points for the fuzz target firestore-rest (Tools/fuzz/run.sh builds this with -sanitize=fuzzer).

/// Writes the seeds when run.sh asks for them (`VULTURE_FUZZ_WRITE_SEEDS`).
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> CInt {
    LibFuzzerEntry.initialize(.firestoreREST)
}

/// Reads one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    LibFuzzerEntry.testOneInput(.firestoreREST, data, size)
}
