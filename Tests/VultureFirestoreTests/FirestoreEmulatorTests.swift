import Foundation
import Testing
import VultureEmulators
import VultureFirestore
import VultureSchemaCore
import VultureSyncSchema

/// The emulator's test support itself, on an emulator of its own (the shared one serves the other
/// tests in parallel): start on a free loopback port, reset, stop by process group.
@Suite(.enabled(if: EmulatorSupport.enabled, EmulatorSupport.skipReason))
struct FirestoreEmulatorTests {
    @Test func startsResetsAndStops() throws {
        let emulator = try FirestoreEmulator.start()
        defer { emulator.stop() }
        #expect(emulator.baseURL.absoluteString == "http://127.0.0.1:\(emulator.port)")
        let client = emulator.client()
        _ = try client.commit([try .set(["x": .integer(1)], path: "reset/a")])
        #expect(try client.get("reset/a")?.fields == ["x": .integer(1)])
        // Document ids that a URL must escape.
        let odd = "reset/a b#?%é"
        _ = try client.commit([try .set(["y": .integer(2)], path: odd)])
        #expect(try client.get(odd)?.fields == ["y": .integer(2)])
        #expect(try client.get(odd)?.path == odd)
        try emulator.reset()
        #expect(try client.get("reset/a") == nil)
        #expect(try client.get(odd) == nil)

        #expect(emulator.isRunning)
        emulator.stop()
        #expect(!emulator.isRunning, "no process of the emulator's group is alive")
        #expect(throws: FirestoreError.self) { try client.get("reset/a") }
        emulator.stop()  // a second stop does nothing
    }
}
