#!/usr/bin/env bash
# Opt-in baseline (never run by CI or scripts/test.sh): XMSS key generation of klms's engine against
# three independent implementations in the same run, whole processes, interleaved:
#   klms        BUILD_DIR/test/klms-xmss-tool keygen SET random ... 1   (one thread) and ... 2
#   reference   REF_UI/xmss_keypair_fast SET (xmssmt_keypair_fast for XMSSMT- sets): github
#               XMSS/xmss-reference's fast variant (BDS), built as test/data/SOURCES.md says; not
#               in the tree, its ui/ directory given here
#   Botan 2     botan keygen --algo=XMSS --params=SET (Debian 12's botan, 2.19; XMSS only)
#   BouncyCastle java XmssInterop sign SCHEME CODE MSG OUT 0 (test/support/XmssInterop.java over
#               Debian 12's libbcprov-java 1.72: a fresh key and its first signature; the JVM's
#               start, about 0.5 CPU-s, is in the figure)
# each pinned to one core (taskset -c CPU) and, for klms with 2 threads and Botan, on every core.
# The figure is CPU time (perf stat's task-clock, all threads): on a shared, loaded machine wall time
# measures the neighbours. Prints one line per run and the medians.
#
#   bench/baseline/xmss-baseline.sh REF_UI SET [RUNS] [BUILD_DIR] [CPU]
#   e.g. bench/baseline/xmss-baseline.sh /path/to/xmss-reference/ui XMSS-SHA2_10_256 5
# KLMS_XMSS_BASELINE_SKIP="botan bc" leaves implementations out (for sets they lack or that take long).
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ $# -ge 2 ]] || { sed -n '2,19p' "$0"; exit 2; }
ref_ui=$1 set=$2 runs=${3:-5} build=${4:-build/release} cpu=${5:-1}
tool=$build/test/klms-xmss-tool
[[ -x $tool ]] || { echo "xmss-baseline: build $tool first (cmake --build $build --target klms-xmss-tool)" >&2; exit 2; }
skip=" ${KLMS_XMSS_BASELINE_SKIP:-} "
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

scheme=XMSS ref_prog=xmss_keypair_fast
if [[ $set == XMSSMT-* ]]; then scheme=XMSSMT ref_prog=xmssmt_keypair_fast; fi
# BouncyCastle takes the registry code (RFC 8391 §5.3 / §5.4 for the SHA-256 sets it has).
bc_code=
case $set in
  XMSS-SHA2_10_256) bc_code=1 ;; XMSS-SHA2_16_256) bc_code=2 ;; XMSS-SHA2_20_256) bc_code=3 ;;
  XMSSMT-SHA2_20/2_256) bc_code=1 ;; XMSSMT-SHA2_20/4_256) bc_code=2 ;; XMSSMT-SHA2_40/2_256) bc_code=3 ;;
  XMSSMT-SHA2_40/4_256) bc_code=4 ;; XMSSMT-SHA2_40/8_256) bc_code=5 ;;
esac
bc_classes=$work/bc
if [[ $skip != *" bc "* && -n $bc_code ]]; then
  mkdir -p "$bc_classes"
  javac -d "$bc_classes" -cp /usr/share/java/bcprov.jar test/support/XmssInterop.java
fi
printf 'klms xmss baseline' > "$work/msg"

declare -A samples
run() {  # run NAME COMMAND...: one timed process, CPU seconds (perf stat's task-clock) into samples[NAME]
  local name=$1
  shift
  local start end cpu_ms
  start=$(date +%s.%N)
  cpu_ms=$(perf stat -x, -e task-clock -o "$work/perf" "$@" > /dev/null 2>&1 && awk -F, '/task-clock/ {print $1}' "$work/perf")
  end=$(date +%s.%N)
  local cpu_s wall_s
  cpu_s=$(awk -v ms="$cpu_ms" 'BEGIN {printf "%.3f", ms / 1000}')
  wall_s=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}')
  samples[$name]+="$cpu_s "
  printf '%-22s cpu %9.3f s  wall %8.2f s\n' "$name" "$cpu_s" "$wall_s"
}

echo "xmss-baseline: $set, $runs runs each, CPU $cpu for the one-core runs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < runs; r++)); do
  run "klms-1-thread" taskset -c "$cpu" "$tool" keygen "$set" random "$work/k.pub" "$work/k.key" 1
  run "klms-2-threads" "$tool" keygen "$set" random "$work/k.pub" "$work/k.key" 2
  [[ $skip == *" reference "* ]] || run "reference-fast" taskset -c "$cpu" sh -c "'$ref_ui/$ref_prog' '$set' > '$work/ref.kp'"
  if [[ $skip != *" botan "* && $scheme == XMSS ]]; then
    run "botan2-1-core" taskset -c "$cpu" botan keygen --algo=XMSS "--params=$set" "--output=$work/b.pem"
    run "botan2-all-cores" botan keygen --algo=XMSS "--params=$set" "--output=$work/b.pem"
  fi
  if [[ $skip != *" bc "* && -n $bc_code ]]; then
    run "bouncycastle-1-core" taskset -c "$cpu" java -cp "/usr/share/java/bcprov.jar:$bc_classes" XmssInterop sign \
      "$scheme" "$bc_code" "$work/msg" "$work/bc" 0
  fi
done
echo "medians (CPU seconds) after $runs runs; load now: $(cut -d' ' -f1-3 /proc/loadavg)"
for name in "${!samples[@]}"; do
  median=$(tr ' ' '\n' <<< "${samples[$name]}" | grep . | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
  printf '  %-22s %8.3f   (%s)\n' "$name" "$median" "${samples[$name]% }"
done | sort
