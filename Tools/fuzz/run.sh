#!/usr/bin/env bash
# Builds the libFuzzer executables of Tools/fuzz and runs them (README "Fuzzing").
set -euo pipefail

usage() {
  cat <<'EOF'
usage: Tools/fuzz/run.sh [--seconds S | --runs N] [--seed N] [--build-only] [--list] [TARGET…]

Builds one libFuzzer executable per reader (swift build with VULTURE_FUZZ=1, --sanitize=fuzzer and
-sanitize=fuzzer,address, release, in .build/fuzz) and fuzzes each named TARGET (all when none is named)
for S seconds (default 60) or N executions, starting from its seeds (made from the goldens), its saved
regressions (Tools/fuzz/regressions/TARGET) and what earlier runs kept (.build/fuzz/corpus/TARGET).

Targets:
  canonical-json     canonical typed JSON: one pass, reused reader, two phases, slices; writes; round trips
  strict-json        the strict RFC 8259 reader and the canonical writer's round trip
  firestore-rest     REST documents, values, Write, CommitRequest, BatchWriteRequest; round trips
  gunzip-sha256      gunzip (one piece and chunked) with the flight id's SHA-256 checked
  igc-header         the IGC header reader and vulture-sync's import check
  testee-protocol    protocol lines: the runner's answer and server-request readers, the testee side
  scenario           scenario files and steps
  spec-tsv           the Spec TSV reader and the model read and validated from it
  json-differential  canonical, REST and strict readers against each other and against jansson

Options:
  --seconds S    fuzz each target for S seconds
  --runs N       fuzz each target for N executions
  --seed N       libFuzzer's random seed (default: a new one each run), so a run can be repeated
  --build-only   build the executables and write the seeds, fuzz nothing
  --list         print the target names and exit

Each target's line reads `fuzz: TARGET: clean, RUNS runs in SECONDS s (RATE exec/s), corpus N`, or names
the crash, leak or timeout and the input libFuzzer saved (.build/fuzz/artifacts/TARGET/). A saved input
becomes a regression: fix the reader, copy the input to Tools/fuzz/regressions/TARGET/NAME and add a test
(README "Fuzzing"). Reproduce one with `.build/fuzz/release/fuzz-TARGET FILE`.

Needs: the Swift toolchain's libFuzzer and address sanitizer (Linux), and jansson for json-differential
(Debian: apt-get install libjansson-dev pkg-config).

Exit status: 0 every target clean, 1 a crash, leak, timeout or harness violation, 2 usage error or a
failed build.
EOF
}

all_targets=(canonical-json strict-json firestore-rest gunzip-sha256 igc-header testee-protocol scenario spec-tsv
  json-differential)

seconds=60
runs=""
seed=()
build_only=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds)
      [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --seconds needs a positive whole number" >&2; exit 2; }
      seconds="$2"; runs=""; shift 2 ;;
    --runs)
      [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --runs needs a positive whole number" >&2; exit 2; }
      runs="$2"; shift 2 ;;
    --seed)
      [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || { echo "run.sh: --seed needs a whole number" >&2; exit 2; }
      seed=(-seed="$2"); shift 2 ;;
    --build-only) build_only=1; shift ;;
    --list) printf '%s\n' "${all_targets[@]}"; exit 0 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *)
      if [[ " ${all_targets[*]} " != *" $1 "* ]]; then
        echo "run.sh: unknown target $1; targets: ${all_targets[*]}" >&2; exit 2
      fi
      targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

cd "$(dirname "$0")/../.."
root="$PWD"
scratch="$root/.build/fuzz"

if [[ " ${targets[*]} " == *" json-differential "* ]] && ! pkg-config --exists jansson 2>/dev/null; then
  echo "run.sh: json-differential needs jansson: apt-get install libjansson-dev pkg-config" >&2
  exit 2
fi

# The fuzzing build: every module instrumented for coverage and the address sanitizer. SwiftPM passes
# --sanitize=fuzzer's own flags (the executables keep libFuzzer's main); -Xswiftc names both sanitizers
# in one flag, since the compiler keeps only the last -sanitize= it is given.
build() {
  VULTURE_FUZZ=1 swift build -c release --scratch-path "$scratch" --sanitize=fuzzer \
    -Xswiftc -sanitize=fuzzer,address "$@"
}
echo "fuzz: building ${targets[*]} (release, -sanitize=fuzzer,address, $scratch)"
build_log="$scratch/build.log"
mkdir -p "$scratch"
for target in "${targets[@]}"; do
  if ! build --product "fuzz-$target" > "$build_log" 2>&1; then
    grep -v 'Cannot export local symbol' "$build_log" | tail -30 >&2
    echo "run.sh: the build of fuzz-$target failed (the whole log: $build_log)" >&2
    exit 2
  fi
done
bin="$(build --show-bin-path)"

# libFuzzer reports crashes itself; the Swift runtime's backtracer would only hold the process up.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}"

for target in "${targets[@]}"; do
  seeds="$scratch/seeds/$target"
  rm -rf "$seeds"
  VULTURE_FUZZ_WRITE_SEEDS="$seeds" "$bin/fuzz-$target" > /dev/null 2>"$scratch/seeds-$target.log" || {
    cat "$scratch/seeds-$target.log" >&2
    echo "run.sh: fuzz-$target could not write its seeds" >&2
    exit 2
  }
done
[ "$build_only" -eq 0 ] || { echo "fuzz: built in $bin; seeds in $scratch/seeds"; exit 0; }

failed=()
for target in "${targets[@]}"; do
  corpus="$scratch/corpus/$target"
  artifacts="$scratch/artifacts/$target"
  regressions="$root/Tools/fuzz/regressions/$target"
  mkdir -p "$corpus" "$artifacts" "$regressions"
  log="$scratch/$target.log"
  if [ -n "$runs" ]; then limit=(-runs="$runs"); wall=$((3600 * 6)); else limit=(-max_total_time="$seconds"); wall=$((seconds + 600)); fi
  set +e
  timeout --kill-after=10 "$wall" "$bin/fuzz-$target" "${limit[@]}" ${seed[@]+"${seed[@]}"} -timeout=20 -rss_limit_mb=2560 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$corpus" "$scratch/seeds/$target" "$regressions" > "$log" 2>&1
  status=$?
  set -e
  executed="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
  elapsed="$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)"
  size="$(find "$corpus" -type f | wc -l)"
  if [ "$status" -eq 0 ]; then
    echo "fuzz: $target: clean, ${executed:-?} runs in ${elapsed:-?} s (${rate:-?} exec/s), corpus $size"
  else
    kind="crash"
    grep -q 'ERROR: LeakSanitizer' "$log" && kind="leak"
    grep -q 'ERROR: libFuzzer: timeout' "$log" && kind="timeout"
    grep -q 'out-of-memory' "$log" && kind="out of memory"
    grep -q 'violation:' "$log" && kind="harness violation"
    [ "$status" -eq 124 ] || [ "$status" -eq 137 ] && kind="hang of the whole run"
    saved="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)"
    echo "fuzz: $target: FAILED ($kind, exit $status) after ${executed:-?} runs; input: ${saved:-none saved}; log: $log"
    grep -E 'violation:|ERROR:|Fatal error|SUMMARY' "$log" | head -5 | sed 's/^/    /'
    failed+=("$target")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} of ${#targets[@]} targets failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets clean"
