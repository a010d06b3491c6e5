// swift-tools-version:6.0
// The Vulture sync schema: reference codec, generator and conformance suite.
import PackageDescription

let package = Package(
    name: "VultureSync",
    products: [
        .library(name: "VultureSyncSchema", targets: ["VultureSyncSchema"]),
        .library(name: "VultureConformance", targets: ["VultureConformance"]),
        .library(name: "VultureFirestore", targets: ["VultureFirestore"]),
        .executable(name: "vulture-conformance", targets: ["vulture-conformance"]),
        .executable(name: "vulture-reference-testee", targets: ["vulture-reference-testee"]),
        .executable(name: "vulture-benchmark", targets: ["vulture-benchmark"]),
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
        // Values, canonical and REST JSON, generated codecs, ids, blobs, settings.
        .target(
            name: "VultureSyncSchema",
            dependencies: ["CZlib", "CCrypto"]
        ),
        // Firestore as the engine sees it: writes applied exactly, an in-memory database, the REST client, queries.
        .target(
            name: "VultureFirestore",
            dependencies: ["VultureSyncSchema"]
        ),
        // Test support that starts local servers (the Firestore emulator); kept out of the libraries an app imports.
        .target(
            name: "VultureEmulators",
            dependencies: ["VultureFirestore"]
        ),
        // Conformance cases, typed comparison, failure lists, the testee protocol and reports.
        .target(
            name: "VultureConformance",
            dependencies: ["VultureSyncSchema"]
        ),
        // The conformance runner's command line.
        .executableTarget(
            name: "vulture-conformance",
            dependencies: ["VultureConformance", "VultureSyncSchema"]
        ),
        // The reference implementation served over the testee protocol.
        .executableTarget(
            name: "vulture-reference-testee",
            dependencies: ["VultureConformance", "VultureSyncSchema"]
        ),
        // Writes and checks Goldens/ from the case definitions and the reference implementation.
        .executableTarget(
            name: "vulture-goldens",
            dependencies: ["VultureConformance", "VultureSyncSchema"],
            path: "Tools/vulture-goldens"
        ),
        // Throughput against reference tools measured in the same run.
        .executableTarget(
            name: "vulture-benchmark",
            dependencies: ["VultureSyncSchema", "VultureFirestore", "VultureEmulators"]
        ),
        .testTarget(
            name: "VultureSyncSchemaTests",
            dependencies: ["VultureSyncSchema"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "VultureFirestoreTests",
            dependencies: ["VultureFirestore", "VultureEmulators", "VultureSyncSchema"]
        ),
        .testTarget(
            name: "VultureConformanceTests",
            dependencies: ["VultureConformance", "VultureSyncSchema"]
        ),
        // Generator core: reads and validates the Spec/ tables into SchemaSpec and emits the generated files.
        .target(name: "VultureSchemaGenerator", path: "Tools/VultureSchemaGenerator"),
        // The generator's command line: `generate` writes what changed, `check` prints the drift.
        .executableTarget(
            name: "vulture-schema-gen",
            dependencies: ["VultureSchemaGenerator"],
            path: "Tools/vulture-schema-gen"
        ),
        .testTarget(
            name: "VultureSchemaGeneratorTests",
            dependencies: ["VultureSchemaGenerator"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
