// swift-tools-version:6.0
// The Vulture sync schema: reference codec, generator and conformance suite.
import PackageDescription

let package = Package(
    name: "VultureSync",
    products: [
        .library(name: "VultureSyncSchema", targets: ["VultureSyncSchema"]),
        .library(name: "VultureConformance", targets: ["VultureConformance"]),
        .library(name: "VultureFirestore", targets: ["VultureFirestore"]),
        .library(name: "VultureSyncEngine", targets: ["VultureSyncEngine"]),
        .executable(name: "vulture-conformance", targets: ["vulture-conformance"]),
        .executable(name: "vulture-reference-testee", targets: ["vulture-reference-testee"]),
        .executable(name: "vulture-benchmark", targets: ["vulture-benchmark"]),
        .executable(name: "vulture-simulate", targets: ["vulture-simulate"]),
        .executable(name: "vulture-goldens", targets: ["vulture-goldens"]),
        .executable(name: "vulture-schema-gen", targets: ["vulture-schema-gen"]),
    ],
    targets: [
        // System libraries (apt: zlib1g-dev, libssl-dev; pkg-config: zlib, libcrypto).
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
        // What the generator and the runtime share: Firestore values, canonical typed JSON and REST JSON,
        // and the descriptor types the generated schema tables are made of.
        .target(name: "VultureSchemaCore"),
        // The wire format: generated codecs and tables, ids, blobs, settings, writes (re-exports VultureSchemaCore).
        .target(
            name: "VultureSyncSchema",
            dependencies: ["VultureSchemaCore", "CZlib", "CCrypto"]
        ),
        // The argument grammar, help, usage errors and exit statuses every executable shares (Foundation only).
        .target(name: "VultureCommandLine"),
        // Firestore as the engine sees it: writes applied exactly, an in-memory database, the REST client, queries.
        .target(
            name: "VultureFirestore",
            dependencies: ["VultureSyncSchema"]
        ),
        // One device: local store, push, pull, 3-way merge, recents trim, tombstones.
        .target(
            name: "VultureSyncEngine",
            dependencies: ["VultureSyncSchema", "VultureFirestore"]
        ),
        // A deterministic multi-device world with faults, invariants and shrinking.
        .target(
            name: "VultureSimulation",
            dependencies: ["VultureSyncEngine", "VultureFirestore", "VultureSyncSchema"]
        ),
        // The simulation's command line.
        .executableTarget(
            name: "vulture-simulate",
            dependencies: ["VultureSimulation", "VultureCommandLine"]
        ),
        // Test support that starts local servers (the Firestore emulator); kept out of the libraries an app imports.
        .target(
            name: "VultureEmulators",
            dependencies: ["VultureFirestore"]
        ),
        // Conformance cases, typed comparison, failure lists, the testee protocol and reports.
        .target(
            name: "VultureConformance",
            dependencies: ["VultureSyncSchema", "VultureSyncEngine"]
        ),
        // The conformance runner's command line.
        .executableTarget(
            name: "vulture-conformance",
            dependencies: ["VultureCommandLine", "VultureConformance", "VultureSyncSchema"]
        ),
        // The reference implementation served over the testee protocol.
        .executableTarget(
            name: "vulture-reference-testee",
            dependencies: ["VultureCommandLine", "VultureConformance", "VultureSyncSchema"]
        ),
        // The case definitions behind Goldens/schema and Goldens/vectors, rendered by the reference implementation.
        .target(
            name: "VultureGoldens",
            dependencies: ["VultureConformance", "VultureSyncSchema"],
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
            dependencies: ["VultureCommandLine", "VultureSyncSchema", "VultureFirestore", "VultureEmulators"]
        ),
        .testTarget(
            name: "VultureCommandLineTests",
            dependencies: ["VultureCommandLine"]
        ),
        .testTarget(
            name: "VultureSyncSchemaTests",
            dependencies: ["VultureSyncSchema"]
        ),
        .testTarget(
            name: "VultureSyncEngineTests",
            dependencies: ["VultureSyncEngine", "VultureFirestore", "VultureEmulators", "VultureSyncSchema"]
        ),
        .testTarget(
            name: "VultureSimulationTests",
            dependencies: ["VultureSimulation", "VultureSyncEngine", "VultureFirestore"]
        ),
        .testTarget(
            name: "VultureFirestoreTests",
            dependencies: ["VultureFirestore", "VultureEmulators", "VultureSyncSchema"]
        ),
        .testTarget(
            name: "VultureConformanceTests",
            dependencies: ["VultureConformance", "VultureSyncSchema", "VultureGoldens"]
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
            dependencies: ["VultureCommandLine", "VultureSchemaGenerator"],
            path: "Tools/vulture-schema-gen"
        ),
        .testTarget(
            name: "VultureSchemaGeneratorTests",
            dependencies: ["VultureSchemaGenerator"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
