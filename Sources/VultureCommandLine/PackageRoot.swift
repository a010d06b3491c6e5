import Foundation

/// A folder a generator was pointed at that is not this package's root: it lacks `Package.swift`
/// or one of the entries the generator reads. `CommandLineTool.run` prints it in one line, exit 2.
public struct NotPackageRootError: Error, Equatable, CustomStringConvertible {
    /// The folder given (`--root DIR`, or the current directory).
    public var root: String
    /// The entries a package root holds for this tool (`Package.swift`, `Spec/`).
    public var entries: [String]

    public init(root: String, entries: [String]) {
        self.root = root
        self.entries = entries
    }

    public var description: String {
        "\(root) is not the package root (no \(entries.joined(separator: " and "))); run it there or give --root"
    }
}

extension CommandLineArguments {
    /// The package root a generator reads and writes: `--root DIR`, or the current directory,
    /// once it holds `Package.swift` and every one of `entries` (paths from the root; one ending in
    /// `/` must be a folder, any other a file).
    ///
    /// - Parameter entries: what the tool reads besides `Package.swift` (`["Spec/"]`, `["Goldens/VERSION"]`).
    /// - Throws: `NotPackageRootError` naming the folder and every entry it should hold.
    public func packageRoot(holding entries: [String]) throws(NotPackageRootError) -> URL {
        let root = URL(fileURLWithPath: option("root") ?? FileManager.default.currentDirectoryPath)
        let wanted = ["Package.swift"] + entries
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
