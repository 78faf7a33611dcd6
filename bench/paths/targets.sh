#!/usr/bin/env bash
# The performance targets (docs/performance.md "Performance targets, measured"), measured in one
# run on this machine; prints a markdown table.
#   bench/paths/targets.sh [BUILD_DIR] [RUNS]      (default build/release, 21 runs per process figure)
# Process figures are CPU time (task-clock of perf stat, medians of RUNS runs, the commands
# interleaved run by run) because wall time on a shared 2-vCPU guest mostly measures the neighbours;
# key generation is also timed in wall seconds. Needs perf (Debian linux-perf) and openssl; key generation
# of an H15 and an H20 key (a few CPU-seconds, ~45 CPU-s for H20) in a temporary directory.
# Opt-in (not in CI): KLMS_TARGETS_H25=1 also generates an H25/W4 SHA-256 key (~14 CPU-minutes, about
# 7 minutes on 2 idle cores; run niced: KLMS_TARGETS_NICE, default 5) and reports its wall time, CPU
# time and peak RSS (/usr/bin/time -v), the cache file's size, and the first signature of a fresh
# process and the next one. The key lives in KLMS_TARGETS_H25_DIR (default: the temporary directory,
# which must be on a local disk with ~70 MiB free).
# Baseline (opt-in, built by bench/baseline/botan-baseline.sh, never by CI): when KLMS_BOTAN_PREFIX or the
# script's cache (${KLMS_BOTAN_CACHE:-~/.cache/klms-botan}/<version>/) has Botan 3's HSS-LMS built,
# H15/W4 key generation is timed against it (KLMS_TARGETS_BOTAN_RUNS interleaved runs of each
# process, default 5); Botan is an independent implementation, not the issue's reference (hash-sigs).
# Another OpenSSL: KLMS_TARGETS_OPENSSL=/path/to/bin/openssl with BUILD_DIR a build of the provider
# against it (scripts/test-openssl.sh makes build/openssl-<version>-<lms|nolms>), e.g.
#   KLMS_TARGETS_OPENSSL=~/.cache/klms-openssl/3.5.7-nolms/bin/openssl bench/paths/targets.sh build/openssl-3.5.7-nolms
# Rows whose benchmark binary that build lacks (KLMS_BUILD_BENCH=OFF) read "not built".
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$root/build/release}" && pwd)"
runs="${2:-21}"
command -v perf >/dev/null || { echo "perf not found (scripts/install-deps.sh --bench)" >&2; exit 2; }
ossl="${KLMS_TARGETS_OPENSSL:-$(command -v openssl || true)}"
[[ -x "$ossl" ]] || { echo "no openssl binary at '$ossl'" >&2; exit 2; }
openssl() { "$ossl" "$@"; }  # the untimed set-up commands; perf and time run "$ossl" themselves
export OPENSSL_MODULES="$build/provider"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
klms_conf="$root/conf/klms.cnf"
cat >default.cnf <<'CNF'
openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
[provider_sect]
default = default_sect
[default_sect]
activate = 1
CNF

# median of the numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END{if(NR==0){print "nan"} else if(NR%2){print a[(NR+1)/2]} else {print (a[NR/2]+a[NR/2+1])/2}}'; }

# one_run CONF CMD...: one run, prints its CPU time in ms
one_run() {
  local conf="$1"; shift
  OPENSSL_CONF="$conf" perf stat -x, -e task-clock -o perf.out "$@" >/dev/null 2>&1
  awk -F, '/task-clock/{print $1}' perf.out
}

declare -A cpu

echo "generating keys (H15/W4 and H20/W4, SHA-256) ..." >&2
keygen_h15_cpu=$( { OPENSSL_CONF="$klms_conf" perf stat -x, -e task-clock -o kg15.out \
  "$ossl" genpkey -algorithm HSS-LMS -pkeyopt height:15 -pkeyopt winternitz:4 -pkeyopt state-file:"$tmp/h15.state" \
  -out h15.pem >/dev/null 2>&1; awk -F, '/task-clock/{print $1}' kg15.out; } )
keygen_h15_wall=$( { OPENSSL_CONF="$klms_conf" /usr/bin/time -f %e "$ossl" genpkey -algorithm HSS-LMS -pkeyopt height:15 -pkeyopt winternitz:4 \
  -pkeyopt state-file:"$tmp/h15b.state" -out h15b.pem 2>&1 >/dev/null | tail -1; } 2>/dev/null || echo nan)
OPENSSL_CONF="$klms_conf" openssl genpkey -algorithm HSS-LMS -pkeyopt height:20 -pkeyopt winternitz:4 \
  -pkeyopt state-file:"$tmp/h20.state" -out h20.pem >/dev/null 2>&1
OPENSSL_CONF="$klms_conf" openssl pkey -in h15.pem -pubout -out h15.pub
head -c 1048576 /dev/urandom >m1
printf abc >m3
OPENSSL_CONF="$klms_conf" openssl pkeyutl -sign -rawin -inkey h15.pem -in m1 -out m1.sig
OPENSSL_CONF="$klms_conf" openssl pkeyutl -sign -rawin -inkey h15.pem -in m3 -out m3.sig

labels=(bare klms dgst dgst3 pub verify1m verify3 dgstverify sign1m sign3)
run_label() {
  case "$1" in
    bare) one_run default.cnf "$ossl" list -providers ;;
    klms) one_run "$klms_conf" "$ossl" list -providers ;;
    dgst) one_run "$klms_conf" "$ossl" dgst -sha256 m1 ;;
    dgst3) one_run "$klms_conf" "$ossl" dgst -sha256 m3 ;;
    pub) one_run "$klms_conf" "$ossl" pkey -pubin -in h15.pub -noout ;;
    verify1m) one_run "$klms_conf" "$ossl" pkeyutl -verify -rawin -pubin -inkey h15.pub -in m1 -sigfile m1.sig ;;
    verify3) one_run "$klms_conf" "$ossl" pkeyutl -verify -rawin -pubin -inkey h15.pub -in m3 -sigfile m3.sig ;;
    dgstverify) one_run "$klms_conf" "$ossl" dgst -verify h15.pub -signature m1.sig m1 ;;
    sign1m) one_run "$klms_conf" "$ossl" pkeyutl -sign -rawin -inkey h20.pem -in m1 -out s.sig ;;
    sign3) one_run "$klms_conf" "$ossl" pkeyutl -sign -rawin -inkey h20.pem -in m3 -out s.sig ;;
  esac
}
echo "timing $runs interleaved runs of each process ..." >&2
for ((i = 0; i < runs; ++i)); do
  for l in "${labels[@]}"; do run_label "$l" >>"$l.cpu"; done
done
for l in "${labels[@]}"; do cpu[$l]=$(median <"$l.cpu"); done

hb="$build/bench"
paths="(klms-path-bench not built)"
sha_chosen="not built"
lsh_avx2="not built"
lsh_avx2_msg="not built"
if [[ -x "$hb/klms-path-bench" ]]; then
  paths="$("$hb/klms-path-bench" --reps 11)"
  sha_chosen="$(awk '/^sha256-hw hash_many/{f=1} f && /<- chosen/{print $(NF-3); exit}' <<<"$paths") ns"
fi
# LSH-256 on AVX2 (what an AVX2-only CPU runs): the message lanes (the path table's AVX2 choice) and
# the 8 word-sliced lanes, in the same run.
if [[ -x "$hb/klms-hash-bench" ]]; then
  lsh_isa="$("$hb/klms-hash-bench" --benchmark_filter='^lsh256-isa/avx2(msg-x4|-x8)/hash_many/55/67$' \
    --benchmark_repetitions=5 --benchmark_min_time=0.05 --benchmark_report_aggregates_only=true 2>/dev/null)"
  lsh_median() {
    awk -v n="$1" '$1 ~ "^lsh256-isa/" n "/hash_many/55/67_median$" {for(i=1;i<=NF;i++) if($i ~ /^ns\/msg=/){sub("ns/msg=","",$i); print $i}}' <<<"$lsh_isa"
  }
  lsh_avx2_msg="$(lsh_median avx2msg-x4)"
  lsh_avx2="$(lsh_median avx2-x8)"
fi
# Botan baseline: the newest complete build in the cache unless KLMS_BOTAN_PREFIX names one.
botan_bin=""
if [[ -n "${KLMS_BOTAN_PREFIX:-}" ]]; then
  [[ -x "$KLMS_BOTAN_PREFIX/bin/klms-botan-hss-lms" ]] && botan_bin="$KLMS_BOTAN_PREFIX/bin/klms-botan-hss-lms"
else
  for p in $(ls -d "${KLMS_BOTAN_CACHE:-$HOME/.cache/klms-botan}"/3.* 2>/dev/null | sort -V -r); do
    if [[ -f "$p/.complete" && -x "$p/bin/klms-botan-hss-lms" ]]; then botan_bin="$p/bin/klms-botan-hss-lms"; break; fi
  done
fi
botan_row="| H15/W4 keygen vs Botan 3.x HSS-LMS | baseline not built: bench/baseline/botan-baseline.sh (opt-in; then rerun, or set KLMS_BOTAN_PREFIX) | ≤ 0.4× the reference implementation |"
if [[ -n "$botan_bin" ]]; then
  botan_ver=$("$botan_bin" version)
  botan_runs="${KLMS_TARGETS_BOTAN_RUNS:-5}"
  echo "timing $botan_runs interleaved H15/W4 key generations of the provider and Botan $botan_ver ..." >&2
  # kg_run LABEL CMD...: appends CPU ms (task-clock) to LABEL.cpu and wall ms to LABEL.wall
  kg_run() {
    local label="$1" t0 t1; shift
    t0=$(date +%s%N)
    perf stat -x, -e task-clock -o "$label.perf" "$@" >/dev/null 2>"$label.err" || { echo "targets: $label failed: $* ($(tail -1 "$label.err"))" >&2; exit 1; }
    t1=$(date +%s%N)
    awk -F, '/task-clock/{print $1}' "$label.perf" >>"$label.cpu"
    awk -v a="$t0" -v b="$t1" 'BEGIN{print (b - a) / 1e6}' >>"$label.wall"
  }
  for ((i = 0; i < botan_runs; ++i)); do
    OPENSSL_CONF="$klms_conf" kg_run kgo "$ossl" genpkey -algorithm HSS-LMS -pkeyopt height:15 -pkeyopt winternitz:4 \
      -pkeyopt state-file:"$tmp/kgo$i.state" -out "kgo$i.pem"
    kg_run kgb "$botan_bin" keygen "SHA-256,HW(15,4)" "kgb$i.priv" "kgb$i.pub"
    rm -f "$tmp/kgo$i.state" "$tmp/kgo$i.state.cache" "kgo$i.pem" "kgb$i.priv" "kgb$i.pub"
  done
  kgo_w=$(median <kgo.wall); kgb_w=$(median <kgb.wall); kgo_c=$(median <kgo.cpu); kgb_c=$(median <kgb.cpu)
  botan_row=$(awk -v ow="$kgo_w" -v bw="$kgb_w" -v oc="$kgo_c" -v bc="$kgb_c" -v v="$botan_ver" -v n="$botan_runs" 'BEGIN{
    printf "| H15/W4 keygen vs Botan %s HSS-LMS (wall; provider 2 threads, Botan single-threaded; medians of %d interleaved processes) | %.2f / %.2f s = %.2f× wall; CPU %.2f / %.2f s = %.2f× | ≤ 0.4× the reference implementation (Botan stands in for hash-sigs) |",
      v, n, ow / 1000, bw / 1000, ow / bw, oc / 1000, bc / 1000, oc / bc }')
fi

h25_rows=()
if [[ "${KLMS_TARGETS_H25:-0}" == 1 ]]; then
  command -v /usr/bin/time >/dev/null || { echo "/usr/bin/time not found (Debian package time)" >&2; exit 2; }
  h25_dir="${KLMS_TARGETS_H25_DIR:-$tmp}"
  echo "generating an H25/W4 key in $h25_dir (nice ${KLMS_TARGETS_NICE:-5}; minutes) ..." >&2
  OPENSSL_CONF="$klms_conf" nice -n "${KLMS_TARGETS_NICE:-5}" /usr/bin/time -v -o kg25.time "$ossl" genpkey \
    -algorithm HSS-LMS -pkeyopt height:25 -pkeyopt winternitz:4 -pkeyopt state-file:"$h25_dir/h25.state" \
    -out "$h25_dir/h25.pem" >/dev/null 2>&1
  kg25_wall=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' kg25.time)
  kg25_cpu=$(awk -F': ' '/User time/{u=$2} /System time/{s=$2} END{printf "%.1f", u + s}' kg25.time)
  kg25_rss=$(awk -F': ' '/Maximum resident set size/{printf "%.0f", $2 / 1024}' kg25.time)
  cache25=$(stat -c %s "$h25_dir/h25.state.cache")
  # /usr/bin/time's elapsed time has 10 ms steps: wall from date +%s%N, CPU from perf, RSS from time.
  sign25() {
    local t0 t1
    t0=$(date +%s%N)
    OPENSSL_CONF="$klms_conf" /usr/bin/time -f '%M' -o sign25.time perf stat -x, -e task-clock -o sign25.perf \
      "$ossl" pkeyutl -sign -rawin -inkey "$h25_dir/h25.pem" -in m3 -out "$h25_dir/h25-$1.sig" >/dev/null 2>&1
    t1=$(date +%s%N)
    awk -F, -v a="$t0" -v b="$t1" -v rss="$(tail -1 sign25.time)" '/task-clock/{c=$1}
      END{printf "%.1f ms wall, %.1f ms CPU, %.0f MiB peak RSS", (b - a) / 1e6, c, rss / 1024}' sign25.perf
  }
  first25=$(sign25 1)
  second25=$(sign25 2)
  OPENSSL_CONF="$klms_conf" openssl pkey -in "$h25_dir/h25.pem" -pubout -out h25.pub
  OPENSSL_CONF="$klms_conf" openssl pkeyutl -verify -rawin -pubin -inkey h25.pub -in m3 -sigfile "$h25_dir/h25-2.sig" >/dev/null
  h25_rows+=("| H25/W4 keygen, 2 threads (openssl genpkey, /usr/bin/time -v, nice ${KLMS_TARGETS_NICE:-5}) | ${kg25_wall} wall, ${kg25_cpu} CPU-s, peak RSS ${kg25_rss} MiB, cache $(awk -v b="$cache25" 'BEGIN{printf "%.2f MiB (%d B)", b / 1048576, b}') | ≤ 6 min, RSS ≤ 256 MiB, cache ≤ 64 MiB |")
  h25_rows+=("| H25/W4 first signature of a fresh process / the next one (pkeyutl -sign -rawin, 3 B) | ${first25} / ${second25} | — |")
fi

r() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a / b}'; }
d() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%+.2f", a - b}'; }
cpu_name=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)
echo
echo "CPU: $cpu_name ($(nproc) vCPUs), load average at end: $(cut -d' ' -f1-3 /proc/loadavg); $("$ossl" version)"
echo
echo "| figure | measured | target |"
echo "|---|---|---|"
echo "| sha256-hw hash_many of 67 × 55 B, per message (klms-path-bench, chosen path) | $sha_chosen | ≤ 19 ns on Zen 4 |"
echo "| H15/W4 keygen, 2 threads (openssl genpkey, CPU time / wall) | ${keygen_h15_cpu} ms CPU / ${keygen_h15_wall} s wall | ≤ 0.4× the reference implementation |"
echo "$botan_row"
echo "| provider load over bare \`openssl list -providers\` (CPU ms, medians) | ${cpu[klms]} vs ${cpu[bare]}: $(d "${cpu[klms]}" "${cpu[bare]}") ms | ≤ +0.5 ms |"
echo "| \`pkeyutl -verify -rawin\` 1 MiB vs \`openssl dgst -sha256\` of it (CPU ms) | ${cpu[verify1m]} / ${cpu[dgst]} = $(r "${cpu[verify1m]}" "${cpu[dgst]}")× (3-byte message: ${cpu[verify3]}; dgst -verify: ${cpu[dgstverify]}) | ≤ 1.1× |"
echo "| \`pkeyutl -sign -rawin\` 1 MiB (H20/W4) vs \`openssl dgst -sha256\` (CPU ms) | ${cpu[sign1m]} / ${cpu[dgst]} = $(r "${cpu[sign1m]}" "${cpu[dgst]}")× (3-byte message: ${cpu[sign3]}) | ≤ 1.1× |"
echo "| fixed costs (CPU ms): \`dgst -sha256\` of 3 bytes / reading the public key (\`pkey -pubin -noout\`) / verifying 3 bytes / signing 3 bytes | ${cpu[dgst3]} / ${cpu[pub]} / ${cpu[verify3]} / ${cpu[sign3]} | — |"
echo "| LSH-256 AVX2 per 55-byte message, hash_many of 67 (lsh256-isa/avx2msg-x4: message lanes, chosen without AVX-512; avx2-x8: word-sliced lanes) | ${lsh_avx2_msg} (avx2-x8 ${lsh_avx2}) | ≤ 60 ns |"
for row in "${h25_rows[@]}"; do echo "$row"; done
echo
echo "klms-path-bench:"
echo "$paths"
