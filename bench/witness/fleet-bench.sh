#!/usr/bin/env bash
# What the etcd fleet witness costs and gives (docs/fleet.md "Cost"): signatures per second across
# 1, 4 and 8 hosts (state directories, each its own processes) of one etcd-witnessed key, as one-shot
# CLI signatures and as long-running signers (klms-state-driver: reserve 1, 16, 256), next to
# local-only signing (witness:none) in the same run, against a 3-member etcd cluster on loopback
# that this script starts in a private directory and stops. Medians of RUNS runs of each row.
# Then authentication on (etcd's users, the signers' role scoped to /klms/): the same rows with
# `etcd_user`, and, with BASELINE_BUILD (another build's directory: its klms.so, its etcd module,
# its klms-state-driver), the same rows with that build too, each run of the one next to a run of
# the other (a same-run ratio on a shared machine).
#   bench/witness/fleet-bench.sh [BUILD_DIR] [RUNS] [BASELINE_BUILD]
# FLEET_BENCH_ROWS=auth runs only the rows with authentication (no witness:none key, no rows
# without a user). The authenticated `reserve 1` rows take 128 indices per host, not 512: the
# baseline may pay a bcrypt check per reservation.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
runs="${2:-3}"
baseline="${3:-}"
[[ -z "$baseline" || "$baseline" = /* ]] || baseline="$PWD/$baseline"
command -v etcd >/dev/null || { echo "fleet-bench: etcd not installed (scripts/install-deps.sh)" >&2; exit 1; }
dir=$(mktemp -d)
chmod 700 "$dir"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT
base=$((20000 + RANDOM % 20000))
cluster=""
for i in 0 1 2; do cluster+="${cluster:+,}m$i=http://127.0.0.1:$((base + 10 + i))"; done
endpoints=""
for i in 0 1 2; do
  etcd --name "m$i" --data-dir "$dir/m$i" --listen-client-urls "http://127.0.0.1:$((base + i))" \
    --advertise-client-urls "http://127.0.0.1:$((base + i))" --listen-peer-urls "http://127.0.0.1:$((base + 10 + i))" \
    --initial-advertise-peer-urls "http://127.0.0.1:$((base + 10 + i))" --initial-cluster "$cluster" \
    --initial-cluster-token "bench-$$" --heartbeat-interval 50 --election-timeout 500 > "$dir/m$i.log" 2>&1 &
  pids+=($!)
  endpoints+="${endpoints:+,}http://127.0.0.1:$((base + i))"
done
for _ in $(seq 100); do ETCDCTL_API=3 etcdctl --endpoints "$endpoints" endpoint health >/dev/null 2>&1 && break; sleep 0.2; done
export KLMS_ETCD_ENDPOINTS="$endpoints" KLMS_ETCD_BLOCK=256 KLMS_WITNESS_DIR="$PWD/$build/witness"
export OPENSSL_MODULES="$PWD/$build/provider" OPENSSL_CONF="$PWD/conf/klms.cnf"
driver="$PWD/$build/test/klms-state-driver"
[[ -x "$driver" ]] || driver=$(find "$PWD/$build" -name klms-state-driver -type f | head -1)
head -c 1024 /dev/urandom > "$dir/msg"
rows="${FLEET_BENCH_ROWS:-all}"
kinds="none etcd"
[[ $rows == auth ]] && kinds=etcd
for w in $kinds; do
  mkdir -m 700 "$dir/$w-1"
  openssl genpkey -algorithm HSS-LMS -pkeyopt lms:LMS_SHA256_M32_H20 -pkeyopt ots:LMOTS_SHA256_N32_W8 \
    -pkeyopt "state-file:$dir/$w-1/k.state" -pkeyopt "witness:$w" -out "$dir/$w.pem" 2>/dev/null
done
openssl pkey -in "$dir/etcd.pem" -pubout -out "$dir/etcd.pub"
for h in $(seq 2 8); do
  mkdir -m 700 "$dir/etcd-$h" "$dir/none-$h"
  "$build/tools/klms-state" join --tree-cache "$dir/etcd-1/k.state.cache" "$dir/etcd.pub" "$dir/etcd-$h/k.state" 2>/dev/null
done
key_id=$("$build/tools/klms-state" show --json "$dir/etcd-1/k.state" | sed -n 's/.*"key_id": "\([0-9a-f]*\)".*/\1/p')
key_id_none=""
[[ $rows == auth ]] || key_id_none=$("$build/tools/klms-state" show --json "$dir/none-1/k.state" | sed -n 's/.*"key_id": "\([0-9a-f]*\)".*/\1/p')
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# The driver of a build directory.
driver_of() { local d="$1/test/klms-state-driver"; [[ -x "$d" ]] || d=$(find "$1" -name klms-state-driver -type f | head -1); echo "$d"; }
now() { date +%s.%N; }
# hosts, signatures per host: CLI signatures per second over the fleet (witness etcd), or of one
# local state file signed by as many processes at once (witness none; the lock serializes them).
# $hostdir: the fleet hosts' directory prefix (etcd-<h>; base-<h> for the baseline build's hosts).
hostdir=etcd
cli_rate() {
  local w=$1 hosts=$2 per=$3 t0 t1
  t0=$(now)
  for h in $(seq 1 "$hosts"); do
    ( s="$dir/$w-1/k.state"; [[ $w == etcd ]] && s="$dir/$hostdir-$h/k.state"
      for i in $(seq 1 "$per"); do
        openssl pkeyutl -sign -rawin -inkey "$dir/$w.pem" -pkeyopt "state-file:$s" -in "$dir/msg" -out "$dir/sig-$w-$h" || exit 1
      done ) &
  done
  wait
  t1=$(now)
  echo "$hosts $per $t0 $t1" | awk '{printf "%.1f\n", $1 * $2 / ($4 - $3)}'
}
# Indices taken per second (every index a driver printed; a driver that failed counts what it got
# and its failure is reported on stderr).
driver_rate() {
  local w=$1 hosts=$2 reserve=$3 count=$4 t0 t1 id=$key_id taken
  [[ $w == none ]] && id=$key_id_none
  t0=$(now)
  for h in $(seq 1 "$hosts"); do
    s="$dir/$w-1/k.state"; [[ $w == etcd ]] && s="$dir/$hostdir-$h/k.state"
    "$driver" "$s" "$id" "$reserve" "$count" > "$dir/taken-$h" 2> "$dir/taken-$h.err" &
  done
  wait || true
  t1=$(now)
  taken=$(cat "$dir"/taken-[0-9]* | grep -c '^[0-9]' || true)
  for h in $(seq 1 "$hosts"); do [[ -s "$dir/taken-$h.err" ]] && sed "s/^/  host $h: /" "$dir/taken-$h.err" >&2; done
  rm -f "$dir"/taken-*
  echo "$taken $t0 $t1" | awk '{printf "%.0f\n", $1 / ($3 - $2)}'
}
echo "== fleet witness: signatures (or indices) per second; medians of $runs runs; $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ $rows != auth ]]; then
printf '%-44s %12s %12s\n' "row" "etcd" "local (none)"
for hosts in 1 4 8; do
  e=$(for _ in $(seq "$runs"); do cli_rate etcd "$hosts" 5; done | median)
  n=$(for _ in $(seq "$runs"); do cli_rate none "$hosts" 5; done | median)
  printf '%-44s %12s %12s\n' "CLI signatures/s, $hosts host(s) x 5" "$e" "$n"
done
for reserve in 1 16 256; do
  for hosts in 1 4 8; do
    e=$(for _ in $(seq "$runs"); do driver_rate etcd "$hosts" "$reserve" 512; done | median)
    n=$(for _ in $(seq "$runs"); do driver_rate none "$hosts" "$reserve" 512; done | median)
    printf '%-44s %12s %12s\n' "reservations/s, reserve $reserve, $hosts host(s) x 512" "$e" "$n"
  done
done
fi
# Authentication (etcd_user): etcd's users on, the signers' role scoped to /klms/. Every process
# authenticates (/v3/auth/authenticate, a bcrypt check on the members) before its first transaction.
if [[ -n "$baseline" ]]; then
  for h in $(seq 1 8); do
    mkdir -m 700 "$dir/base-$h"
    "$build/tools/klms-state" join --tree-cache "$dir/etcd-1/k.state.cache" "$dir/etcd.pub" "$dir/base-$h/k.state" 2>/dev/null
  done
fi
ctl() { ETCDCTL_API=3 etcdctl --endpoints "$endpoints" "$@" > /dev/null; }
ctl user add root:root-pw && ctl user grant-role root root
ctl role add klms-signer && ctl role grant-permission --prefix=true klms-signer readwrite /klms/
ctl user add signer:signer-pw && ctl user grant-role signer klms-signer
ctl auth enable
printf 'signer-pw\n' > "$dir/pw"
chmod 600 "$dir/pw"
export KLMS_ETCD_USER=signer KLMS_ETCD_PASSWORD_FILE="$dir/pw"
this_driver="$driver"
# One run of a row with build B ("this" or "base"): the rate.
run_with() {
  local which=$1; shift
  if [[ $which == base ]]; then
    OPENSSL_MODULES="$baseline/provider" KLMS_WITNESS_DIR="$baseline/witness" driver=$(driver_of "$baseline") hostdir=base "$@"
  else
    driver="$this_driver" hostdir=etcd "$@"
  fi
}
# A row with authentication: this build's median and, with a baseline, the baseline's (runs interleaved).
auth_row() {
  local name=$1; shift
  local this=() base=()
  for _ in $(seq "$runs"); do
    this+=("$(run_with this "$@")")
    [[ -n "$baseline" ]] && base+=("$(run_with base "$@")")
  done
  local t b="-"
  t=$(printf '%s\n' "${this[@]}" | median)
  [[ -n "$baseline" ]] && b=$(printf '%s\n' "${base[@]}" | median)
  printf '%-52s %12s %12s\n' "$name, etcd_user" "$t" "$b"
}
echo "== with etcd_user (authentication on); baseline: ${baseline:-none}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-52s %12s %12s\n' "row" "this build" "baseline"
for hosts in 1 4 8; do auth_row "CLI signatures/s, $hosts host(s) x 5" cli_rate etcd "$hosts" 5; done
for reserve in 1 16 256; do
  count=512
  [[ $reserve == 1 ]] && count=128
  for hosts in 1 4 8; do auth_row "reservations/s, reserve $reserve, $hosts host(s) x $count" driver_rate etcd "$hosts" "$reserve" "$count"; done
done
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
