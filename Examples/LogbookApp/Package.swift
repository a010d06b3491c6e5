// swift-tools-version:6.0
// An app-shaped consumer of the Vulture sync schema package, built and tested by `.ci/run` against
// the project by path (README "Using the library from your package").
import PackageDescription

let package = Package(
    name: "LogbookApp",
    platforms: [.macOS("10.15.4"), .iOS(.v13)],
    // `name:` fixes the dependency's identity, whatever the checkout's folder is called.
    dependencies: [.package(name: "VultureSync", path: "../..")],
    targets: [
        // The app: its own store and a façade over the engine; app products only.
        .target(
            name: "LogbookApp",
            dependencies: [
                .product(name: "VultureSchemaCore", package: "VultureSync"),
                .product(name: "VultureSyncSchema", package: "VultureSync"),
                .product(name: "VultureSyncEngine", package: "VultureSync"),
                .product(name: "VultureFirestore", package: "VultureSync"),
            ]
        ),
        // The app's tests: the in-process conformance suite and the engine over in-memory backends.
        .testTarget(
            name: "LogbookAppTests",
            dependencies: [
                "LogbookApp",
                .product(name: "VultureConformance", package: "VultureSync"),
                .product(name: "VultureReference", package: "VultureSync"),
                .product(name: "VultureFirestoreTesting", package: "VultureSync"),
            ]
        ),
    ]
)
