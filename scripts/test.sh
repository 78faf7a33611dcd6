#!/usr/bin/env bash
# Every test, from a fresh Debian 12 machine: install what is missing, then
#   1. the optimized build: unit tests, known-answer tests, CLI recipes (CTest); then clang-tidy
#      over the project's own code with that build's compile commands (scripts/clang-tidy.sh,
#      warnings are errors);
#   2. the Debian package: built with dpkg-buildpackage and checked by lintian, installed with
#      dpkg -i, the main job run with the stock openssl and the system configuration, removed and
#      purged (scripts/test-package.sh; needs root, as in CI; alone, after the tests above);
#   3. the tests under AddressSanitizer + UndefinedBehaviorSanitizer (-O1), less the `docs` ones
#      (pure Perl over the tree: no klms code to instrument);
#   4. the libFuzzer targets (clang) for a bounded time each;
#   5. the tests that touch OpenSSL again, against OpenSSL 4.0 built with its own LMS enabled (from
#      Debian's source package, scripts/test-openssl.sh; built once per version into
#      ~/.cache/klms-openssl): all but the `docs` and `engine` ones (code that links no OpenSSL).
# Every build goes through ccache (~/.cache/ccache, kept between runs). The run ends with a time
# table (scripts/ci-timing.sh): each stage's wall time, the 10 slowest tests, the skips per test
# with their reasons, the total; printed on failure too. docs/development.md "Running the tests"
# says what each stage leaves out and why, and how long each takes.
#
#   scripts/test.sh            everything (CI: .ci/run, with CI=true)
#   scripts/test.sh --quick    the release build and its tests less the `slow` ones (a few minutes)
#
# KLMS_SKIP_CLANG_TIDY=1, KLMS_SKIP_PACKAGE=1, KLMS_SKIP_SANITIZERS=1, KLMS_SKIP_FUZZ=1 or KLMS_SKIP_OPENSSL4=1 leave a stage
# out (for quick local runs only); KLMS_CI_OPENSSL (default 4.0.2) picks the version of stage 5;
# KLMS_CTEST_JOBS (default: the number of cores) how many tests ctest runs at once.
# With CI set, a skip of a component CI installs fails the test that skips (test/skip-policy.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
quick=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown option $arg (--quick, --help)" >&2; exit 2 ;;
  esac
done
jobs=$(nproc 2>/dev/null || echo 2)
ctest_jobs=${KLMS_CTEST_JOBS:-$jobs}  # tests run at once (many recipes wait on processes, fsync, etcd)

# The time table's record: one line per stage (name, seconds, result, the CTest build tree if any).
mkdir -p build
stages=build/ci-stages.tsv
: > "$stages"
run_start=$(date +%s.%N)
stage_name=""
stage_dir=""
stage_start=""
stage_done() {  # stage_done RESULT: closes the stage that is open
  [[ -n "$stage_name" ]] || return 0
  local secs
  secs=$(awk -v a="$stage_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
  printf '%s\t%s\t%s\t%s\n' "$stage_name" "$secs" "$1" "$stage_dir" >> "$stages"
  stage_name=""
}
stage() {  # stage NAME [CTEST_BUILD_DIR]: a stage that runs ctest in that tree names it
  stage_done ok
  stage_name=$1
  stage_dir=${2:-}
  stage_start=$(date +%s.%N)
  if [[ -n "$stage_dir" ]]; then  # the time table reads this run's log and skips, not an older run's
    rm -rf "$stage_dir/Testing/Temporary/LastTest.log" "$stage_dir/Testing/Temporary/LastTest.log.tmp" \
           "$stage_dir/Testing/klms-skips" "$stage_dir/Testing/klms-junit.xml"
  fi
  printf '\n=== %s ===\n' "$1"
}
finish() {
  local status=$?
  stage_done "$( ((status == 0)) && echo ok || echo FAILED)"
  local total
  total=$(awk -v a="$run_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
  scripts/ci-timing.sh --stages "$stages" --total "$total" || true
  if ((status == 0)); then printf '\n=== all tests passed ===\n'; else printf '\n=== FAILED (exit %d) ===\n' "$status"; fi
  exit "$status"
}
trap finish EXIT

stage "install what is missing (scripts/install-deps.sh)"
scripts/install-deps.sh

# ccache for every build and preset (the package's and stage 5's too): the cache lives under
# ~/.cache, which CI's machine keeps between runs; CCACHE_BASEDIR and no hashed working directory
# let a checkout at another path hit what an earlier one compiled.
if command -v ccache >/dev/null; then
  export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}" CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR=1
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  ccache --zero-stats >/dev/null 2>&1 || true
fi

stage "1 release: build"
scripts/build.sh release
stage "1 release: tests" build/release
if ((quick)); then
  ctest --preset release -j "$ctest_jobs" --output-junit Testing/klms-junit.xml -LE slow
  exit 0
fi
ctest --preset release -j "$ctest_jobs" --output-junit Testing/klms-junit.xml

if [[ "${KLMS_SKIP_CLANG_TIDY:-0}" != 1 ]]; then
  stage "1 clang-tidy (bugprone, exception escape, performance) on provider/ pkcs11/ lms/ state/ stateful/ base/ tools/ witness/ xmss/"
  scripts/clang-tidy.sh
fi

if [[ "${KLMS_SKIP_PACKAGE:-0}" != 1 ]]; then
  stage "2 Debian package: build, lintian, dpkg -i, main job, dpkg -r/-P"
  if (( EUID == 0 )); then
    scripts/install-deps.sh --package
    scripts/test-package.sh
  else
    echo "SKIPPED: scripts/test-package.sh needs root (dpkg -i); CI runs it as root" >&2
    if [[ -n "${CI:-}" && "${CI}" != false ]]; then
      echo "error: CI is set but this is not root: the package stage cannot be skipped under CI" >&2
      exit 1
    fi
  fi
fi

if [[ "${KLMS_SKIP_SANITIZERS:-0}" != 1 ]]; then
  stage "3 AddressSanitizer + UBSan: build"
  scripts/build.sh asan
  stage "3 AddressSanitizer + UBSan: tests (less docs)" build/asan
  ctest --preset asan -j "$ctest_jobs" --output-junit Testing/klms-junit.xml -LE docs
fi

if [[ "${KLMS_SKIP_FUZZ:-0}" != 1 ]]; then
  stage "4 fuzzing: build"
  scripts/build.sh fuzz
  stage "4 fuzzing: ${KLMS_FUZZ_SECONDS:-30} s per target"
  scripts/fuzz.sh "${KLMS_FUZZ_SECONDS:-30}"
fi

if [[ "${KLMS_SKIP_OPENSSL4:-0}" != 1 ]]; then
  version="${KLMS_CI_OPENSSL:-4.0.2}"
  stage "5 OpenSSL $version with its own LMS: build of OpenSSL (cached per version)"
  scripts/openssl-build.sh "$version" --lms
  build5="build/openssl-$(basename "$(scripts/openssl-build.sh "$version" --lms)")"
  stage "5 OpenSSL $version with its own LMS: build and tests (less docs, engine)" "$build5"
  # The benchmarks are not built: their smoke tests ran in stage 1 and test no OpenSSL behaviour.
  KLMS_EXPECT_OPENSSL_LMS=1 KLMS_BUILD_BENCH=OFF KLMS_CTEST_ARGS="-LE docs|engine -j $ctest_jobs" \
    scripts/test-openssl.sh "$version" --lms
fi
if command -v ccache >/dev/null; then
  echo "ccache: $(ccache --print-stats 2>/dev/null | awk -F'\t' '$1 ~ /^(direct_cache_hit|preprocessed_cache_hit)$/ { h += $2 } $1 ~ /^cache_miss$/ { m += $2 } END { printf "%d hits, %d misses this run", h, m }')"
fi
