#!/usr/bin/env bash
# The reuse search at a chosen size: the same recipes CI runs (test/recipes/reuse_*.t,
# through CTest so that they get the same environment), with their size parameters raised.
#
#   scripts/stress-state.sh [--size ci|full] [--preset release|asan]
#
#   ci    the sizes CI runs (the recipes' defaults)
#   full  crash points enumerated 3 times, >= 1,000 SIGKILLs of 32 concurrent signers (processes
#         with 1-4 threads, reservations 1/3/8/17, one-shot and streaming, openssl CLI signers),
#         the duplication matrix 3 times, every byte of the state file in the corruption matrix
#
# Needs a built tree (scripts/build.sh release). Prints the CTest result of each recipe, then ONE
# summary line:
#   stress-state: size=S crash_points=N kills=N signers=N signatures=N pairs=N reuses=N failed=<tests>
# (pairs = distinct (tree, index) pairs over every level of every ledger). Exit status 0 when
# every recipe passed; reuses > 0 or a failed recipe gives 1. Tests that show holes still open on
# this branch fail here as they fail in CI: the line says which.
set -euo pipefail
cd "$(dirname "$0")/.."
size=ci
preset=release
while [[ $# -gt 0 ]]; do
  case "$1" in
    --size) size="$2"; shift 2 ;;
    --size=*) size="${1#--size=}"; shift ;;
    --preset) preset="$2"; shift 2 ;;
    *) echo "usage: $0 [--size ci|full] [--preset release|asan]" >&2; exit 2 ;;
  esac
done
case "$size" in
  ci) ;;
  full)
    export KLMS_REUSE_CRASH_ROUNDS=3 KLMS_REUSE_SIGNERS=32 KLMS_REUSE_KILLS=1000 KLMS_REUSE_SECONDS=1800
    export KLMS_REUSE_DUP_ROUNDS=3 KLMS_REUSE_CORRUPT_SIZE=full KLMS_REUSE_XMSS_FULL=1 ;;
  *) echo "$0: --size ci or full" >&2; exit 2 ;;
esac

build="build/$preset"
[[ -d "$build" ]] || { echo "$0: $build is not built (scripts/build.sh $preset)" >&2; exit 2; }
cmake --build --preset "$preset" -j 2 --target klms klms-state klms-evp-signer klms_fault_shim klms-reuse-dup >/dev/null

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
status=0
ctest --preset "$preset" -j 2 -R "^recipe_reuse_" -V --timeout 7200 >"$log" 2>&1 || status=$?
grep -E '^ *[0-9]+/[0-9]+ Test +#' "$log" || true
failed=$(grep -E '^\s+[0-9]+ - recipe_reuse_\S+ \(' "$log" | awk '{print $3}' | paste -sd, - || true)
awk -v size="$size" -v secs="$(( $(date +%s) - start ))" -v failed="${failed:-none}" '
  /^[0-9]+: .*reuse-summary:/ {
    for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) tot[kv[1]] += kv[2]
  }
  END {
    printf "stress-state: size=%s crash_points=%d kills=%d signers=%d signatures=%d pairs=%d reuses=%d failed=%s seconds=%d\n",
      size, tot["crash_points"], tot["kills"], tot["signers"], tot["signatures"], tot["pairs"], tot["reuses"], failed, secs
  }' "$log"
if [[ $status -ne 0 ]] || grep -qE "^[0-9]+: .*reuse-summary:.*reuses=[1-9]" "$log"; then exit 1; fi
