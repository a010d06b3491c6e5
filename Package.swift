// swift-tools-version:6.0
// The Vulture sync schema: reference codec, generator and conformance suite.
import PackageDescription

let package = Package(
    name: "VultureSync",
    // The lowest versions the libraries allow: CryptoKit and Swift Testing need macOS 10.15 and iOS 13;
    // the runner's FileHandle.write(contentsOf:) needs macOS 10.15.4 (README "Requirements and CI").
    platforms: [.macOS("10.15.4"), .iOS(.v13)],
    products: [
        .library(name: "VultureSchemaCore", targets: ["VultureSchemaCore"]),
        .library(name: "VultureSyncSchema", targets: ["VultureSyncSchema"]),
        .library(name: "VultureSyncEngine", targets: ["VultureSyncEngine"]),
        .library(name: "VultureConformance", targets: ["VultureConformance"]),
        .library(name: "VultureFirestore", targets: ["VultureFirestore"]),
        .library(name: "VultureScenarios", targets: ["VultureScenarios"]),
        .library(name: "VultureReference", targets: ["VultureReference"]),
        // Test support an app's tests may import and the app never links.
        .library(name: "VultureFirestoreTesting", targets: ["VultureFirestoreTesting"]),
        .library(name: "VultureSyncTesting", targets: ["VultureSyncTesting"]),
        .executable(name: "vulture-conformance", targets: ["vulture-conformance"]),
        .executable(name: "vulture-reference-testee", targets: ["vulture-reference-testee"]),
        .executable(name: "vulture-benchmark", targets: ["vulture-benchmark"]),
        .executable(name: "vulture-simulate", targets: ["vulture-simulate"]),
        .executable(name: "vulture-sync", targets: ["vulture-sync"]),
        .executable(name: "vulture-goldens", targets: ["vulture-goldens"]),
        .executable(name: "vulture-schema-gen", targets: ["vulture-schema-gen"]),
    ],
    targets: [
        // System libraries (apt: zlib1g-dev, libssl-dev; pkg-config: zlib, libcrypto). zlib is in every
        // Apple SDK too; libcrypto is used on Linux only (CryptoKit computes SHA-256 on Apple platforms).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // SQLite (apt: libsqlite3-dev; pkg-config: sqlite3), the command line's local store; Apple
        // platforms use the SDK's SQLite3 module.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // What the generator and the runtime share: Firestore values, canonical typed JSON and REST JSON,
        // writes (FieldPath, FirestoreWrite), and the descriptor types the generated schema tables are made of.
        .target(name: "VultureSchemaCore"),
        // The wire format: generated codecs and tables, ids, blobs, settings (values and writes: VultureSchemaCore).
        .target(
            name: "VultureSyncSchema",
            dependencies: [
                "VultureSchemaCore", "CZlib", .target(name: "CCrypto", condition: .when(platforms: [.linux])),
            ]
        ),
        // Firestore as the engine sees it: writes applied exactly, an in-memory database, the REST client, queries.
        .target(
            name: "VultureFirestore",
            dependencies: ["VultureSyncSchema", "VultureSchemaCore"]
        ),
        // Test support for Firestore: recorders and fault injection, the manual clock, the emulator's
        // unsigned ID token. A product an app's tests import; the app never links it.
        .target(
            name: "VultureFirestoreTesting",
            dependencies: ["VultureFirestore", "VultureSyncSchema", "VultureSchemaCore"]
        ),
        // The scenario format (Goldens/FORMAT.md, Scenarios): reading, the commit rules, the server side
        // of a replay and the `expect` checks, independent of any engine.
        .target(
            name: "VultureScenarios",
            dependencies: ["VultureFirestore", "VultureFirestoreTesting", "VultureSyncSchema", "VultureSchemaCore"]
        ),
        // Test support for the engine: the reference engine's scenario replay.
        .target(
            name: "VultureSyncTesting",
            dependencies: [
                "VultureSyncEngine", "VultureScenarios", "VultureFirestoreTesting", "VultureFirestore",
                "VultureSyncSchema", "VultureSchemaCore",
            ]
        ),
        // Test support that spawns a local server (the Firestore emulator: posix_spawn, process groups,
        // signals); no library product includes it, so an app never imports it.
        .target(
            name: "VultureEmulators",
            dependencies: ["VultureFirestore", "VultureSyncSchema", "VultureSchemaCore"]
        ),
        // One device: local store (in memory, a file, SQLite), push, pull, 3-way merge, recents trim, tombstones.
        .target(
            name: "VultureSyncEngine",
            dependencies: [
                "VultureSyncSchema", "VultureFirestore", "VultureSchemaCore",
                .target(name: "CSQLite", condition: .when(platforms: [.linux])),
            ]
        ),
        // A deterministic multi-device world with faults, invariants and shrinking.
        .target(
            name: "VultureSimulation",
            dependencies: [
                "VultureSyncEngine", "VultureFirestore", "VultureSyncSchema", "VultureFirestoreTesting",
                "VultureScenarios", "VultureSyncTesting", "VultureSchemaCore",
            ]
        ),
        // The simulation's command line.
        .executableTarget(
            name: "vulture-simulate",
            dependencies: [
                "VultureSimulation", "VultureCommandLine", "VultureEmulators", "VultureFirestore", "VultureScenarios",
                "VultureSyncTesting", "VultureSchemaCore", "VultureSyncEngine", "VultureSyncSchema",
            ]
        ),
        // `vulture-sync`: the reference engine as another device, a state directory against the emulator.
        .target(
            name: "VultureSyncCommand",
            dependencies: [
                "VultureCommandLine", "VultureSyncEngine", "VultureFirestore", "VultureSyncSchema", "VultureSchemaCore",
            ]
        ),
        .executableTarget(
            name: "vulture-sync",
            dependencies: ["VultureCommandLine", "VultureSyncCommand"]
        ),
        // The argument grammar, help, usage errors and exit statuses every executable shares (Foundation only).
        // One grammar for every executable's arguments; a long argument is shown as an excerpt.
        .target(name: "VultureCommandLine", dependencies: ["VultureSchemaCore"]),
        // The goldens as resources (Bundle.module): Goldens/ is this target's folder, so the files
        // `vulture-goldens write` writes are the files the suite loads wherever its bundle runs.
        .target(
            name: "VultureGoldenResources",
            path: "Goldens",
            exclude: ["README.md", "FORMAT.md", "SCHEMA.md", "ENGINE.md", "jsonschema", "protocol", "firestore.rules"],
            sources: ["GoldenResources.swift"],
            resources: [.copy("VERSION"), .copy("schema"), .copy("vectors"), .copy("scenarios")]
        ),
        // Conformance cases, typed comparison, failure lists, the testee protocol and reports (no
        // process spawning: this is the library an iOS test target imports).
        .target(
            name: "VultureConformance",
            dependencies: [
                "VultureSyncSchema", "VultureFirestore", "VultureGoldenResources", "VultureFirestoreTesting",
                "VultureScenarios", "VultureSchemaCore",
            ]
        ),
        // The reference implementation of every testee operation: ids, blobs, validation, documents,
        // settings, the engine's rules, and the engine operations answered by the reference engine.
        .target(
            name: "VultureReference",
            dependencies: [
                "VultureConformance", "VultureSyncEngine", "VultureSyncTesting", "VultureScenarios",
                "VultureFirestoreTesting", "VultureFirestore", "VultureSyncSchema", "VultureSchemaCore",
            ]
        ),
        // A testee run as a child process (`run --testee`): Process, signals, process groups.
        .target(
            name: "VultureTesteeProcess",
            dependencies: ["VultureConformance", "VultureSyncSchema", "VultureSchemaCore"]
        ),
        // The conformance runner's command line.
        .executableTarget(
            name: "vulture-conformance",
            dependencies: [
                "VultureCommandLine", "VultureConformance", "VultureTesteeProcess", "VultureSyncSchema",
                "VultureReference", "VultureSchemaCore",
            ]
        ),
        // The reference implementation served over the testee protocol.
        .executableTarget(
            name: "vulture-reference-testee",
            dependencies: [
                "VultureCommandLine", "VultureConformance", "VultureSyncEngine", "VultureSyncSchema",
                "VultureSyncTesting", "VultureReference",
            ]
        ),
        // The case definitions behind Goldens/schema and Goldens/vectors, rendered by the reference implementation.
        .target(
            name: "VultureGoldens",
            dependencies: [
                "VultureConformance", "VultureSyncEngine", "VultureFirestore", "VultureSyncSchema", "VultureScenarios",
                "VultureSyncTesting", "VultureReference", "VultureFirestoreTesting", "VultureSchemaCore",
            ],
            path: "Tools/VultureGoldens"
        ),
        // Writes and checks Goldens/ (a thin command line over VultureGoldens).
        .executableTarget(
            name: "vulture-goldens",
            dependencies: ["VultureCommandLine", "VultureGoldens"],
            path: "Tools/vulture-goldens"
        ),
        // Throughput against reference tools measured in the same run.
        .executableTarget(
            name: "vulture-benchmark",
            dependencies: [
                "VultureCommandLine", "VultureSyncSchema", "VultureFirestore", "VultureEmulators", "VultureSyncEngine",
                "VultureSyncCommand", "VultureSimulation", "VultureFirestoreTesting", "VultureSchemaCore",
            ]
        ),
        // Test support, in no product: runs the package's executables and system tools, both output
        // pipes read while the child writes.
        .target(name: "VultureChildProcess", path: "Tests/VultureChildProcess"),
        .testTarget(name: "VultureChildProcessTests", dependencies: ["VultureChildProcess"]),
        .testTarget(
            name: "VultureCommandLineTests",
            dependencies: ["VultureCommandLine"]
        ),
        .testTarget(
            name: "VultureSyncSchemaTests",
            dependencies: ["VultureSyncSchema", "CZlib", "VultureSchemaCore", "VultureChildProcess"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "VultureFirestoreTests",
            dependencies: [
                "VultureFirestore", "VultureEmulators", "VultureSyncSchema", "VultureFirestoreTesting",
                "VultureSchemaCore",
            ]
        ),
        .testTarget(
            name: "VultureSyncEngineTests",
            dependencies: [
                "VultureSyncEngine", "VultureFirestore", "VultureEmulators", "VultureSyncSchema", "VultureSimulation",
                "VultureScenarios", "VultureSyncTesting", "VultureFirestoreTesting", "VultureSchemaCore",
                .target(name: "CSQLite", condition: .when(platforms: [.linux])),
            ]
        ),
        .testTarget(
            name: "VultureSyncCommandTests",
            dependencies: [
                "VultureSyncCommand", "VultureSyncEngine", "VultureEmulators", "VultureSyncSchema",
                "VultureCommandLine", "VultureFirestore", "VultureSchemaCore", "VultureChildProcess",
            ]
        ),
        .testTarget(
            name: "VultureSimulationTests",
            dependencies: [
                "VultureSimulation", "VultureSyncEngine", "VultureFirestore", "VultureEmulators", "VultureScenarios",
                "VultureSyncTesting", "VultureSchemaCore", "VultureSyncSchema", "VultureChildProcess",
            ]
        ),
        .testTarget(
            name: "VultureConformanceTests",
            dependencies: [
                "VultureConformance", "VultureTesteeProcess", "VultureSyncSchema", "VultureGoldens", "VultureFirestore",
                "VultureSyncEngine", "VultureScenarios", "VultureFirestoreTesting", "VultureSyncTesting",
                "VultureReference", "VultureSchemaCore", "VultureChildProcess",
            ],
            resources: [.copy("failure-list.txt"), .copy("known-failures.txt")]
        ),
        // Generator core: reads and validates the Spec/ tables into SchemaSpec and emits the generated files.
        .target(
            name: "VultureSchemaGenerator",
            dependencies: ["VultureSchemaCore"],
            path: "Tools/VultureSchemaGenerator"
        ),
        // The generator's command line: `generate` writes what changed, `check` prints the drift.
        .executableTarget(
            name: "vulture-schema-gen",
            dependencies: ["VultureCommandLine", "VultureSchemaCore", "VultureSchemaGenerator"],
            path: "Tools/vulture-schema-gen"
        ),
        .testTarget(
            name: "VultureSchemaGeneratorTests",
            dependencies: ["VultureSchemaGenerator", "VultureSchemaCore"]
        ),
        // The fuzz harnesses (Tools/fuzz, README "Fuzzing"): per reader, what one input must do (a value
        // or a typed error, never a crash) and the seeds taken from the goldens. The libFuzzer executables
        // below drive them; `swift test` replays the saved crash inputs and every seed through them.
        .target(
            name: "VultureFuzzTargets",
            dependencies: [
                "VultureSyncSchema", "VultureConformance", "VultureSyncEngine", "VultureSyncCommand",
                "VultureSchemaGenerator", "VultureScenarios", "VultureSchemaCore",
            ],
            path: "Tools/fuzz/Targets"
        ),
        .testTarget(
            name: "VultureFuzzTargetsTests",
            dependencies: ["VultureFuzzTargets", "VultureSyncSchema"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Tools/fuzz/run.sh builds with VULTURE_FUZZ=1, `--sanitize=fuzzer` and `-sanitize=fuzzer,address`: one libFuzzer
// executable per harness, and jansson (apt: libjansson-dev), the differential target's reference JSON parser. An
// ordinary build has neither, so it needs no fuzzer runtime and no jansson.
if Context.environment["VULTURE_FUZZ"] == "1" {
    let fuzzTargets = [
        "canonical-json", "strict-json", "firestore-rest", "gunzip-sha256", "igc-header", "testee-protocol",
        "scenario", "spec-tsv",
    ]
    package.targets += fuzzTargets.map { name in
        .executableTarget(name: "fuzz-\(name)", dependencies: ["VultureFuzzTargets"], path: "Tools/fuzz/Entry/\(name)")
    }
    package.targets += [
        .systemLibrary(
            name: "CJansson",
            path: "Tools/fuzz/CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        .executableTarget(
            name: "fuzz-json-differential",
            dependencies: ["VultureFuzzTargets", "CJansson"],
            path: "Tools/fuzz/Entry/json-differential"
        ),
    ]
}

// Every Swift target declares the modules whose members it uses (SE-0444, member import visibility):
// an extension member is visible only where its module is imported, not wherever it happens to be linked.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
