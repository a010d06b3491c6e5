import Foundation
import VultureSchemaCore

/// A folder a generator was pointed at that is not this package's root: it lacks `Package.swift`
/// or one of the entries the generator reads. `CommandLineTool.run` prints it in one line, exit 2.
public struct NotPackageRootError: Error, Equatable, CustomStringConvertible {
    /// The folder given (`--root DIR`, or the current directory); empty when `--root ""` was given.
    public var root: String
    /// The entries a package root holds for this tool (`Package.swift`, `Spec/`).
    public var entries: [String]

    public init(root: String, entries: [String]) {
        self.root = root
        self.entries = entries
    }

    public var description: String {
        let holding = entries.joined(separator: " and ")
        // `URL(fileURLWithPath: "")` is the current directory: an empty --root is refused, not read as it.
        if root.isEmpty { return "--root is empty; give the package root (the folder with \(holding))" }
        return "\(root.shownArgument) is not the package root (no \(holding)); run it there or give --root"
    }
}

extension CommandLineArguments {
    /// The package root a generator reads and writes: `--root DIR`, or the current directory,
    /// once it holds `Package.swift` and every one of `entries` (paths from the root; one ending in
    /// `/` must be a folder, any other a file).
    ///
    /// - Parameter entries: what the tool reads besides `Package.swift` (`["Spec/"]`, `["Goldens/VERSION"]`).
    /// - Throws: `NotPackageRootError` naming the folder and every entry it should hold, or an empty `--root`.
    public func packageRoot(holding entries: [String]) throws(NotPackageRootError) -> URL {
        let wanted = ["Package.swift"] + entries
        let given = option("root")
        if given == "" { throw NotPackageRootError(root: "", entries: wanted) }
        let root = URL(fileURLWithPath: given ?? FileManager.default.currentDirectoryPath)
        for entry in wanted {
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(
                atPath: root.appendingPathComponent(entry).path, isDirectory: &isFolder)
            guard exists, isFolder.boolValue == entry.hasSuffix("/") else {
                throw NotPackageRootError(root: root.path, entries: wanted)
            }
        }
        return root
    }
}
