#!/usr/bin/env bash
# The Debian package on this machine, end to end. Needs root; CI runs it as a stage of
# scripts/test.sh after the release tests, never next to other tests (it edits the system's
# openssl.cnf for a while and restores it byte for byte).
#
#   scripts/test-package.sh [--deb FILE]
#
#  1. builds the packages klms and klms-dev (scripts/build-deb.sh, lintian included) unless --deb
#     names klms's (klms-dev's is the file beside it);
#  2. records the file list of /usr /etc /var/lib /opt and the user's state (a state directory and a
#     key made before the package exists);
#  3. dpkg -i of both; checks the files, `man klms` (and OSSL_PROVIDER-klms), `man klms-state`,
#     `man klms-cms-sign`, the documentation for users only, <klms/klms.h> and klms.pc;
#  4. enables the provider for the whole system with the README's .include line and runs the main
#     job with the stock /usr/bin/openssl, the system configuration and nothing else
#     (no OPENSSL_CONF, no OPENSSL_MODULES): K-LMS key, sign 1 MiB, verify, a v3 root certificate,
#     CMS with klms-cms-sign, the C example from /usr/share/doc/klms/examples built with
#     `pkg-config --cflags --libs klms` and run, the build info `list -providers -verbose` shows;
#  5. disables it with the README's sed command (the system file is byte for byte as before), then
#     the same for one program with OPENSSL_CONF=/usr/share/klms/klms.cnf;
#     then the witness packages (klms-witness-tpm with a real swtpm, klms-witness-etcd) and klms-pkcs11
#     (pkcs11-tool loads the installed module; its p11-kit file stays opt-in), each installed and purged;
#  6. dpkg -r, dpkg -P: no file of either package left, the file list as in step 2 (dpkg's own
#     bookkeeping, caches and logs aside), the user's state files and keys unchanged.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deb=""
while (( $# > 0 )); do
  case "$1" in
    --deb) deb="$2"; shift 2 ;;
    --deb=*) deb="${1#*=}"; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test-package.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
(( EUID == 0 )) || { echo "test-package.sh: needs root (dpkg -i, /etc/ssl/openssl.cnf)" >&2; exit 1; }

log() { printf '[test-package %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
fail() { echo "test-package.sh: FAIL: $*" >&2; exit 1; }
checks=0
ok() { checks=$((checks + 1)); printf 'ok %d - %s\n' "$checks" "$*"; }

for p in klms klms-dev klms-witness-tpm klms-witness-etcd klms-pkcs11; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'installed'; then
    fail "a $p package is already installed here: this test installs and purges its own (dpkg -P klms-dev klms first)"
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/klms-pkgtest-XXXXXX")
chmod 700 "$work"
system_cnf=/etc/ssl/openssl.cnf
cp -p "$system_cnf" "$work/openssl.cnf.orig"
cleanup() {
  local rc=$?
  # Whatever happened: the system file as it was, the package gone.
  if ! cmp -s "$work/openssl.cnf.orig" "$system_cnf"; then cp -p "$work/openssl.cnf.orig" "$system_cnf"; fi
  for p in klms-pkcs11 klms-witness-etcd klms-witness-tpm klms-dev; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'installed\|config-files'; then
      dpkg -P "$p" >/dev/null 2>&1 || true
    fi
  done
  if [[ -f "$work/swtpm.pid" ]]; then kill "$(cat "$work/swtpm.pid")" 2>/dev/null || true; fi
  if dpkg-query -W -f='${Status}' klms 2>/dev/null | grep -q 'installed\|config-files'; then
    dpkg -P klms >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT

# --- 1. the package --------------------------------------------------------------------------
if [[ -z "$deb" ]]; then
  log "building the package (scripts/build-deb.sh)"
  start=$SECONDS
  "$root/scripts/build-deb.sh" --out "$work/dist" > "$work/build-deb.out" 2> "$work/build-deb.err" \
    || { cat "$work/build-deb.err" >&2; fail "scripts/build-deb.sh"; }
  deb=$(tail -1 "$work/build-deb.out")
  ok "scripts/build-deb.sh built $(basename "$deb") in $((SECONDS - start)) s, lintian without errors or warnings"
  if [[ -s "$work/dist/lintian.txt" ]]; then
    grep -E '^[EWIPXO]: ' "$work/dist/lintian.txt" | sed 's/^/  lintian: /' || true
  else
    echo "  lintian: no tags"
  fi
fi
[[ -f "$deb" ]] || fail "no package $deb"
dev_deb="$(dirname "$deb")/$(basename "$deb" | sed 's/^klms_/klms-dev_/')"
[[ -f "$dev_deb" ]] || fail "no package $dev_deb beside $deb"

# --- 2. before ---------------------------------------------------------------------------------
snapshot() {  # every path under the system trees, minus dpkg's bookkeeping, caches and logs
  find /usr /etc /var/lib /opt -xdev \( -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/cache \
       -o -path /var/log -o -path /var/lib/man-db -o -path /var/lib/ucf \) -prune -o -print 2>/dev/null | LC_ALL=C sort
}
snapshot > "$work/files.before"

# The user's state: a home with a state directory, and a key made (with the build tree's provider,
# if there is one, else left out) before the package existed.
export HOME="$work/home"
mkdir -p "$HOME/.local/state/klms" "$work/job"
chmod 700 "$HOME" "$HOME/.local" "$HOME/.local/state" "$HOME/.local/state/klms" "$work/job"
echo "not a state file; must survive" > "$HOME/.local/state/klms/marker"
unset OPENSSL_CONF OPENSSL_MODULES KLMS_STATE_DIR OPENSSL_CONF_INCLUDE
openssl=/usr/bin/openssl

# --- 3. install ------------------------------------------------------------------------------
log "dpkg -i $(basename "$deb") $(basename "$dev_deb")"
dpkg -i "$deb" "$dev_deb" > "$work/dpkg-i.log" 2>&1 || { cat "$work/dpkg-i.log" >&2; fail "dpkg -i"; }
ok "dpkg -i $(basename "$deb") $(basename "$dev_deb")"
{ dpkg -L klms; dpkg -L klms-dev; } | LC_ALL=C sort -u > "$work/package.files"
modulesdir=$(pkg-config --variable=modulesdir libcrypto)
for f in "$modulesdir/klms.so" /usr/bin/klms-state /usr/bin/klms-cms-sign /usr/share/klms/klms-provider.cnf \
         /usr/share/klms/klms.cnf /usr/share/doc/klms/copyright /usr/share/doc/klms/examples/klms_sign.c; do
  [[ -f "$f" ]] || fail "not installed: $f"
done
ok "installed: klms.so in $modulesdir, klms-state and klms-cms-sign in /usr/bin, configuration, docs"
for page in klms OSSL_PROVIDER-klms klms-state klms-cms-sign; do
  path=$(man -w "$page" 2>/dev/null) || fail "man -w $page"
  MANPAGER=cat MANWIDTH=80 man "$page" 2>/dev/null | grep -q "^NAME" || fail "man $page renders no NAME section"
  ok "man $page ($path)"
done

# The documentation for users, not the project's review files (cmake/install.cmake).
# (dh_compress gzips documents over 4 KiB.)
for f in /usr/share/doc/klms/README.md /usr/share/doc/klms/docs/state.md /usr/share/doc/klms/docs/developer-kit.md; do
  [[ -f "$f" || -f "$f.gz" ]] || fail "not installed: $f"
done
[[ ! -e /usr/share/doc/klms/docs/clang-tidy-findings.txt && ! -e /usr/share/doc/klms/docs/clang-tidy-findings.txt.gz ]] || fail "the review file docs/clang-tidy-findings.txt is installed"
ok "/usr/share/doc/klms: README and docs for users, no review files"
# The developer's kit: the header and pkg-config file of klms-dev.
[[ -f /usr/include/klms/klms.h ]] || fail "not installed: /usr/include/klms/klms.h"
[[ "$(pkg-config --variable=modulesdir klms)" == "$modulesdir" ]] \
  || fail "pkg-config --variable=modulesdir klms says '$(pkg-config --variable=modulesdir klms)', libcrypto '$modulesdir'"
[[ "$(pkg-config --libs klms)" == *-lcrypto* ]] || fail "pkg-config --libs klms: no -lcrypto"
ok "klms-dev: <klms/klms.h>, pkg-config klms (modulesdir $modulesdir)"

# --- 4. whole system: the README's .include line, then the main job ---------------------------
snippet=/usr/share/klms/klms-provider.cnf
echo ".include $snippet" >> "$system_cnf"
providers=$("$openssl" list -providers | awk '/^  [a-z]/ { print $1 }' | paste -sd' ')
[[ "$providers" == "default klms" ]] || fail "system configuration + snippet: providers '$providers', expected 'default klms'"
ok "system-wide: openssl list -providers shows default and klms, once each"
buildinfo=$("$openssl" list -providers -verbose | sed -n '/^  klms/,/^  [a-z]/p' | sed -n 's/^ *build info: //p')
expected_ossl=$(sed -n 's/^# *define OPENSSL_FULL_VERSION_STR "\(.*\)"$/\1/p' /usr/include/*/openssl/opensslv.h /usr/include/openssl/opensslv.h 2>/dev/null | head -1)
[[ "$buildinfo" == *"built against OpenSSL $expected_ossl"* ]] || fail "list -providers -verbose: build info '$buildinfo'"
ok "openssl list -providers -verbose: $buildinfo"

cd "$work/job"
"$openssl" genpkey -algorithm HSS-LMS -pkeyopt hash:LSH256 -pkeyopt height:10 -pkeyopt winternitz:4 \
  -pkeyopt state-file:"$work/job/job.state" -out job-key.pem 2> genpkey.err || { cat genpkey.err >&2; fail genpkey; }
"$openssl" pkey -in job-key.pem -pubout -out job-pub.pem
head -c 1048576 /dev/urandom > firmware.bin
"$openssl" pkeyutl -sign -rawin -inkey job-key.pem -in firmware.bin -out firmware.sig
"$openssl" pkeyutl -verify -rawin -pubin -inkey job-pub.pem -in firmware.bin -sigfile firmware.sig | grep -q 'Signature Verified Successfully' \
  || fail "pkeyutl -verify"
ok "main job with /usr/bin/openssl and the system configuration: K-LMS key, 1 MiB signed, verified"
cp firmware.bin tampered.bin && printf 'x' | dd of=tampered.bin bs=1 seek=1000 conv=notrunc status=none
if "$openssl" pkeyutl -verify -rawin -pubin -inkey job-pub.pem -in tampered.bin -sigfile firmware.sig > /dev/null 2>&1; then
  fail "a tampered file verifies"
fi
ok "a tampered file does not verify"
"$openssl" pkey -in job-key.pem -noout -text | grep -q "^remaining signatures: 1023$" || fail "pkey -text: remaining 1023"
ok "pkey -text: 1023 signatures remaining"

"$openssl" req -new -x509 -key job-key.pem -subj "/CN=Package Root" -days 30 -out root.crt
"$openssl" x509 -in root.crt -noout -text | grep -q 'CA:TRUE' || fail "req -x509 root without CA:TRUE"
ok "req -x509 through the system configuration: a v3 root with CA:TRUE"
echo "signed content" > content.txt
/usr/bin/klms-cms-sign -in content.txt -signer root.crt -inkey job-key.pem -out content.p7s
"$openssl" cms -verify -binary -inform PEM -in content.p7s -CAfile root.crt -out content.out 2> cms.err \
  || { cat cms.err >&2; fail "cms -verify"; }
cmp -s content.txt content.out || fail "cms -verify: content differs"
ok "klms-cms-sign + openssl cms -verify"
/usr/bin/klms-state show "$work/job/job.state" | grep -q '^next index: *3$' || fail "klms-state show: next index 3"
ok "klms-state show: next index 3 (three signatures)"

if command -v cc > /dev/null; then
  # shellcheck disable=SC2046  # the flags are words
  cc -o klms_sign /usr/share/doc/klms/examples/klms_sign.c $(pkg-config --cflags --libs klms)
  ./klms_sign "$work/job/example.state" firmware.bin | grep -q '1023 signatures left' || fail "examples/klms_sign.c"
  ok "the C example from /usr/share/doc/klms/examples, built with \$(pkg-config --cflags --libs klms) and run"
fi

# --- 5. disable again; then one program only ---------------------------------------------------
sed -i '\|^\.include /usr/share/klms/klms-provider\.cnf$|d' "$system_cnf"
cmp -s "$work/openssl.cnf.orig" "$system_cnf" || fail "the README's sed command did not restore $system_cnf"
ok "disabled with the README's sed command: $system_cnf byte for byte as before"
if echo abc | "$openssl" dgst -LSH-256 > /dev/null 2>&1; then fail "LSH-256 still available after disabling"; fi
ok "disabled: LSH-256 unknown to openssl"
export OPENSSL_CONF=/usr/share/klms/klms.cnf
"$openssl" pkeyutl -sign -rawin -inkey job-key.pem -in firmware.bin -out firmware2.sig
"$openssl" pkeyutl -verify -rawin -pubin -inkey job-pub.pem -in firmware.bin -sigfile firmware2.sig | grep -q 'Signature Verified Successfully' \
  || fail "one program: pkeyutl -verify"
ok "one program (OPENSSL_CONF=/usr/share/klms/klms.cnf): signed and verified"
unset OPENSSL_CONF
cd "$work"

# --- 5b. the TPM witness: its own package, which klms does not depend on --------------------------
witness_deb="$(dirname "$deb")/$(basename "$deb" | sed 's/^klms_/klms-witness-tpm_/')"
[[ -f "$witness_deb" ]] || fail "no package $witness_deb beside $deb"
if dpkg-deb -f "$deb" Depends | grep -q tss2; then fail "klms depends on the TPM stack: $(dpkg-deb -f "$deb" Depends)"; fi
dpkg-deb -f "$deb" Suggests | grep -q klms-witness-tpm || fail "klms does not suggest klms-witness-tpm"
ok "klms depends on no TPM library and suggests klms-witness-tpm"
dpkg -i "$witness_deb" > "$work/dpkg-i-witness.log" 2>&1 || { cat "$work/dpkg-i-witness.log" >&2; fail "dpkg -i witness"; }
dpkg -L klms-witness-tpm >> "$work/package.files"
LC_ALL=C sort -u -o "$work/package.files" "$work/package.files"
if command -v swtpm > /dev/null; then
  mkdir -m 700 "$work/tpm" "$work/wjob"
  swtpm socket --tpm2 --tpmstate dir="$work/tpm" --server type=unixio,path="$work/tpm.sock" \
    --ctrl type=unixio,path="$work/tpm.sock.ctrl" --flags not-need-init,startup-clear --daemon --pid file="$work/swtpm.pid"
  for _ in $(seq 100); do [[ -S "$work/tpm.sock" ]] && break; sleep 0.05; done
  # The system configuration has klms disabled again by now: one program's configuration loads it.
  export KLMS_TPM_TCTI="swtpm:path=$work/tpm.sock" OPENSSL_CONF=/usr/share/klms/klms.cnf
  echo "firmware" > "$work/wjob/fw.bin"
  "$openssl" genpkey -algorithm HSS-LMS -pkeyopt height:5 -pkeyopt witness:tpm \
    -pkeyopt "state-file:$work/wjob/k.state" -out "$work/wjob/k.pem" 2> "$work/wjob/err" || { cat "$work/wjob/err" >&2; fail "witnessed genpkey"; }
  "$openssl" pkeyutl -sign -rawin -inkey "$work/wjob/k.pem" -in "$work/wjob/fw.bin" -out "$work/wjob/fw.sig" \
    || fail "witnessed signature with the installed klms-witness-tpm"
  "$openssl" pkeyutl -verify -rawin -inkey "$work/wjob/k.pem" -in "$work/wjob/fw.bin" -sigfile "$work/wjob/fw.sig" \
    | grep -q "Signature Verified Successfully" || fail "the witnessed signature does not verify"
  /usr/bin/klms-state show "$work/wjob/k.state" | grep -q "witness state:    agrees" || fail "klms-state show: the witness does not agree"
  ok "with klms-witness-tpm installed: a TPM-witnessed key (swtpm) signs, verifies, and its witness agrees"
  kill "$(cat "$work/swtpm.pid")" 2>/dev/null || true
  rm -f "$work/swtpm.pid"
  unset KLMS_TPM_TCTI OPENSSL_CONF
else
  echo "test-package.sh: swtpm not installed: the installed witness module is not exercised" >&2
fi
dpkg -r klms-witness-tpm > "$work/dpkg-r-witness.log" 2>&1 || fail "dpkg -r klms-witness-tpm"
dpkg -P klms-witness-tpm > /dev/null 2>&1 || fail "dpkg -P klms-witness-tpm"

# --- 5c. the etcd fleet witness: its own package, without libcrypto ------------------------------
etcd_deb="$(dirname "$deb")/$(basename "$deb" | sed 's/^klms_/klms-witness-etcd_/')"
[[ -f "$etcd_deb" ]] || fail "no package $etcd_deb beside $deb"
if dpkg-deb -f "$deb" Depends | grep -q -E 'neon|gnutls'; then fail "klms depends on the etcd module's libraries: $(dpkg-deb -f "$deb" Depends)"; fi
dpkg-deb -f "$deb" Suggests | grep -q klms-witness-etcd || fail "klms does not suggest klms-witness-etcd"
dpkg -i "$etcd_deb" > "$work/dpkg-i-etcd.log" 2>&1 || { cat "$work/dpkg-i-etcd.log" >&2; fail "dpkg -i klms-witness-etcd"; }
dpkg -L klms-witness-etcd >> "$work/package.files"
LC_ALL=C sort -u -o "$work/package.files" "$work/package.files"
etcd_so=$(dpkg -L klms-witness-etcd | grep 'klms-witness-etcd\.so$')
if ldd "$etcd_so" | grep -q libcrypto; then fail "$etcd_so brings libcrypto: $(ldd "$etcd_so" | grep libcrypto)"; fi
ok "klms-witness-etcd installs $etcd_so, which links no libcrypto; klms only suggests it"
dpkg -r klms-witness-etcd > /dev/null 2>&1 || fail "dpkg -r klms-witness-etcd"
dpkg -P klms-witness-etcd > /dev/null 2>&1 || fail "dpkg -P klms-witness-etcd"

# --- 5d. the PKCS#11 module: its own package, registered with p11-kit opt-in (docs/pkcs11.md) -----
p11_deb="$(dirname "$deb")/$(basename "$deb" | sed 's/^klms_/klms-pkcs11_/')"
[[ -f "$p11_deb" ]] || fail "no package $p11_deb beside $deb"
dpkg -i "$p11_deb" > "$work/dpkg-i-pkcs11.log" 2>&1 || { cat "$work/dpkg-i-pkcs11.log" >&2; fail "dpkg -i klms-pkcs11"; }
dpkg -L klms-pkcs11 >> "$work/package.files"
LC_ALL=C sort -u -o "$work/package.files" "$work/package.files"
p11_so=$(dpkg -L klms-pkcs11 | grep '/pkcs11/libklms-pkcs11\.so$') || fail "klms-pkcs11 installs no pkcs11/libklms-pkcs11.so"
p11_module=/usr/share/p11-kit/modules/klms-pkcs11.module
grep -qx 'enable-in: p11-kit' "$p11_module" || fail "$p11_module does not keep the module opt-in (enable-in: p11-kit)"
[[ -f /usr/share/man/man7/klms-pkcs11.7.gz ]] || fail "klms-pkcs11(7) not installed"
mkdir -m 700 "$work/p11-token"
if command -v pkcs11-tool > /dev/null; then
  KLMS_PKCS11_TOKEN_DIR="$work/p11-token" pkcs11-tool --module "$p11_so" -I > "$work/p11-info.txt" 2>&1 \
    || { cat "$work/p11-info.txt" >&2; fail "pkcs11-tool -I with the installed module"; }
  grep -q 'Cryptoki version 3\.1' "$work/p11-info.txt" || { cat "$work/p11-info.txt" >&2; fail "the installed module is not PKCS#11 3.1"; }
  KLMS_PKCS11_TOKEN_DIR="$work/p11-token" pkcs11-tool --module "$p11_so" -M > "$work/p11-mech.txt" 2>&1 \
    || { cat "$work/p11-mech.txt" >&2; fail "pkcs11-tool -M with the installed module"; }
  grep -q 'mechtype-0x4033' "$work/p11-mech.txt" || { cat "$work/p11-mech.txt" >&2; fail "the installed module lists no CKM_HSS"; }
  ok "klms-pkcs11 installs $p11_so (pkcs11-tool: Cryptoki 3.1, CKM_HSS) and $p11_module with enable-in: p11-kit"
else
  echo "test-package.sh: pkcs11-tool (opensc) not installed: the installed module is not loaded" >&2
  ok "klms-pkcs11 installs $p11_so and $p11_module with enable-in: p11-kit"
fi
dpkg -r klms-pkcs11 > /dev/null 2>&1 || fail "dpkg -r klms-pkcs11"
dpkg -P klms-pkcs11 > /dev/null 2>&1 || fail "dpkg -P klms-pkcs11"

# The user's files, as they are before the package goes.
(cd "$work" && find home job -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) > "$work/user.before"

# --- 6. remove, purge --------------------------------------------------------------------------
log "dpkg -r klms-dev klms, dpkg -P klms-dev klms"
dpkg -r klms-dev klms > "$work/dpkg-r.log" 2>&1 || { cat "$work/dpkg-r.log" >&2; fail "dpkg -r"; }
left=$(while read -r f; do if [[ -f "$f" || -L "$f" ]]; then echo "$f"; fi; done < "$work/package.files")
[[ -z "$left" ]] || fail "dpkg -r left files of the package: $left"
ok "dpkg -r: no file of either package left"
dpkg -P klms-dev klms > "$work/dpkg-p.log" 2>&1 || { cat "$work/dpkg-p.log" >&2; fail "dpkg -P"; }
if dpkg-query -W klms > /dev/null 2>&1 && [[ -n "$(dpkg-query -W -f='${Status}' klms 2>/dev/null | grep -v not-installed)" ]]; then
  fail "dpkg -P: klms still known to dpkg"
fi
ls /var/lib/dpkg/info/klms.* /var/lib/dpkg/info/klms-dev.* > /dev/null 2>&1 && fail "dpkg -P left /var/lib/dpkg/info/klms*"
snapshot > "$work/files.after"
if ! diff -u "$work/files.before" "$work/files.after" > "$work/files.diff"; then
  cat "$work/files.diff" >&2
  fail "the system's file list changed between before dpkg -i and after dpkg -P (diff above)"
fi
ok "dpkg -P: the file list of /usr /etc /var/lib /opt as before dpkg -i"
(cd "$work" && find home job -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) > "$work/user.after"
diff -u "$work/user.before" "$work/user.after" >&2 || fail "removing the package changed the user's files"
grep -q 'job/job.state$' "$work/user.after" || fail "the job's state file is gone"
ok "the user's state files, keys and home unchanged by dpkg -r / -P ($(wc -l < "$work/user.after") files)"
echo "test-package.sh: all $checks checks passed"
