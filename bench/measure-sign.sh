#!/usr/bin/env bash
# The end-to-end signing figure: `openssl pkeyutl -sign -rawin` of a 1 MiB file with an LMS_SHA256_M32_H20 /
# LMOTS_SHA256_N32_W4 key (L = 1, tree cache present), timed end to end -- process start, provider
# load, key decoding, state-file reservation (one fsync'd write) and the signature -- N times.
# Prints median/p10/p90 in ms and PASS/FAIL against 50 ms.
#
#   bench/measure-sign.sh [--dir DIR] [--runs N] [--limit-ms MS] [--build-dir DIR] [--no-build]
#
# The key is generated once into DIR (default: ${TMPDIR:-/tmp}/klms-measure-sign-$UID, mode 0700)
# and reused while its key, state and cache files are all there. Generating an H20 key hashes about
# 1.1 billion times: seconds to minutes. Key generation is NOT part of the figure.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir="${TMPDIR:-/tmp}/klms-measure-sign-$(id -u)"
runs=21
limit_ms=50
build_dir="$root/build/release"
build=1
while (( $# > 0 )); do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --dir=*) dir="${1#*=}"; shift ;;
    --runs) runs="$2"; shift 2 ;;
    --runs=*) runs="${1#*=}"; shift ;;
    --limit-ms) limit_ms="$2"; shift 2 ;;
    --limit-ms=*) limit_ms="${1#*=}"; shift ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --build-dir=*) build_dir="${1#*=}"; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "measure-sign: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "measure-sign: --runs needs a positive number" >&2; exit 2; }
build_dir=$(mkdir -p "$build_dir" && cd "$build_dir" && pwd)

if (( build )); then
  if [[ "$build_dir" == "$root/build/release" ]]; then
    cmake --preset release -S "$root" >/dev/null
  else
    cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build_dir" -j "$(nproc 2>/dev/null || echo 2)" --target klms >/dev/null
fi
[[ -f "$build_dir/provider/klms.so" ]] || { echo "measure-sign: no $build_dir/provider/klms.so (build first)" >&2; exit 1; }

export OPENSSL_CONF="$root/conf/klms.cnf" OPENSSL_MODULES="$build_dir/provider"
mkdir -p "$dir"
chmod 700 "$dir"  # the state store refuses directories others can write to
dir=$(cd "$dir" && pwd)
key="$dir/h20-key.pem" state="$dir/h20.state" message="$dir/message-1MiB.bin" signature="$dir/message.sig"

# The same random 1 MiB every time this directory is used.
[[ -f "$message" ]] || head -c 1048576 /dev/urandom > "$message"

if [[ -f "$key" && -f "$state" && -f "$state.cache" ]]; then
  echo "reusing the H20 key in $dir (key generation is not part of the figure)"
else
  rm -f "$key" "$state" "$state.cache"
  echo "generating an LMS_SHA256_M32_H20 / LMOTS_SHA256_N32_W4 key in $dir"
  echo "(2^20 leaves, about 1.1e9 hashes: seconds to minutes; key generation is NOT part of the figure)"
  start=$EPOCHREALTIME
  openssl genpkey -algorithm HSS-LMS -pkeyopt lms:LMS_SHA256_M32_H20 -pkeyopt ots:LMOTS_SHA256_N32_W4 \
    -pkeyopt state-file:"$state" -out "$key"
  echo "key generated in $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
fi

# One untimed signature first: page cache warm, and the signer has checked the cache file once.
openssl pkeyutl -sign -rawin -inkey "$key" -in "$message" -out "$signature"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
times=()
printf 'timing %d runs of: openssl pkeyutl -sign -rawin -inkey %s -in %s -out %s\n' "$runs" \
  "${key##*/}" "${message##*/}" "${signature##*/}"
for (( i = 1; i <= runs; i++ )); do
  start=$EPOCHREALTIME
  openssl pkeyutl -sign -rawin -inkey "$key" -in "$message" -out "$signature"
  end=$EPOCHREALTIME
  times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) * 1000 }')")
  printf '\r  run %d/%d: %s ms   ' "$i" "$runs" "${times[-1]}"
done
printf '\n'
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# The last signature must verify (a fast failure would otherwise look like a pass).
openssl pkey -in "$key" -pubout -out "$dir/h20-pub.pem"
openssl pkeyutl -verify -rawin -pubin -inkey "$dir/h20-pub.pem" -in "$message" -sigfile "$signature" >/dev/null

# Reference: the same openssl start-up and 1 MiB read, hashing with SHA-256 instead of signing.
ref=()
for (( i = 1; i <= runs; i++ )); do
  start=$EPOCHREALTIME
  openssl dgst -sha256 -out /dev/null "$message"
  end=$EPOCHREALTIME
  ref+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) * 1000 }')")
done

stats() {  # median p10 p90 min max of the arguments (linear interpolation between order statistics)
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
    function pct(p,   pos, lo, f) { pos = 1 + p * (NR - 1); lo = int(pos); f = pos - lo;
                                    return lo < NR ? v[lo] + f * (v[lo + 1] - v[lo]) : v[NR] }
    END { printf "%.2f %.2f %.2f %.2f %.2f", pct(0.5), pct(0.1), pct(0.9), v[1], v[NR] }'
}
read -r median p10 p90 min max <<< "$(stats "${times[@]}")"
read -r rmedian rp10 rp90 _ _ <<< "$(stats "${ref[@]}")"
verdict=$(awk -v m="$median" -v l="$limit_ms" 'BEGIN { print (m <= l) ? "PASS" : "FAIL" }')

cat <<EOF
openssl pkeyutl -sign -rawin, 1 MiB, LMS_SHA256_M32_H20/LMOTS_SHA256_N32_W4, L=1, cache file present
  runs:    $runs (end to end: process start, provider load, state write and signature included;
           key generation not included)
  median:  $median ms    p10: $p10 ms    p90: $p90 ms    (min $min, max $max)
  limit:   $limit_ms ms -> $verdict
  reference, openssl dgst -sha256 of the same file: median $rmedian ms (p10 $rp10, p90 $rp90)
  load average before/after: $load_before / $load_after
  $(openssl version)
EOF
[[ "$verdict" == PASS ]]
