import Foundation
import Testing
import VultureCommandLine

/// `--root DIR` for the generators: the folder is taken only when it holds `Package.swift` and each
/// entry the tool reads, a folder where the entry ends in `/` and a file elsewhere.
struct PackageRootTests {
    @Test func aRootHoldsPackageSwiftAndEachEntryOfItsKind() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("vulture-root-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let args = try CommandLineArguments(["--root", root.path], valueOptions: ["root"])
        let refusal = NotPackageRootError(root: root.path, entries: ["Package.swift", "Spec/"])
        #expect(
            refusal.description
                == "\(root.path) is not the package root (no Package.swift and Spec/); run it there or give --root")

        #expect(throws: refusal) { try args.packageRoot(holding: ["Spec/"]) }
        try Data().write(to: root.appendingPathComponent("Package.swift"))
        // A file where the folder should be is no root either.
        try Data().write(to: root.appendingPathComponent("Spec"))
        #expect(throws: refusal) { try args.packageRoot(holding: ["Spec/"]) }
        try FileManager.default.removeItem(at: root.appendingPathComponent("Spec"))
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("Spec"), withIntermediateDirectories: false)
        #expect(try args.packageRoot(holding: ["Spec/"]).path == root.path)

        // …and a folder where a file should be.
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("Goldens/VERSION"), withIntermediateDirectories: true)
        #expect(throws: NotPackageRootError(root: root.path, entries: ["Package.swift", "Goldens/VERSION"])) {
            try args.packageRoot(holding: ["Goldens/VERSION"])
        }
    }

    @Test func anEmptyRootIsRefusedNotTakenAsTheCurrentDirectory() throws {
        let args = try CommandLineArguments(["--root", ""], valueOptions: ["root"])
        let refusal = NotPackageRootError(root: "", entries: ["Package.swift", "Spec/"])
        #expect(
            refusal.description == "--root is empty; give the package root (the folder with Package.swift and Spec/)")
        // Whatever the current directory holds (the package root, under swift test), it is not read.
        #expect(throws: refusal) { try args.packageRoot(holding: ["Spec/"]) }
    }
}
