#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install what is missing, build the provider, then
# generate a K-LMS key, sign a file and verify the signature with the stock openssl command.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
scripts/install-deps.sh
# Only what the demo and the README's commands run: the provider module, the two commands and the
# witness modules (-pkeyopt witness:tpm, witness:etcd; docs/install.md "Witness modules"), not the
# tests or benchmarks (`scripts/build.sh release` builds everything).
. scripts/lib/configure-preset.sh
klms_configure_preset release
targets=(klms klms-state klms-cms-sign)
# A witness module is a target only where its libraries were found at configure time.
known=$(cmake --build --preset release --target help 2>/dev/null || true)
for t in klms_witness_tpm klms_witness_etcd; do
  if grep -qw "$t" <<<"$known"; then targets+=("$t"); fi
done
cmake --build --preset release -j "$(nproc 2>/dev/null || echo 2)" --target "${targets[@]}"

work=$(mktemp -d "${TMPDIR:-/tmp}/klms-demo-XXXXXX")
chmod 700 "$work"
trap 'rm -rf "$work"' EXIT
export OPENSSL_CONF="$root/conf/klms.cnf" OPENSSL_MODULES="$root/build/release/provider"
cd "$work"
set -x
openssl genpkey -algorithm HSS-LMS -pkeyopt hash:LSH256 -pkeyopt height:10 -pkeyopt winternitz:4 \
  -pkeyopt state-file:"$work/demo.state" -out demo-key.pem
openssl pkey -in demo-key.pem -pubout -out demo-pub.pem
head -c 1048576 /dev/urandom > firmware.bin
openssl pkeyutl -sign -rawin -inkey demo-key.pem -in firmware.bin -out firmware.sig
openssl pkeyutl -verify -rawin -pubin -inkey demo-pub.pem -in firmware.bin -sigfile firmware.sig
openssl pkey -in demo-key.pem -noout -text | tee key.txt | grep -E 'level|state|remaining|maximum'
"$root/build/release/tools/klms-state" show "$work/demo.state"
set +x
left=$(awk -F': ' '/^remaining signatures/ { print $2 }' key.txt)
echo "demo: K-LMS (LSH-256, H10/W4) key generated, 1 MiB signed and verified; $left signatures left."
