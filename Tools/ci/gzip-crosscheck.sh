#!/bin/sh
# Cross-checks our gzip output against gzip(1) and python3's gzip module (schema §2 Storage objects).
# Runs BlobCrossCheckTests (which compares in-process when the tools exist) with
# VULTURE_GZIP_CROSSCHECK_DIR set, then checks the .gz files it left there independently of Swift.
# Usage: Tools/ci/gzip-crosscheck.sh   (from anywhere; needs swift, gzip, python3)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$root"
VULTURE_GZIP_CROSSCHECK_DIR="$out" swift test --filter BlobCrossCheckTests
count=0
for gz in "$out"/*.gz; do
    raw="${gz%.gz}.raw"
    gzip -t "$gz"
    gzip -dc "$gz" | cmp -s - "$raw" || { echo "gzip -dc differs: $gz" >&2; exit 1; }
    python3 -c 'import gzip,sys; sys.exit(0 if gzip.decompress(open(sys.argv[1],"rb").read()) == open(sys.argv[2],"rb").read() else 1)' "$gz" "$raw" \
        || { echo "python3 gzip differs: $gz" >&2; exit 1; }
    count=$((count + 1))
done
[ "$count" -gt 0 ] || { echo "no .gz files produced" >&2; exit 1; }
echo "gzip cross-check: $count files read identically by gzip(1) and python3"
