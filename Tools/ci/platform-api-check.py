#!/usr/bin/env python3
"""Fails on Linux-only API in the libraries an iOS or macOS app imports.

The libraries are the package's library products and every target they depend on, read from
`swift package dump-package`; a dependency with a platform condition that names neither iOS nor
macOS (CCrypto, CSQLite: `.when(platforms: [.linux])`) is not followed. In those targets:

- a system-library target must be one every Apple SDK has (CZlib: zlib);
- a Swift file may use Linux-only API only inside an `#if` branch that iOS does not compile:
  a condition naming Linux (`os(Linux)`, `canImport(Glibc)`, `canImport(Musl)`,
  `canImport(CCrypto)`, `canImport(CSQLite)`, `canImport(FoundationNetworking)`), one negating Apple
  (`!canImport(CryptoKit)`, `!canImport(Darwin)`, `!os(iOS)`), or the `#else` of a branch naming
  Apple (`canImport(CryptoKit)`, `canImport(SQLite3)`, `canImport(Darwin)`, `os(iOS)`, …).

Linux-only API: the modules Glibc, Musl, CCrypto (libcrypto: `EVP_…`), CSQLite (Apple platforms
import the SDK's SQLite3), FoundationNetworking and
FoundationXML; processes and signals (`Process`, `kill`, `getpgid`, `setpgid`, `fork`, `exec…`,
`posix_spawn…`, `waitpid`, `signal`, `sigaction`, `raise` called as C functions — not methods of
the same name such as `DispatchSemaphore.signal()` —, `SIG…` constants, which iOS apps may not use
or do not have); `/proc/` paths.

Usage: platform-api-check.py ROOT        check the package at ROOT; exit 1 on a finding
       platform-api-check.py --self-test check this checker against planted uses; exit 1 if it misses one
Findings are printed as `FILE:LINE: platform.RULE: message`.
"""

import json
import os
import re
import subprocess
import sys

# System libraries every Apple SDK provides (header and library), by target name.
APPLE_SYSTEM_LIBRARIES = {"CZlib": "zlib"}

LINUX_CONDITION = re.compile(
    r"(?<!!)\b(os\((Linux|Android|Windows)\)|canImport\((Glibc|Musl|CCrypto|CSQLite|FoundationNetworking|FoundationXML|Android|WinSDK)\))"
)
NEGATED_APPLE_CONDITION = re.compile(r"!\s*(canImport\((CryptoKit|Darwin|UIKit|AppKit)\)|os\((iOS|tvOS|watchOS|visionOS)\))")
APPLE_CONDITION = re.compile(
    r"(?<!!)\b(canImport\((CryptoKit|SQLite3|Darwin|UIKit|AppKit)\)|os\((iOS|macOS|tvOS|watchOS|visionOS)\))"
)

RULES = [
    ("module", re.compile(r"\bimport\s+(?:\w+\s+)?(Glibc|Musl|CCrypto|CSQLite|FoundationNetworking|FoundationXML)\b"),
     "imports {0}, which Apple platforms do not have"),
    ("module", re.compile(r"\b(Glibc|Musl|CCrypto)\s*\."), "uses {0}, which Apple platforms do not have"),
    ("libcrypto", re.compile(r"\b(EVP_\w+)"), "calls libcrypto ({0}); Apple platforms hash with CryptoKit"),
    ("process", re.compile(r"\b(Process)\b(?!Info)"), "uses {0}, which iOS does not have"),
    # The C functions, bare or through a C module (`Glibc.kill(`); a method of the same name
    # (`semaphore.signal()`, `error.raise(`) is not one.
    ("process", re.compile(
        r"(?:(?<!\.)|(?<=\bGlibc\.)|(?<=\bMusl\.)|(?<=\bDarwin\.))"
        r"\b(kill|getpgid|setpgid|fork|execv\w*|execl\w*|posix_spawn\w*|waitpid|signal|sigaction|raise)\s*\("),
     "calls {0}(), process and signal control an iOS app may not use"),
    ("process", re.compile(r"\b(SIG(?:INT|TERM|HUP|KILL|PIPE|CHLD|QUIT|USR1|USR2|ALRM))\b"), "uses {0}"),
]
PROC_PATH = re.compile(r"/proc/")


def strip_comments_and_strings(text):
    """The text with comments and string literals blanked (line breaks kept), and the raw strings."""
    out = []
    strings = []
    i, n = 0, len(text)
    block_depth = 0
    while i < n:
        c = text[i]
        if block_depth:
            if text.startswith("/*", i):
                block_depth += 1
                out.append("  ")
                i += 2
            elif text.startswith("*/", i):
                block_depth -= 1
                out.append("  ")
                i += 2
            else:
                out.append("\n" if c == "\n" else " ")
                i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
        elif text.startswith("/*", i):
            block_depth = 1
            out.append("  ")
            i += 2
        elif c == '"' or (c == "#" and re.match(r'#+"', text[i:])):
            hashes = len(re.match(r"#*", text[i:]).group(0))
            start = i
            i += hashes
            multiline = text.startswith('"""', i)
            quote = '"""' if multiline else '"'
            i += len(quote)
            closing = quote + "#" * hashes
            while i < n and not text.startswith(closing, i):
                if text[i] == "\\" and hashes == 0:
                    i += 1
                if not multiline and i < n and text[i] == "\n":
                    break
                i += 1
            i = min(n, i + len(closing))
            literal = text[start:i]
            strings.append(literal)
            out.append("".join("\n" if ch == "\n" else " " for ch in literal))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def scan_source(text, path="<text>"):
    """Findings (path, line, rule, message) for unguarded Linux-only API in one Swift file."""
    findings = []
    code_lines = strip_comments_and_strings(text).split("\n")
    raw_lines = text.split("\n")
    # A stack of #if chains: each is [guarded_now, an_apple_branch_seen, guarded_by_enclosing].
    stack = []
    for number, (code, raw) in enumerate(zip(code_lines, raw_lines), start=1):
        directive = re.match(r"\s*#(if|elseif|else|endif)\b(.*)", code)
        if directive:
            kind, condition = directive.group(1), directive.group(2)
            enclosing = bool(stack) and (stack[-1][0] or stack[-1][2])
            if kind == "if":
                guarded = bool(LINUX_CONDITION.search(condition) or NEGATED_APPLE_CONDITION.search(condition))
                stack.append([guarded, bool(APPLE_CONDITION.search(condition)), enclosing])
            elif kind == "elseif" and stack:
                top = stack[-1]
                top[0] = bool(
                    LINUX_CONDITION.search(condition) or NEGATED_APPLE_CONDITION.search(condition) or top[1]
                )
                top[1] = top[1] or bool(APPLE_CONDITION.search(condition))
            elif kind == "else" and stack:
                stack[-1][0] = stack[-1][1]
            elif kind == "endif" and stack:
                stack.pop()
            continue
        if stack and (stack[-1][0] or stack[-1][2]):
            continue
        for rule, pattern, message in RULES:
            for match in pattern.finditer(code):
                findings.append((path, number, "platform." + rule, message.format(match.group(1))))
        if PROC_PATH.search(raw) and not raw.lstrip().startswith("//"):
            findings.append((path, number, "platform.process", "reads /proc/, which Apple platforms do not have"))
    return findings


def app_targets(package):
    """The targets of the library products and their dependencies, as iOS and macOS build them."""
    targets = {t["name"]: t for t in package["targets"]}
    findings = []
    todo = [name for product in package["products"] if "library" in product["type"] for name in product["targets"]]
    seen = []
    while todo:
        name = todo.pop(0)
        if name in seen or name not in targets:
            continue
        seen.append(name)
        for dependency in targets[name]["dependencies"]:
            kind, value = next(iter(dependency.items()))
            dependency_name, condition = value[0], value[-1]
            if kind == "product":
                continue  # another package's product (none here: no package is fetched)
            platforms = (condition or {}).get("platformNames") if isinstance(condition, dict) else None
            if platforms and not ({"ios", "macos"} & set(platforms)):
                continue
            todo.append(dependency_name)
    for name in seen:
        target = targets[name]
        if target["type"] == "system" and name not in APPLE_SYSTEM_LIBRARIES:
            findings.append(
                ("Package.swift", 0, "platform.system-library",
                 f"{name} (a system library Apple SDKs do not have) is a dependency of the app libraries "
                 "on Apple platforms; depend on it with .when(platforms: [.linux])"))
    return [targets[name] for name in seen], findings


def swift_files(root, target):
    base = os.path.join(root, target.get("path") or os.path.join("Sources", target["name"]))
    excluded = [os.path.normpath(os.path.join(base, e)) for e in target.get("exclude", [])]
    sources = target.get("sources")
    roots = [os.path.join(base, s) for s in sources] if sources else [base]
    for start in roots:
        if os.path.isfile(start):
            yield start
            continue
        for folder, _, names in os.walk(start):
            if any(os.path.normpath(folder).startswith(e) for e in excluded):
                continue
            for name in sorted(names):
                if name.endswith(".swift"):
                    yield os.path.join(folder, name)


def check(root, package):
    targets, findings = app_targets(package)
    files = 0
    for target in targets:
        if target["type"] == "system":
            continue
        for path in swift_files(root, target):
            files += 1
            with open(path, encoding="utf-8") as f:
                findings += scan_source(f.read(), os.path.relpath(path, root))
    return [t["name"] for t in targets], files, findings


def self_test():
    """Planted uses must be found, guarded ones must not; returns the failures."""
    failures = []
    expect_found = {
        "import Glibc\n": "platform.module",
        "import CCrypto\n": "platform.module",
        "let n = Glibc.write(fd, p, c)\n": "platform.module",
        "let p = Process()\n": "platform.process",
        "private var process: Process?\n": "platform.process",
        "kill(pid, SIGTERM)\n": "platform.process",
        "_ = getpgid(pid)\n": "platform.process",
        "guard let c = EVP_MD_CTX_new() else { return }\n": "platform.libcrypto",
        'let s = try String(contentsOfFile: "/proc/self/status")\n': "platform.process",
        "#if DEBUG\nimport Glibc\n#endif\n": "platform.module",
        "#if os(Linux)\n#else\nimport Glibc\n#endif\n": "platform.module",
        "#if canImport(CryptoKit)\n#if DEBUG\n#else\nlet p = Process()\n#endif\n#endif\n": "platform.process",
        "#if !os(Linux)\nimport Glibc\n#endif\n": "platform.module",
        "_ = Darwin.kill(pid, 0)\n": "platform.process",
        "_ = Darwin.posix_spawn(&pid, path, nil, nil, argv, envp)\n": "platform.process",
    }
    expect_clean = [
        "#if canImport(Glibc)\nimport Glibc\n#endif\n",
        "#if canImport(CryptoKit)\nimport CryptoKit\n#else\nimport CCrypto\n#endif\n",
        "#if !canImport(CryptoKit)\nlet c = EVP_MD_CTX_new()\n#endif\n",
        "#if os(Linux)\n#if DEBUG\nlet p = Process()\n#endif\n#endif\n",
        "#if canImport(Darwin)\nDarwin.write(1, p, 1)\n#elseif canImport(Glibc)\nGlibc.write(1, p, 1)\n#endif\n",
        "#if canImport(Darwin)\nimport Darwin\n#elseif DEBUG\nimport Glibc\n#endif\n",  # iOS takes the first branch
        "// a Process() in a comment, kill(pid) too\nlet info = ProcessInfo.processInfo\n",
        'let text = "Process() and kill(1) and import Glibc"\n',
        "/* Process()\n   /* nested */ kill(1) */\nlet x = 1\n",
        'let raw = #"Process() "quoted" kill(1)"#\n',
        'let multi = """\n    Process()\n    """\n',
        "let done = DispatchSemaphore(value: 0)\ndone.signal()\ndone.wait()\n",
    ]
    for source, rule in expect_found.items():
        found = scan_source(source)
        if not any(f[2] == rule for f in found):
            failures.append(f"missed {rule} in: {source!r}")
    for source in expect_clean:
        found = scan_source(source)
        if found:
            failures.append(f"false finding {found} in: {source!r}")
    package = {
        "products": [{"name": "Lib", "targets": ["Lib"], "type": {"library": ["automatic"]}}],
        "targets": [
            {"name": "Lib", "type": "regular", "dependencies": [{"byName": ["CCrypto", None]}, {"byName": ["CZlib", None]}]},
            {"name": "CCrypto", "type": "system", "dependencies": []},
            {"name": "CZlib", "type": "system", "dependencies": []},
        ],
    }
    _, found = app_targets(package)
    if [f[2] for f in found] != ["platform.system-library"]:
        failures.append(f"an unconditional CCrypto dependency gave {found}")
    package["targets"][0]["dependencies"][0] = {"target": ["CCrypto", {"platformNames": ["linux"]}]}
    names, found = app_targets(package)
    if found or names and [t["name"] for t in names] != ["Lib", "CZlib"]:
        failures.append(f"a Linux-only CCrypto dependency gave {found}")
    return failures


def main(argv):
    if argv[1:] == ["--self-test"]:
        failures = self_test()
        for failure in failures:
            print(f"platform-api-check self-test: {failure}")
        if failures:
            return 1
        print("platform-api-check self-test: every planted use found, every guarded one left alone")
        return 0
    if len(argv) != 2:
        print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
        return 2
    root = argv[1]
    dump = subprocess.run(
        ["swift", "package", "--package-path", root, "dump-package"], capture_output=True, text=True, check=False
    )
    if dump.returncode != 0:
        print(f"platform-api-check: swift package dump-package failed:\n{dump.stderr}", file=sys.stderr)
        return 2
    names, files, findings = check(root, json.loads(dump.stdout))
    for path, line, rule, message in findings:
        print(f"{path}:{line}: {rule}: {message}")
    if findings:
        print(f"platform-api-check: {len(findings)} unguarded Linux-only use(s) in the app libraries", file=sys.stderr)
        return 1
    print(f"platform-api-check: {files} Swift files of {', '.join(names)}: no unguarded Linux-only API")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
