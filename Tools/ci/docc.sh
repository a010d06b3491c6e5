#!/bin/sh
# Builds the DocC catalogs of the libraries an app imports (VultureSchemaCore, VultureSyncSchema, VultureFirestore,
# VultureSyncEngine, VultureConformance) with the toolchain's own docc, warnings as errors. swift-docc-plugin cannot be
# fetched here, so the symbol graphs come from `swift symbolgraph-extract` over the built modules (nothing is
# re-exported: each catalog covers its own module), and `docc convert` turns each catalog into an archive.
# Usage: Tools/ci/docc.sh [OUTPUT_DIR]   (from anywhere; default OUTPUT_DIR: .build/docc)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${1:-.build/docc}
swift build --target VultureConformance
swift build --target VultureFirestore
swift build --target VultureSyncEngine
bin=$(swift build --show-bin-path)
modules="$bin/Modules"
[ -d "$modules" ] || modules="$bin"
triple=$(basename "$(dirname "$bin")")
mkdir -p "$out"
graphs=$(mktemp -d)
trap 'rm -rf "$graphs"' EXIT
for module in VultureSchemaCore VultureSyncSchema VultureFirestore VultureSyncEngine VultureConformance; do
  mkdir -p "$graphs/$module"
  swift symbolgraph-extract -module-name "$module" -target "$triple" \
    -I "$modules" -I Sources/CZlib -I Sources/CCrypto -I Sources/CSQLite \
    -minimum-access-level public -skip-inherited-docs \
    -output-dir "$graphs/$module"
  rm -rf "$out/$module.doccarchive"
  docc convert "Sources/$module/$module.docc" \
    --additional-symbol-graph-dir "$graphs/$module" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.vulture.$module" \
    --warnings-as-errors \
    --output-dir "$out/$module.doccarchive"
done
echo "docc: $out/VultureSchemaCore.doccarchive, $out/VultureSyncSchema.doccarchive, $out/VultureFirestore.doccarchive, $out/VultureSyncEngine.doccarchive, $out/VultureConformance.doccarchive (no warnings)"
