#!/usr/bin/env bash
# CTest "bench_smoke": runs bench/study.sh --smoke on an existing build (smallest parameter set,
# one repetition; plots only if gnuplot is installed) and checks that the report directory has what
# the study promises: report.md with its sections, and results.csv with the study's columns.
#   bench/study/smoke_test.sh SOURCE_DIR BUILD_DIR OUT_DIR
set -euo pipefail
src="$1" build="$2" out="$3"
rm -rf "$out"
"$src/bench/study.sh" --smoke --no-build --build-dir "$build" --out "$out"

fail() { echo "bench smoke test: $*" >&2; exit 1; }
[[ -s "$out/report.md" ]] || fail "no report.md"
for section in '## Machine' "## The K-LMS paper's findings" '## Targets' '## Where the time goes' \
               '## Pitfalls, measured' '## Implementation size' '## K-LMS vs K-XMSS, identical LSH-256 code'; do
  grep -qF "$section" "$out/report.md" || fail "report.md lacks '$section'"
done
head -1 "$out/results.csv" | grep -q '^backend,op,lms_type,ots_type,levels,threads,median_us,p10_us,p90_us,peak_kib,bytes,' \
  || fail "results.csv does not start with the study's columns"
for b in sha256-portable sha256-hw lsh256-ref lsh256-simd tdm-cham tdm-lea tdm-aria shake256; do
  grep -q "^$b,sign,.*,sweep0\$" "$out/results.csv" || fail "no sign row for $b"
done
grep -q ',profile-default$' "$out/profile.csv" || fail "no hash-call profile"
# Every profile row starts with a backend's name (two writers on one file once interleaved bytes).
if tail -n +2 "$out/profile.csv" | grep -Ev '^(sha256|lsh256|tdm|shake256)-?[a-z0-9-]*,(keygen|sign|verify),'; then
  fail "profile.csv has the malformed rows above"
fi
grep -q ',profile-w$' "$out/profile.csv" || fail "no profile over w"
grep -q '^lsh256-naive-dispatch,sign,' "$out/results.csv" || fail "no naive-dispatch row"
# K-LMS vs K-XMSS: both schemes signed, verified and counted, and the findings row.
for scheme in LMS XMSS; do
  for op in keygen sign verify; do
    grep -Eq "^many-message,$scheme,.*,lsh256-simd,[^,]*,5,4,16,$op,1,[0-9.]+,.*,[0-9.]+,[0-9.]+,\"[^\"]*\",xmss0\$" "$out/xmss.csv" \
      || fail "no counted $scheme $op row in xmss.csv"
  done
done
! grep -q 'error:' "$out/xmss.csv" || fail "xmss.csv reports an error"
# The XMSS engine's rows of a named XMSS^MT set: key generation on 1 and all threads, sign, verify.
for row in keygen,1 keygen,0 sign,1 verify,1; do
  grep -Eq "^\"XMSSMT-SHA2_20/4_256\",sha256-[a-z]+,[^,]*,$row,[0-9]+,[0-9.]+," "$out/xmss-sets.csv" \
    || fail "no $row row in xmss-sets.csv"
done
# No measurement may be an error row (a study that silently drops a backend's sign rows reads fine).
if grep -l 'error:' "$out"/*.csv "$out"/raw/*.csv 2>/dev/null; then fail "error rows in the CSV files above"; fi
grep -q '^| K-LMS vs K-XMSS, identical LSH-256 code | 3.3–3.9× | keygen [0-9.]*×, sign [0-9.]*×, verify [0-9.]*×' "$out/report.md" \
  || fail "report.md lacks the K-LMS vs K-XMSS row with its ratios"
[[ -s "$out/impl-size.csv" && -s "$out/hash-costs.csv" ]] || fail "implementation size or hash costs missing"
if command -v gnuplot >/dev/null; then
  [[ -s "$out/latency-vs-h-sign.png" ]] || fail "gnuplot is installed but no plots were made"
fi
echo "bench smoke test: report in $out"
