#!/usr/bin/env bash
# Builds the project against one OpenSSL and runs the whole CTest suite with that version's
# `openssl` binary and libraries:
#   scripts/test-openssl.sh VERSION [--lms|--no-lms]     e.g. 4.0.2 --lms, 3.6.3 --no-lms, 3.5.9
#   scripts/test-openssl.sh system                       the system's OpenSSL (Debian 12: 3.0)
# OpenSSL comes from its Debian source package, built once into a cache (scripts/openssl-build.sh,
# ${KLMS_OPENSSL_CACHE:-$HOME/.cache/klms-openssl}); the project goes to build/openssl-<ver>-<lms|nolms>
# (configured with OPENSSL_ROOT_DIR and that openssl for the recipes; every binary and the provider
# have an rpath to that libcrypto). Prints a one-line summary at the end (also in <builddir>/summary.txt):
#   openssl <version> <lms|nolms>: ctest P/T passed, prove N tests in F files (ok|FAILED), wall S s
# Environment: KLMS_CTEST_ARGS extra ctest arguments (e.g. "-R recipe_"), KLMS_BUILD_BENCH=OFF
# leaves the benchmark (and its smoke test) out.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$(date +%s)
version="${1:?usage: test-openssl.sh VERSION [--lms|--no-lms] | system}"
jobs=$(nproc 2>/dev/null || echo 2)

cmake_args=(-DCMAKE_BUILD_TYPE=Release -DKLMS_BUILD_BENCH="${KLMS_BUILD_BENCH:-ON}")
if [[ "$version" == system ]]; then
  prefix=""
  openssl_bin=$(command -v openssl)
  tag="system"
else
  prefix=$(scripts/openssl-build.sh "$@")
  openssl_bin="$prefix/bin/openssl"
  tag=$(basename "$prefix")
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig"
  cmake_args+=(-DOPENSSL_ROOT_DIR="$prefix" -DOPENSSL_USE_STATIC_LIBS=OFF -DOPENSSL_BIN="$openssl_bin"
               -DCMAKE_INSTALL_RPATH="$prefix/lib" -DCMAKE_BUILD_RPATH="$prefix/lib")
fi
full_version=$("$openssl_bin" version)
lms_state=$([[ "$tag" == *-lms ]] && echo lms || echo nolms)
echo "test-openssl: $full_version ($openssl_bin), OpenSSL's own LMS: $lms_state" >&2

build="build/openssl-$tag"
export CMAKE_C_COMPILER_LAUNCHER="${CMAKE_C_COMPILER_LAUNCHER:-$(command -v ccache || true)}"
export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-$(command -v ccache || true)}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
# Ninja, as the presets (CMakePresets.json); a tree configured with make before starts again.
if command -v ninja >/dev/null; then
  cmake_args+=(-G Ninja)
  . scripts/lib/configure-preset.sh
  klms_forget_other_generator "$build"
fi
cmake -S . -B "$build" "${cmake_args[@]}" >"$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 1; }
rm -f "$build.configure.log"
# The build must really use that OpenSSL: its headers and its libcrypto.
found=$(sed -n 's/^OPENSSL_CRYPTO_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt")
if [[ -n "$prefix" && "$found" != "$prefix"/* ]]; then
  echo "error: CMake found libcrypto at $found, not under $prefix" >&2; exit 1
fi
cmake --build "$build" -j "$jobs"

status=0
ctest --test-dir "$build" -j "$jobs" --output-on-failure --output-junit Testing/klms-junit.xml ${KLMS_CTEST_ARGS:-} | tee "$build/ctest.out" || status=$?
log="$build/Testing/Temporary/LastTest.log"
passed=$(grep -Eo '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$build/ctest.out" | tail -1)
total=$(sed -E 's/.* out of ([0-9]+)/\1/' <<<"$passed")
failed=$(sed -E 's/.* ([0-9]+) tests failed.*/\1/' <<<"$passed")
prove_tests=$(grep -Eo '^Files=[0-9]+, Tests=[0-9]+' "$log" | awk -F'Tests=' '{s += $2} END {print s + 0}')
prove_files=$(grep -Ec '^Files=[0-9]+, Tests=[0-9]+' "$log" || true)
prove_fail=$(grep -Ec '^Result: FAIL' "$log" || true)
wall=$(( $(date +%s) - start ))
summary="openssl $(awk '{print $2}' <<<"$full_version") $lms_state: ctest $((total - failed))/$total passed, prove $prove_tests tests in $prove_files files ($([[ $prove_fail == 0 ]] && echo ok || echo "$prove_fail FAILED")), wall ${wall} s"
echo "$summary" | tee "$build/summary.txt"
exit "$status"
