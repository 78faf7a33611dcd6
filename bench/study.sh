#!/usr/bin/env bash
# The K-LMS study, from build to report: builds in Release, runs the hash-level benchmark
# (klms-hash-bench) and the scheme-level one (klms-bench) over the eight hash backends, and writes a
# report directory with report.md, the CSV files behind it, and PNG plots (gnuplot).
#
#   bench/study.sh [--quick] [--out DIR] [options]
#
#   --quick          a few minutes on 2 cores: h in {5,10} (Tandem-DM backends at h = 5 only)
#   (default: full)  h in {5,10,15} for every backend, h = 20 for the fastest ones; prints its
#                    estimated duration first and shows progress
#   --out DIR        report directory (default ./report)
#   --build-dir DIR  build here instead of the release preset's build/release
#   --no-build       use the binaries already in the build directory
#   --wait-load X    before measuring, wait (up to 15 min) until the 1-minute load average is below X
#   --measure-sign   also run bench/measure-sign.sh (the end-to-end H20 signing figure)
#   --smoke          plumbing check for CTest: smallest parameter set, few repetitions, seconds
#
# Installs what is missing first (scripts/install-deps.sh --bench: gnuplot-nox for the plots) unless
# --no-build; without gnuplot the report is written without plots.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
mode=full
out=report
build_dir=""
build=1
wait_load=""
measure_sign=0
invocation="bench/study.sh $*"
while (( $# > 0 )); do
  case "$1" in
    --quick) mode=quick; shift ;;
    --smoke) mode=smoke; shift ;;
    --full) mode=full; shift ;;
    --out) out="$2"; shift 2 ;;
    --out=*) out="${1#*=}"; shift ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    --build-dir=*) build_dir="${1#*=}"; shift ;;
    --no-build) build=0; shift ;;
    --wait-load) wait_load="$2"; shift 2 ;;
    --wait-load=*) wait_load="${1#*=}"; shift ;;
    --measure-sign) measure_sign=1; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "study.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
step_no=0
step_total=0
started=$SECONDS
step() {  # progress across the whole study: step k of n, elapsed time
  step_no=$((step_no + 1))
  log "step $step_no/$step_total ($(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s): $*"
}

# --- Set-up and build ---------------------------------------------------------------------------
if [[ -z "$build_dir" ]]; then build_dir="$root/build/release"; fi
if (( build )); then
  # What the build and the plots need (Google Benchmark, gnuplot); installs only what is missing.
  "$root/scripts/install-deps.sh" --bench
  log "building (Release) in $build_dir"
  if [[ "$build_dir" == "$root/build/release" ]]; then
    (cd "$root" && cmake --preset release >/dev/null)
  else
    cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build_dir" -j "$(nproc 2>/dev/null || echo 2)" --target klms-bench klms-hash-bench >/dev/null
fi
bench="$build_dir/bench/klms-bench"
hash_bench="$build_dir/bench/klms-hash-bench"
[[ -x "$bench" ]] || { echo "study.sh: $bench is missing (build first, or drop --no-build)" >&2; exit 1; }
[[ -x "$hash_bench" ]] || { log "klms-hash-bench missing (no Google Benchmark?): hash-level part skipped"; hash_bench=""; }

mkdir -p "$out/raw"
out=$(cd "$out" && pwd)
raw="$out/raw"
rm -f "$raw"/*.csv "$raw"/*.json "$out"/*.csv "$out"/*.png

# --- Parameters of each mode -------------------------------------------------------------------
tdm="tdm-cham,tdm-lea,tdm-aria"
fast_sw="sha256-portable,sha256-hw,lsh256-ref,lsh256-simd,shake256"
case "$mode" in
  smoke)
    sweep_sets=("all:5:4")       # backends:heights:winternitz
    default_h=5; default_h_tdm=5
    l2="--levels=2 --h=5 --lower-h=5 --w=4"
    # 40 signatures of an h = 5 key (32 leaves): the series must go on across a fresh key, as the
    # quick and full runs do (their batch once overran the tree and every h = 5 sign row was an error).
    reps=40; keygen_reps=1; warmup=0; default_reps=40
    hash_args=(--benchmark_min_time=0.0005 --benchmark_repetitions=1
               --benchmark_filter='backend/sha256-hw/hash_one/55|backend/lsh256-simd/digest/55|pitfall/cpuid|openssl/SHA256_Init-Update-Final/55')
    profile_w="4"; profile_h=5
    xmss_runs=("lsh256-simd:5:4:1:1")   # backends:heights:w:reps:keygen-reps
    xmss_secs=0
    xmss_sets="XMSSMT-SHA2_20/4_256"; xmss_set_reps=10; xmss_set_keygen_reps=1   # klms-bench --xmss
    ;;
  quick)
    sweep_sets=("$fast_sw:5,10:1,2,4,8" "$tdm:5:1,2,4,8")
    default_h=10; default_h_tdm=5
    l2="--levels=2 --h=5 --lower-h=5 --w=4"
    reps=100; keygen_reps=3; warmup=3; default_reps=300
    hash_args=(--benchmark_min_time=0.05 --benchmark_repetitions=5)
    hash_level_secs=50
    profile_w="1,2,4,8"; profile_h=10
    xmss_runs=("lsh256-simd:10:4,2,8:100:3" "lsh256-serial,sha256-hw:10:4:50:3")
    xmss_secs=60
    xmss_sets="XMSS-SHA2_10_256,XMSS-SHA2_10_192,XMSS-SHAKE256_10_256,XMSSMT-SHA2_20/4_256,K-XMSS-LSH256_10_256"
    xmss_set_reps=100; xmss_set_keygen_reps=3
    ;;
  full)
    sweep_sets=("all:5,10,15:1,2,4,8" "sha256-hw,lsh256-simd:20:1,2,4,8")
    default_h=10; default_h_tdm=10
    l2="--levels=2 --h=10 --lower-h=10 --w=4"
    reps=200; keygen_reps=5; warmup=3; default_reps=1000
    hash_args=(--benchmark_min_time=0.1 --benchmark_repetitions=10)
    hash_level_secs=240
    profile_w="1,2,4,8"; profile_h=10
    xmss_runs=("lsh256-simd:10,15:4,2,8:200:3" "lsh256-simd:20:4:100:1"
               "lsh256-serial,sha256-hw,shake256,tdm-cham,tdm-lea,tdm-aria:10:4:100:3")
    xmss_secs=600
    xmss_sets="XMSS-SHA2_10_256,XMSS-SHA2_16_256,XMSS-SHA2_10_192,XMSS-SHAKE256_10_256,XMSS-SHAKE256_10_192"
    xmss_sets+=",XMSSMT-SHA2_20/4_256,XMSSMT-SHA2_40/4_256,XMSSMT-SHA2_60/12_256,K-XMSS-LSH256_10_256,K-XMSS-TDMLEA_10_256"
    xmss_set_reps=200; xmss_set_keygen_reps=3
    ;;
esac
keygen_budget=120  # seconds of repetitions per key-generation series (at least one repetition)
common=(--warmup="$warmup" --keygen-budget="$keygen_budget" --message-bytes=1024 --no-table)
# hash level (2) + sweeps + default (2) + pitfall + shani + profile-w + L = 2 + hash costs + report
step_total=$(( 2 + ${#sweep_sets[@]} + 9 + ${#xmss_runs[@]} ))

# --- Estimated duration (full and quick): hashes x measured ns per hash -------------------------
estimate() {
  local costs="$raw/estimate-costs.csv"
  "$bench" --backend=all --hash-costs=55 --hash-cost-csv="$costs" --no-table >/dev/null
  perl -e '
    use POSIX qw(ceil);
    my ($costs, $cores, $reps, $budget, $hash_level, @sets) = @ARGV; my %ns;
    open my $f, "<", $costs or die; <$f>;
    while (<$f>) { chomp; my @c = split /,/; $ns{$c[0]} = $c[5] if $c[2] eq "many"; }
    my %p = (1 => 265, 2 => 133, 4 => 67, 8 => 34);
    # One keygen series as klms-bench runs it: a warm-up for h <= 10, then repetitions until
    # --keygen-reps or the --keygen-budget is used up (at least one).
    my $series = sub {
      my ($t, $h, $n) = @_;
      my $within = ceil($budget / $t);   # >= 1: the budget is checked after each repetition
      return ($h <= 10 ? $t : 0) + $t * ($n < $within ? $n : $within);
    };
    my $total = 0;
    for my $set (@sets) {
      my ($b, $hs, $ws) = split /:/, $set;
      my @b = $b eq "all" ? keys %ns : split /,/, $b;
      for my $backend (@b) { for my $h (split /,/, $hs) { for my $w (split /,/, $ws) {
        my $t1 = 2**$h * $p{$w} * 2**$w * $ns{$backend} * 1e-9;   # one single-thread key generation
        my $tn = $t1 / $cores;
        if ($h >= 20) { $total += 3 * $tn; next; }   # all cores only, one repetition; signing key; peak child
        $total += $series->($t1, $h, $reps) + $series->($tn, $h, $reps) + 2 * $tn;   # + signing key + peak child
      } } }
    }
    printf "%.0f\n", $total * 1.2 + $hash_level + 60;   # plus signing series, profiles, default set, L = 2
  ' "$costs" "$(nproc 2>/dev/null || echo 2)" "$keygen_reps" "$keygen_budget" "$((hash_level_secs + xmss_secs))" "${sweep_sets[@]}"
}

if [[ "$mode" != smoke ]]; then
  secs=$(estimate)
  log "mode $mode: estimated duration about $(( secs / 60 )) min $(( secs % 60 )) s on this machine (load now: $(cut -d' ' -f1-3 /proc/loadavg))"
fi

if [[ -n "$wait_load" ]]; then
  for (( i = 0; i < 90; i++ )); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    awk -v l="$load" -v x="$wait_load" 'BEGIN { exit !(l < x) }' && break
    (( i % 6 == 0 )) && log "load $load >= $wait_load, waiting"
    sleep 10
  done
fi

# --- Machine record ----------------------------------------------------------------------------
{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "mode=$mode"
  echo "invocation=$invocation"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "cores=$(nproc 2>/dev/null || echo '?')"
  flags=$(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2-)
  sel=""
  for f in sse2 ssse3 sse4_1 avx avx2 avx512f avx512vl sha_ni gfni vaes hypervisor; do
    [[ " $flags " == *" $f "* ]] && sel+="$f "
  done
  echo "cpu_flags=${sel% }"
  echo "hypervisor=$(lscpu 2>/dev/null | awk -F: '/Hypervisor vendor/ { gsub(/^ +/, "", $2); print $2 }')"
  echo "kernel=$(uname -sr)"
  cxx=$(awk -F= '/^CMAKE_CXX_COMPILER:/ { print $2 }' "$build_dir/CMakeCache.txt" 2>/dev/null || true)
  echo "compiler=$("${cxx:-c++}" --version 2>/dev/null | head -1)"
  echo "build_type=$(awk -F= '/^CMAKE_BUILD_TYPE:/ { print $2 }' "$build_dir/CMakeCache.txt" 2>/dev/null || true)"
  echo "openssl=$(openssl version 2>/dev/null || echo unknown)"
  echo "commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet 2>/dev/null || echo ' (working tree modified)')"
  echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  "$bench" --list-backends | awk -F'\t' '{ printf "backend_%s=%s\n", $1, $2 }'
} > "$out/machine.txt"

# --- Hash level --------------------------------------------------------------------------------
if [[ -n "$hash_bench" ]]; then
  step "hash level: klms-hash-bench (every backend, 55/47-byte one-shots, 16 KiB, hash_many, pitfall, OpenSSL)"
  "$hash_bench" "${hash_args[@]}" --benchmark_report_aggregates_only=true \
    --benchmark_out="$raw/hash.json" --benchmark_out_format=json >"$raw/hash-bench.txt" 2>&1
  # SHA-NI masked for OpenSSL: bit 29 of CPUID.7.0:EBX, in the second part of OPENSSL_ia32cap.
  filter='^openssl/'
  [[ "$mode" == smoke ]] && filter='^openssl/SHA256_Init-Update-Final/55/'
  step "hash level: OpenSSL SHA-256 again with OPENSSL_ia32cap=':~0x20000000' (SHA-NI masked)"
  masked_args=()
  for a in "${hash_args[@]}"; do [[ "$a" == --benchmark_filter=* ]] || masked_args+=("$a"); done
  OPENSSL_ia32cap=":~0x20000000" "$hash_bench" "${masked_args[@]}" --benchmark_filter="$filter" \
    --benchmark_report_aggregates_only=true --benchmark_out="$raw/hash-masked.json" --benchmark_out_format=json \
    >"$raw/hash-bench-masked.txt" 2>&1
fi

# --- Scheme level ------------------------------------------------------------------------------
# Rows of every run go into results.csv with a last column naming the run ("set").
run_set() {  # set-name, klms-bench arguments...
  local set="$1"; shift
  step "scheme level [$set]: klms-bench $*"
  "$bench" "${common[@]}" --csv="$raw/$set.csv" "$@"
}

i=0
for s in "${sweep_sets[@]}"; do
  IFS=: read -r backends heights ws <<< "$s"
  threads="1,all"; kr=$keygen_reps
  if [[ "$heights" == 20 ]]; then threads="all"; kr=1; fi
  run_set "sweep$i" --backend="$backends" --h="$heights" --w="$ws" --levels=1 --threads="$threads" \
    --ops=keygen,sign,verify,sizes,peak --reps="$reps" --keygen-reps="$kr"
  i=$((i + 1))
done

# The default parameter set (H10/W4; Tandem-DM at h = 5 in quick mode), every op, with the profile.
default_ops="keygen,keygen-tree,sign,sign+state,sign-cachefile,verify,sizes,peak,profile"
run_set default --backend="$fast_sw" --h="$default_h" --w=4 --threads=1,all --ops="$default_ops" \
  --reps="$default_reps" --keygen-reps="$keygen_reps" --profile-csv="$raw/profile-default.csv"
run_set default-tdm --backend="$tdm" --h="$default_h_tdm" --w=4 --threads=1,all --ops="$default_ops" \
  --reps="$default_reps" --keygen-reps="$keygen_reps" --profile-csv="$raw/profile-default-tdm.csv"

# Pitfall 1 inside LMS: the same LSH-256 with per-digest CPUID dispatch, one at a time, and lanes;
# and for the baseline question, sha256-hw restricted to SHA-NI (where the table picks lanes).
pit_reps=$(( reps < 30 ? reps : 30 ))
run_set pitfall --backend=lsh256-simd,lsh256-serial,lsh256-naive-dispatch --h="$default_h" --w=4 \
  --ops=sign,verify,profile --reps="$pit_reps" --profile-csv="$raw/profile-pitfall.csv"
run_set shani --backend=sha256-shani,sha256-hw,lsh256-simd,sha256-portable --h="$default_h" --w=4 \
  --ops=sign,verify --reps="$default_reps"

# How the share of one-block inputs moves with w (counting is cheap; one backend is enough: every
# n = 32 backend hashes exactly the same inputs).
# (The set is not named profile-w: klms-bench would write its rows and the profile to one file.)
run_set w-profile --backend=sha256-hw --h="$profile_h" --w="$profile_w" --ops=profile --reps=16 \
  --profile-csv="$raw/profile-w.csv"

# One L = 2 configuration.
# shellcheck disable=SC2086
run_set l2 --backend=all $l2 --threads=all --ops=keygen,prepare-lower,sign,verify,sizes,peak \
  --reps="$reps" --keygen-reps="$keygen_reps"

# K-LMS vs K-XMSS (docs/xmss.md): both schemes on the same backend, the same hash functions and the
# same many-message calls (lsh256-serial: the one-message series of the same LSH-256 code); LMS W
# against XMSS w = 2^W (W4 = w16: the same 4-bit digits). Trees on one thread, in memory.
xmss_i=0
for s in "${xmss_runs[@]}"; do
  IFS=: read -r backends heights ws xreps xkreps <<< "$s"
  step "K-LMS vs K-XMSS [xmss$xmss_i]: klms-bench --xmss-compare --backend=$backends --h=$heights --w=$ws"
  "$bench" --xmss-compare --backend="$backends" --h="$heights" --w="$ws" --reps="$xreps" --keygen-reps="$xkreps" \
    --warmup="$warmup" --keygen-budget="$keygen_budget" --message-bytes=1024 --no-table \
    --csv="$raw/xmss$xmss_i.csv" --profile-csv="$raw/xmss-profile$xmss_i.csv"
  xmss_i=$((xmss_i + 1))
done

# The XMSS engine on named sets (bench/study/xmss_sets.h): key generation on 1 and all threads, sign,
# verify, CPU ns per SHA-256 compression of key generation.
step "XMSS sets: klms-bench --xmss=$xmss_sets"
"$bench" --xmss="$xmss_sets" --threads=1,0 --reps="$xmss_set_reps" --keygen-reps="$xmss_set_keygen_reps" \
  --warmup="$warmup" --keygen-budget="$keygen_budget" --message-bytes=1024 --no-table --csv="$out/xmss-sets.csv"

# One-shot cost of every backend at every input length the profiles saw (and 47, the n = 24 chain).
lengths=$(awk -F, 'FNR > 1 && $7 > 0 { print $7 }' "$raw"/profile-*.csv | sort -un | paste -sd, -)
lengths="47,${lengths}"
step "hash costs at input lengths $lengths"
"$bench" --backend=all --hash-costs="$lengths" --hash-cost-csv="$out/hash-costs.csv" --no-table

# --- Collect the CSVs --------------------------------------------------------------------------
merge() {  # output, files... : one header, a "set" column from each file's name
  local target="$1"; shift
  local first=1
  for f in "$@"; do
    [[ -f "$f" ]] || continue
    local set; set=$(basename "$f" .csv)
    if (( first )); then head -1 "$f" | sed 's/$/,set/' > "$target"; first=0; fi
    tail -n +2 "$f" | sed "s/\$/,$set/" >> "$target"
  done
}
merge "$out/results.csv" "$raw"/sweep*.csv "$raw/default.csv" "$raw/default-tdm.csv" "$raw/pitfall.csv" "$raw/shani.csv" \
  "$raw/l2.csv"
merge "$out/profile.csv" "$raw"/profile-default.csv "$raw"/profile-default-tdm.csv "$raw"/profile-pitfall.csv \
  "$raw"/profile-w.csv

merge "$out/xmss.csv" "$raw"/xmss[0-9]*.csv
merge "$out/xmss-profile.csv" "$raw"/xmss-profile[0-9]*.csv

if [[ -f "$raw/hash.json" ]]; then
  perl "$root/bench/study/hash_json_to_csv.pl" "$raw/hash.json" "$raw/hash-masked.json" > "$out/hash.csv"
fi

# --- Implementation size, counted from hashes/ -------------------------------------------------
"$root/bench/study/impl_size.sh" "$root/hashes" > "$out/impl-size.csv"

# --- The end-to-end signing figure (optional: H20 key generation takes a while) -------------------
if (( measure_sign )); then
  log "bench/measure-sign.sh"
  "$root/bench/measure-sign.sh" --build-dir "$build_dir" $( (( build )) || echo --no-build ) \
    | tee "$out/measure-sign.txt" || true
fi

echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.txt"

# --- Report and plots --------------------------------------------------------------------------
mkdir -p "$out/plot-data"
step "report.md and plots"
perl "$root/bench/study/report.pl" "$out"
if command -v gnuplot >/dev/null; then
  for gp in "$root"/bench/plots/*.gp; do
    gnuplot -e "datadir='$out/plot-data'; outdir='$out'" "$gp" 2>>"$raw/gnuplot.log" \
      || log "gnuplot failed on $(basename "$gp") (see raw/gnuplot.log)"
  done
  perl "$root/bench/study/report.pl" "$out"  # again, so that report.md shows the plots just made
else
  log "gnuplot not found: no plots (scripts/install-deps.sh --bench installs gnuplot-nox)"
fi
log "report: $out/report.md"
