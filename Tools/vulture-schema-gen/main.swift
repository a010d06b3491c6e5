import Foundation
import VultureSchemaGenerator

// vulture-schema-gen: regenerate or check the files generated from Spec/ (DESIGN.md §1).
// Exit status: 0 done / current, 1 check found drift (the diff is printed), 2 usage, I/O or Spec/ errors.

let usage = """
    usage: vulture-schema-gen generate [--root DIR]
           vulture-schema-gen check [--root DIR]

      generate  read Spec/, write the generated files whose bytes change, list them
      check     read Spec/, compare with the checked-in files, never write; print a
                golden→new diff and exit 1 when anything would change

      --root DIR  the package root (default: the current directory)

    exit status: 0 current, 1 drift found by check, 2 usage, I/O or Spec/ errors
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}
guard let command = arguments.first, command == "generate" || command == "check" else {
    fail(usage)
}
arguments.removeFirst()
var root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
while !arguments.isEmpty {
    let option = arguments.removeFirst()
    guard option == "--root", !arguments.isEmpty else { fail("unexpected argument '\(option)'\n" + usage) }
    root = URL(fileURLWithPath: arguments.removeFirst())
}

let spec: SchemaSpec
do {
    spec = try SchemaSpec.load(from: root.appendingPathComponent("Spec"))
} catch let errors as SpecErrors {
    fail(errors.description)
} catch {
    fail("cannot read \(root.appendingPathComponent("Spec").path): \(error)")
}
let files = SchemaGenerator.generate(spec: spec)

if command == "generate" {
    do {
        let changed = try SchemaGenerator.write(files: files, to: root)
        for path in changed { print("wrote \(path)") }
        print("\(changed.count) of \(files.count) generated files changed")
    } catch {
        fail("cannot write: \(error)")
    }
} else {
    let reports = SchemaGenerator.check(files: files, against: root)
    if reports.isEmpty {
        print("\(files.count) generated files are current")
        exit(0)
    }
    for report in reports { print(report) }
    print("\(reports.count) generated file(s) out of date: run `swift run vulture-schema-gen generate`")
    exit(1)
}
