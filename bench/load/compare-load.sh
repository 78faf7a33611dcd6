#!/usr/bin/env bash
# What loading klms.so costs, for several builds in one run (docs/install.md "Load cost and
# self-tests"): bench/load/compare-load.sh [-n ROUNDS] DIR... where each DIR holds a klms.so (e.g.
# build/release/provider and another worktree's). Each round runs, for every DIR in turn, one
# process timing dlopen(klms.so) and one timing OSSL_PROVIDER_load (bench/load/load_time.c), so a
# drift of the machine's speed hits every build alike; prints the medians and the ratio to the first.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=15
if [[ "${1:-}" == "-n" ]]; then rounds=$2; shift 2; fi
(( $# >= 1 )) || { echo "usage: $0 [-n ROUNDS] MODULE-DIR..." >&2; exit 2; }
probe=${KLMS_LOAD_TIME:-build/release/bench/klms-load-time}
[[ -x "$probe" ]] || { echo "$probe not built (cmake --build build/release --target klms-load-time)" >&2; exit 2; }
declare -A dl pl
for ((i = 0; i < rounds; i++)); do
  for d in "$@"; do
    dl[$d]+="$("$probe" "$d/klms.so") "
    pl[$d]+="$(OPENSSL_MODULES=$d "$probe" --provider) "
  done
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
first_dl=$(median <<<"${dl[$1]}"); first_pl=$(median <<<"${pl[$1]}")
echo "load: $(uptime | sed 's/.*load average: //'); CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $rounds rounds"
printf '%-60s %12s %8s %22s %8s\n' "module directory" "dlopen ms" "ratio" "OSSL_PROVIDER_load ms" "ratio"
for d in "$@"; do
  m=$(median <<<"${dl[$d]}"); p=$(median <<<"${pl[$d]}")
  printf '%-60s %12s %8s %22s %8s\n' "$d" "$m" "$(awk -v a="$m" -v b="$first_dl" 'BEGIN {printf "%.2f", a / b}')" \
    "$p" "$(awk -v a="$p" -v b="$first_pl" 'BEGIN {printf "%.2f", a / b}')"
done
