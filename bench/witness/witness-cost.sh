#!/usr/bin/env bash
# What the TPM witness costs a signature (docs/state.md "The witness"): one CLI signature with an
# unwitnessed and with a witnessed key of the same parameters, interleaved by farm-bench --vs in
# one run (the same machine, the same moment), against a swtpm this script starts on a socket in
# a private directory; and TPM2_NV_Increment per second on that swtpm, through the provider
# (one reserve:N reservation = N increments) as a long-running signer would pay it.
# With BASELINE_BUILD (another build's directory, e.g. of the commit before a change), the same
# signatures through that build too, and this build's witnessed signature against the baseline's,
# all in the same run (before/after: docs/performance.md "The TPM witness").
#   bench/witness/witness-cost.sh [BUILD_DIR] [RUNS] [BASELINE_BUILD]
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
runs="${2:-21}"
baseline="${3:-}"
command -v swtpm >/dev/null || { echo "witness-cost: swtpm not installed (scripts/install-deps.sh)" >&2; exit 1; }
command -v farm-bench >/dev/null || { echo "witness-cost: needs farm-bench (the workplace's timing tool)" >&2; exit 1; }
dir=$(mktemp -d)
chmod 700 "$dir"
trap 'kill "$(cat "$dir/pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$dir"' EXIT
mkdir "$dir/tpm"
swtpm socket --tpm2 --tpmstate dir="$dir/tpm" --server type=unixio,path="$dir/sock" \
  --ctrl type=unixio,path="$dir/sock.ctrl" --flags not-need-init,startup-clear --daemon --pid file="$dir/pid"
for _ in $(seq 100); do [[ -S "$dir/sock" ]] && break; sleep 0.05; done
export KLMS_TPM_TCTI="swtpm:path=$dir/sock" KLMS_WITNESS_DIR="$PWD/$build/witness"
export OPENSSL_MODULES="$PWD/$build/provider" OPENSSL_CONF="$PWD/conf/klms.cnf"
head -c 1024 /dev/urandom > "$dir/msg"
for w in none tpm; do
  openssl genpkey -algorithm HSS-LMS -pkeyopt lms:LMS_SHA256_M32_H15 -pkeyopt ots:LMOTS_SHA256_N32_W4 \
    -pkeyopt "state-file:$dir/$w.state" -pkeyopt "witness:$w" -out "$dir/$w.pem"
done
echo "== one CLI signature (1 KiB, H15/W4): witness:tpm (A) vs witness:none (B); $(grep -m1 'model name' /proc/cpuinfo)"
farm-bench -n "$runs" --timeout 600 --vs "openssl pkeyutl -sign -rawin -inkey $dir/none.pem -in $dir/msg -out $dir/b.sig" \
  -- openssl pkeyutl -sign -rawin -inkey "$dir/tpm.pem" -in "$dir/msg" -out "$dir/a.sig"
if [[ -n "$baseline" ]]; then
  # Each build signs its own keys (a state file of a newer format is refused by an older build).
  base=$(cd "$baseline" && pwd)
  cat > "$dir/with" <<SH
#!/bin/sh
# with BUILD KEY OUT: one CLI signature through BUILD's provider and witness module
export KLMS_WITNESS_DIR="\$1/witness" OPENSSL_MODULES="\$1/provider"
exec openssl pkeyutl -sign -rawin -inkey "\$2" -in "$dir/msg" -out "\$3"
SH
  chmod +x "$dir/with"
  for w in none tpm; do
    KLMS_WITNESS_DIR="$base/witness" OPENSSL_MODULES="$base/provider" openssl genpkey -algorithm HSS-LMS \
      -pkeyopt lms:LMS_SHA256_M32_H15 -pkeyopt ots:LMOTS_SHA256_N32_W4 -pkeyopt "state-file:$dir/base-$w.state" \
      -pkeyopt "witness:$w" -out "$dir/base-$w.pem"
  done
  echo "== the baseline build ($baseline): witness:tpm (A) vs witness:none (B)"
  farm-bench -n "$runs" --timeout 600 --vs "$dir/with $base $dir/base-none.pem $dir/f.sig" \
    -- "$dir/with" "$base" "$dir/base-tpm.pem" "$dir/e.sig"
  echo "== witness:tpm: this build (A) vs the baseline build (B)"
  farm-bench -n "$runs" --timeout 600 --vs "$dir/with $base $dir/base-tpm.pem $dir/h.sig" \
    -- "$dir/with" "$PWD/$build" "$dir/tpm.pem" "$dir/g.sig"
fi
echo "== one reservation of 256 indices (reserve:256: 256 TPM2_NV_Increment) vs reserve:1, witness:tpm"
farm-bench -n 7 --timeout 600 --vs "openssl pkeyutl -sign -rawin -inkey $dir/tpm.pem -in $dir/msg -out $dir/d.sig" \
  -- openssl pkeyutl -sign -rawin -inkey "$dir/tpm.pem" -in "$dir/msg" -out "$dir/c.sig" -pkeyopt reserve:256
echo "(increments per second on this swtpm = 255 / (median A - median B) in the second table)"
