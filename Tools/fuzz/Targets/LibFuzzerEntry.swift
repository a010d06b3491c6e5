import Foundation

/// What the libFuzzer executables (`Tools/fuzz/Entry/NAME`, built by `Tools/fuzz/run.sh`) call from
/// `LLVMFuzzerInitialize` and `LLVMFuzzerTestOneInput`.
public enum LibFuzzerEntry {
    /// `LLVMFuzzerInitialize`: with `VULTURE_FUZZ_WRITE_SEEDS=FOLDER` in the environment, writes the
    /// target's seeds there and exits (run.sh does this before fuzzing); otherwise prepares the
    /// harness (``FuzzTarget/prepare()``) and returns 0.
    public static func initialize(_ target: FuzzTarget) -> CInt {
        guard let variable = getenv("VULTURE_FUZZ_WRITE_SEEDS") else {
            target.prepare()
            return 0
        }
        let folder = String(cString: variable)
        // _exit: the leak checker at exit would count what the seed writer still holds as leaks.
        do {
            let count = try FuzzSeeds.write(target, into: URL(fileURLWithPath: folder))
            report("fuzz-\(target.rawValue): \(count) seeds from the goldens in \(folder)")
            _exit(0)
        } catch {
            report("fuzz-\(target.rawValue): cannot write the seeds into \(folder): \(error)")
            _exit(2)
        }
    }

    /// `LLVMFuzzerTestOneInput`: runs `target` on the input; a ``FuzzViolation`` is reported and
    /// aborts, which libFuzzer records as a crash (with the input saved as `crash-…`).
    public static func testOneInput(_ target: FuzzTarget, _ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        testOneInput(target.rawValue, data, size) { input throws(FuzzViolation) in try target.run(input) }
    }

    /// `LLVMFuzzerTestOneInput` with a harness of the executable's own (json-differential's jansson).
    public static func testOneInput(
        _ name: String, _ data: UnsafePointer<UInt8>?, _ size: Int,
        _ harness: (UnsafeBufferPointer<UInt8>) throws(FuzzViolation) -> Void
    ) -> CInt {
        do throws(FuzzViolation) {
            try harness(UnsafeBufferPointer(start: size == 0 ? nil : data, count: size))
        } catch {
            report("fuzz-\(name): violation: \(error.message)")
            abort()
        }
        return 0
    }

    static func report(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
