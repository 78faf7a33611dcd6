#!/usr/bin/env bash
# Runs every libFuzzer target of a KLMS_FUZZ build for a bounded time:
#   scripts/fuzz.sh [SECONDS]            (default 30 s per target; scripts/test.sh runs it after
#                                         scripts/build.sh fuzz)
# Environment: KLMS_FUZZ_BUILD_DIR (default build/fuzz), KLMS_FUZZ_JOBS (targets run at once,
# default 2), KLMS_FUZZ_ONLY (run only these space-separated target names, e.g. "hss_verify").
#
# Each target starts from a temporary copy of its committed corpus (test/fuzz/corpus/<name>, so the
# checkout stays clean), with its dictionary when there is one (test/fuzz/dictionaries/<name>.dict),
# and -timeout=10 -rss_limit_mb=2048. A crash, leak, sanitizer report, timeout or out-of-memory fails
# the script: the input is kept under <build>/fuzz-findings/ and a reproducer command is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds="${1:-30}"
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] || { echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2; }
build="${KLMS_FUZZ_BUILD_DIR:-build/fuzz}"
[[ "$build" = /* ]] || build="$root/$build"
jobs="${KLMS_FUZZ_JOBS:-2}"
bin_dir="$build/test/fuzz"

# UBSan reports must stop the run (the build uses recoverable UBSan); leaks are findings too.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"

targets=()
for bin in "$bin_dir"/fuzz_*; do
  [[ -f "$bin" && -x "$bin" ]] || continue
  name=${bin##*/fuzz_}
  if [[ -n "${KLMS_FUZZ_ONLY:-}" && " $KLMS_FUZZ_ONLY " != *" $name "* ]]; then continue; fi
  targets+=("$name")
done
if [[ ${#targets[@]} -eq 0 ]]; then
  echo "fuzz.sh: no fuzz_* targets in $bin_dir (build them with: scripts/build.sh fuzz)" >&2
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/klms-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
findings="$build/fuzz-findings"

# One target: corpus copy, libFuzzer run, summary line into $work/<name>.summary; non-zero on a finding.
run_target() {
  local name=$1 bin="$bin_dir/fuzz_$1" dir="$work/$1"
  mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/tmp"
  if [[ -d "test/fuzz/corpus/$name" ]]; then
    cp -R "test/fuzz/corpus/$name/." "$dir/corpus/"
  fi
  local args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
              -artifact_prefix="$dir/artifacts/")
  if [[ -f "test/fuzz/dictionaries/$name.dict" ]]; then
    args+=(-dict="$root/test/fuzz/dictionaries/$name.dict")
  fi
  local status=0
  TMPDIR="$dir/tmp" "$bin" "${args[@]}" "$dir/corpus" >"$dir/log" 2>&1 || status=$?

  local runs execs cov ft corp
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1 || true)
  execs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -n 1 || true)
  cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -n 1 | cut -d' ' -f2 || true)
  ft=$(grep -o 'ft: [0-9]*' "$dir/log" | tail -n 1 | cut -d' ' -f2 || true)
  corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$dir/log" | tail -n 1 | cut -d' ' -f2 || true)
  local verdict=ok
  local crashes=("$dir"/artifacts/*)
  if [[ $status -ne 0 || -e "${crashes[0]}" ]]; then
    verdict=FAILED
    local keep
    keep="$findings/$name-$(date +%Y%m%d-%H%M%S)-$$"
    mkdir -p "$keep"
    cp "$dir/log" "$keep/log"
    if [[ -e "${crashes[0]}" ]]; then cp "$dir"/artifacts/* "$keep/"; fi
    {
      echo "---- fuzz_$name: finding (exit $status); last lines of its log ($keep/log):"
      tail -n 40 "$dir/log"
      for f in "$keep"/*; do
        [[ "$(basename "$f")" == log ]] && continue
        echo "input:     $f"
        echo "reproduce: UBSAN_OPTIONS=$UBSAN_OPTIONS $bin $f"
      done
    } >"$dir/finding"
  fi
  printf '%-26s %-6s runs=%-9s exec/s=%-7s cov=%-6s ft=%-6s corpus=%s\n' "fuzz_$name" "$verdict" \
    "${runs:-?}" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" >"$dir/summary"
  [[ $verdict == ok ]]
}

echo "fuzzing ${#targets[@]} targets for ${seconds}s each, $jobs at a time (build: $build)"
running=0
for name in "${targets[@]}"; do
  if [[ $running -ge $jobs ]]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$name" &
  running=$((running + 1))
done
wait || true

failed=0
for name in "${targets[@]}"; do
  cat "$work/$name/summary" 2>/dev/null || { echo "fuzz_$name: no result"; failed=1; }
done
for name in "${targets[@]}"; do
  if [[ -f "$work/$name/finding" ]]; then
    echo
    cat "$work/$name/finding"
    failed=1
  fi
done
if [[ $failed -ne 0 ]]; then
  echo "fuzz.sh: findings (inputs kept in $findings)" >&2
  exit 1
fi
echo "fuzz.sh: no findings"
