#!/usr/bin/env bash
# clang-tidy (.clang-tidy: bugprone-*, performance-*, a few cert-/misc- checks) over the project's
# own code: every .cpp of provider/, lms/, state/, stateful/, base/, tools/ and witness/ and their headers, with the
# compile commands of the release build (build/release/compile_commands.json, configured here when
# missing). Warnings are errors: exit status non-zero on any finding.
#   scripts/clang-tidy.sh            all of it, -j$(nproc)
#   scripts/clang-tidy.sh FILE...    only these sources
# Environment: KLMS_TIDY_JOBS (default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=build/release
tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
runner=$(command -v run-clang-tidy-14 || command -v run-clang-tidy || true)
if [[ -z "$tidy" || -z "$runner" ]]; then
  echo "error: clang-tidy not installed (scripts/install-deps.sh installs clang-tidy)" >&2
  exit 1
fi
if [[ ! -f "$build/compile_commands.json" ]]; then
  . scripts/lib/configure-preset.sh
  klms_configure_preset release  # the preset exports compile commands
fi
jobs=${KLMS_TIDY_JOBS:-$(nproc 2>/dev/null || echo 2)}
if (( $# > 0 )); then
  files=()
  for f in "$@"; do files+=("$(realpath "$f")"); done
else
  files=("$root/(provider|pkcs11|lms|state|stateful|base|tools|witness|xmss)/.*\\.cpp\$")
fi
start=$(date +%s)
log=$(mktemp)
keys=$(mktemp)
trap 'rm -f "$log" "$keys"' EXIT
# The whole run remembers the files it found clean (scripts/lib/tidy-cache.pl): a file whose
# compile command, preprocessed text, clang-tidy and .clang-tidy are unchanged is not checked
# again. KLMS_TIDY_CACHE=off checks everything.
cache=${KLMS_TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/klms-tidy}
cached=0
if (( $# == 0 )) && [[ "$cache" != off ]]; then
  perl scripts/lib/tidy-cache.pl keys "$root" "$build" "${files[0]}" "$jobs" "$tidy" > "$keys"
  mapfile -t stale < <(perl scripts/lib/tidy-cache.pl stale "$cache" < "$keys")
  cached=$(( $(wc -l < "$keys") - ${#stale[@]} ))
  files=()
  for f in "${stale[@]}"; do files+=("^$(sed 's/[.[\*^$()+?{|]/\\&/g' <<<"$f")\$"); done
fi
status=0
# -quiet: only findings; a file with a finding fails the run (WarningsAsErrors: '*').
if (( ${#files[@]} > 0 )); then
  "$runner" -clang-tidy-binary "$tidy" -p "$build" -j "$jobs" -quiet "${files[@]}" >"$log" 2>&1 || status=$?
fi
# Findings, without colours, the command lines and clang-tidy's per-file summaries.
sed -i 's/\x1b\[[0-9;]*m//g' "$log"
grep -vE '^([0-9]+ warnings? (and [0-9]+ errors? )?generated\.|Suppressed [0-9]+ warnings|Use -header-filter|Error while processing|[^ ]*clang-tidy[^ ]* .*-p=|$)' "$log" || true
count=$(grep -cE '(warning|error): .*\[[a-zA-Z0-9.,-]+\]$' "$log" || true)
echo "clang-tidy: $count findings, $(( $(date +%s) - start )) s (-j$jobs; ${#files[@]} files checked, $cached unchanged since a clean run: $cache)" >&2
if (( status != 0 || count != 0 )); then exit 1; fi
if [[ -s "$keys" ]]; then perl scripts/lib/tidy-cache.pl store "$cache" < "$keys"; fi
