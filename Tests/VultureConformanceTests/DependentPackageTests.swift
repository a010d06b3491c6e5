import Foundation
import Testing
import VultureConformance

/// A package that depends on this one runs the suite from its build products alone: built in a
/// temporary folder against a copy of this package, then this package's copy is moved away, the
/// dependent's build folder deleted, and its executable run from a third folder beside the resource
/// bundles it was built with. It loads the goldens and its own failure list from bundles.
@Suite struct DependentPackageTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let manifest = """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "DependentApp",
            platforms: [.macOS("10.15.4"), .iOS(.v13)],
            dependencies: [.package(path: "../vulture")],
            targets: [
                .executableTarget(
                    name: "app",
                    dependencies: [
                        .product(name: "VultureConformance", package: "vulture"),
                        .product(name: "VultureReference", package: "vulture"),
                    ],
                    resources: [.copy("failure-list.txt")]
                )
            ]
        )
        """

    static let main = """
        import Foundation
        import VultureConformance
        import VultureReference
        import VultureSyncSchema

        struct OneCaseWrong: ConformanceImplementation {
            var reference = ReferenceImplementation(schema: .vulture)
            mutating func answer(_ testCase: ConformanceCase) -> ImplementationAnswer {
                testCase.id == "required.schema.task.android.stored" ? .output(.null) : reference.answer(testCase)
            }
            mutating func answer(_ testCase: ConformanceCase, server: EngineServerChannel) -> ImplementationAnswer {
                reference.answer(testCase, server: server)
            }
        }

        let suite = try GoldenSuite.load()
        let known = try FailureList.load(resource: "failure-list.txt", in: .module)
        var implementation = OneCaseWrong()
        let run = ConformanceRunner.run(suite.cases, on: &implementation, failureList: known)
        print("goldens \\(suite.version) from \\(GoldenSuite.defaultRoot.standardizedFileURL.path)")
        print("failure list from \\(URL(fileURLWithPath: known.file).standardizedFileURL.path)")
        print(run.summary.line)
        exit(run.exitStatus)
        """

    /// Runs `arguments` and returns its exit status and its standard output and error together.
    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test func aDependentPackageLoadsTheGoldensWithThisPackageMovedAway() throws {
        let fm = FileManager.default
        let temp = fm.temporaryDirectory.appendingPathComponent("vulture-dependent-\(getpid())")
        try? fm.removeItem(at: temp)
        defer { try? fm.removeItem(at: temp) }
        let copy = temp.appendingPathComponent("vulture")
        let app = temp.appendingPathComponent("app")
        try fm.createDirectory(at: copy, withIntermediateDirectories: true)
        for item in ["Package.swift", "Sources", "Goldens", "Tools", "Tests"] {
            try fm.copyItem(at: Self.packageRoot.appendingPathComponent(item), to: copy.appendingPathComponent(item))
        }
        let sources = app.appendingPathComponent("Sources/app")
        try fm.createDirectory(at: sources, withIntermediateDirectories: true)
        try Data(Self.manifest.utf8).write(to: app.appendingPathComponent("Package.swift"))
        try Data(Self.main.utf8).write(to: sources.appendingPathComponent("main.swift"))
        try Data("required.schema.task.android.stored\n".utf8).write(
            to: sources.appendingPathComponent("failure-list.txt"))

        // One job at the lowest priority: the build shares the machine with the other tests, some of
        // which time a testee's start (TesteeProcessTests).
        let swift = URL(fileURLWithPath: "/usr/bin/env")
        let build = try Self.run(
            swift, ["nice", "-n", "19", "swift", "build", "-j", "1", "--package-path", app.path, "--product", "app"])
        try #require(build.status == 0, "swift build of the dependent package failed:\n\(build.output)")
        let binPath = try Self.run(swift, ["swift", "build", "--package-path", app.path, "--show-bin-path"])
        let bin = URL(fileURLWithPath: binPath.output.trimmingCharacters(in: .whitespacesAndNewlines))

        // The product and its resource bundles, copied away; then no source and no build folder remain.
        let runFolder = temp.appendingPathComponent("run")
        try fm.createDirectory(at: runFolder, withIntermediateDirectories: true)
        let bundles = try fm.contentsOfDirectory(atPath: bin.path).filter { $0.hasSuffix(".resources") }.sorted()
        #expect(bundles == ["DependentApp_app.resources", "VultureSync_VultureGoldenResources.resources"])
        for item in bundles + ["app"] {
            try fm.copyItem(at: bin.appendingPathComponent(item), to: runFolder.appendingPathComponent(item))
        }
        try fm.moveItem(at: copy, to: temp.appendingPathComponent("vulture-moved-away"))
        try fm.removeItem(at: app.appendingPathComponent(".build"))
        #expect(!fm.fileExists(atPath: copy.appendingPathComponent("Goldens").path))

        let result = try Self.run(runFolder.appendingPathComponent("app"), [])
        let suite = try GoldenSuite.load()
        let goldens = runFolder.appendingPathComponent("VultureSync_VultureGoldenResources.resources")
            .standardizedFileURL
        let list = runFolder.appendingPathComponent("DependentApp_app.resources/failure-list.txt").standardizedFileURL
        #expect(
            result.output == """
                goldens \(suite.version) from \(goldens.path)
                failure list from \(list.path)
                \(suite.cases.count - 1) passed, 0 failed, 1 skipped

                """)
        #expect(result.status == 0)
    }
}
