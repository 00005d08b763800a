#!/usr/bin/env python3
"""Checks that every module a target imports is one of its direct dependencies in Package.swift.

SwiftPM's --explicit-target-dependency-import-check accepts a module that a target reaches only
through another target; this check does not. It reads the manifest with `swift package
dump-package`, the products of each dependency package from its own manifest, and each target's
`import` lines (outside string literals), and prints every import that is not declared.

usage: .ci/check-imports.py            (from the repository root, after `swift build` resolved the packages)
"""
import json
import os
import re
import subprocess
import sys

# Modules of the toolchain and the platform: never declared in a manifest.
SYSTEM_MODULES = {
    "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
    "Glibc", "Musl", "Darwin", "WinSDK", "ucrt", "Android", "Dispatch", "Synchronization",
    "Observation", "RegexBuilder", "Distributed", "_Concurrency", "_StringProcessing", "Swift",
    "Testing", "XCTest",
}

IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def dump(path="."):
    output = subprocess.run(["swift", "package", "--package-path", path, "dump-package"],
                            check=True, capture_output=True, text=True).stdout
    return json.loads(output)


def imports_of(directory):
    """The modules imported by the Swift files under `directory`, skipping multi-line string literals."""
    found = {}
    for root, _, files in os.walk(directory):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            in_literal = False
            with open(path, encoding="utf-8") as source:
                for number, line in enumerate(source, 1):
                    if line.count('"""') % 2 == 1:
                        in_literal = not in_literal
                        continue
                    if in_literal:
                        continue
                    match = IMPORT.match(line)
                    if match:
                        found.setdefault(match.group(1), f"{path}:{number}")
    return found


def product_modules(package_identity, product, cache={}):
    """The modules a product of a dependency package exports (its targets)."""
    if package_identity not in cache:
        checkouts = ".build/checkouts"
        folder = next((entry for entry in os.listdir(checkouts) if entry.lower() == package_identity.lower()), None)
        if folder is None:
            sys.exit(f"check-imports: no checkout of package '{package_identity}' under {checkouts}; run `swift build` first")
        manifest = dump(os.path.join(checkouts, folder))
        cache[package_identity] = {p["name"]: set(p["targets"]) for p in manifest["products"]}
    return cache[package_identity].get(product, {product})


def main():
    manifest = dump()
    failures = []
    for target in manifest["targets"]:
        kind = target["type"]
        if kind not in ("regular", "executable", "test"):
            continue
        name = target["name"]
        directory = target.get("path") or os.path.join("Tests" if kind == "test" else "Sources", name)
        declared = set()
        for dependency in target["dependencies"]:
            if "product" in dependency:
                product, package = dependency["product"][0], dependency["product"][1]
                declared |= product_modules(package, product)
            else:
                declared.add((dependency.get("byName") or dependency.get("target"))[0])
        for module, where in sorted(imports_of(directory).items()):
            if module in SYSTEM_MODULES or module == name or module in declared:
                continue
            failures.append(f"{where}: target '{name}' imports '{module}', which is not one of its dependencies in Package.swift")
    for failure in failures:
        print(failure)
    if failures:
        print(f"check-imports: {len(failures)} undeclared import(s)")
        return 1
    print("check-imports: every import is a declared dependency")
    return 0


if __name__ == "__main__":
    sys.exit(main())
