import Foundation
import VultureConformance
import VultureSyncSchema

/// `vulture-goldens write|check [--root DIR]`: the goldens are the reference implementation's
/// answers to the case definitions in this folder. `write` rewrites Goldens/schema and Goldens/vectors (only files
/// whose bytes change); `check` never writes and exits 1 with a diff when anything would change.
let usage = """
    usage: vulture-goldens write [--root DIR]
           vulture-goldens check [--root DIR]

    Writes (or checks) Goldens/schema/*.json and Goldens/vectors/*.json from the case definitions in Tools/vulture-goldens,
    answered by the reference implementation. Exit status: 0 current, 1 would change (check),
    2 usage or I/O error, or a definition the reference does not answer as declared.
    """

var arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first, mode == "write" || mode == "check" else {
    print(usage)
    exit(arguments.first == "--help" || arguments.first == "-h" ? 0 : 2)
}
arguments.removeFirst()
var root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
if arguments.count == 2, arguments[0] == "--root" {
    root = URL(fileURLWithPath: arguments[1])
} else if !arguments.isEmpty {
    FileHandle.standardError.write(Data("vulture-goldens: unexpected \(arguments.joined(separator: " "))\n".utf8))
    exit(2)
}

guard FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path),
    FileManager.default.fileExists(atPath: root.appendingPathComponent("Goldens/VERSION").path)
else {
    FileHandle.standardError.write(
        Data(
            "vulture-goldens: \(root.path) is not the package root (no Package.swift and Goldens/VERSION); run it there or give --root\n"
                .utf8))
    exit(2)
}

let files = GoldenFiles.all()
var reference = ReferenceImplementation(schema: .vulture)
var rendered: [(path: String, bytes: [UInt8])] = []
do {
    for golden in files.documents {
        rendered.append(("Goldens/schema/\(golden.name).json", try GoldenFiles.render(golden, with: &reference)))
    }
    for file in files.vectors {
        rendered.append(("Goldens/vectors/\(file.area).json", try GoldenFiles.render(file, with: &reference)))
    }
} catch {
    FileHandle.standardError.write(Data("vulture-goldens: \(error)\n".utf8))
    exit(2)
}

var changed: [String] = []
for (path, bytes) in rendered {
    let url = root.appendingPathComponent(path)
    let old = FileManager.default.contents(atPath: url.path).map { [UInt8]($0) }
    guard old != bytes else { continue }
    changed.append(path)
    if mode == "write" {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
        print("wrote \(path)")
    } else {
        print(GoldenFiles.diff(old: old ?? [], new: bytes, path: path))
    }
}
if mode == "check" {
    print(
        changed.isEmpty
            ? "goldens are current (\(rendered.count) files)"
            : "\(changed.count) golden file(s) would change; run `swift run vulture-goldens write` and commit the diff with its reason"
    )
    exit(changed.isEmpty ? 0 : 1)
}
