#!/usr/bin/env bash
# Opt-in baseline (never run by CI or scripts/test.sh): Botan 3's HSS-LMS, an independent RFC 8554
# implementation, built from its Debian source package, against which the provider's key
# generation, signing and verification are timed in the same run, plus an interoperability check.
#   bench/baseline/botan-baseline.sh [VERSION]                     build once (cached); print the prefix
#   bench/baseline/botan-baseline.sh --bench [BUILD_DIR] [RUNS]    also compare and cross-verify (see below)
#   bench/baseline/botan-baseline.sh --interop [BUILD_DIR]          only cross-verify (a few seconds)
#   bench/baseline/botan-baseline.sh --print-sources                print the private deb-src list and stop
# VERSION is an upstream Botan version (3.13.0, the default, from sid; 3.7.1 from trixie) or a Debian
# one (3.13.0+dfsg-2); the environment's KLMS_BOTAN_VERSION is used with --bench.
# Cache: ${KLMS_BOTAN_CACHE:-$HOME/.cache/klms-botan}/<upstream>/ (the install prefix, reused when its
# .complete marker exists; bin/klms-botan-hss-lms is bench/baseline/botan_hss_lms.cpp built against
# it, rebuilt when the source is newer); sources under .../src/. Like scripts/openssl-build.sh it
# uses a private apt configuration (its own deb-src list and package lists under the cache), so the
# system's apt sources are never changed. The build is minimized: the modules hss_lms, sha2_32 with
# its SHA-NI (sha2_32_x86) and other x86 paths, system_rng, and what they require; a static library.
# Botan's LMS key generation and signing are single-threaded (no thread in its hss_lms or tree_hash).
#
# --bench (BUILD_DIR default build/release, RUNS default 7, at least 5): CPU time (perf stat
# task-clock) and wall time of whole processes, medians of RUNS interleaved runs of
#   openssl genpkey -algorithm HSS-LMS -pkeyopt height:15 -pkeyopt winternitz:4   (the provider)
#   klms-botan-hss-lms keygen "SHA-256,HW(15,4)"                                   (Botan)
# on all CPUs (the provider uses both cores, Botan one) and pinned to CPU 0 (taskset -c 0: one core
# each; the provider still starts a thread per online CPU, and they share it), then signing and verifying a 1 MiB file with H15/W4 keys (Botan recomputes the whole tree
# for every signature; the provider reads its cached tree), then Botan's in-process medians; and
# cross-verification: Botan verifies the provider's signatures and the provider Botan's, for SHA-256
# H5/W8 and H10/W4, a two-level HSS key, SHA-256/192 and SHAKE-256 (raw RFC 8554 keys and signatures
# on both sides), each with a tampered signature that must be refused (the exit status is 1 if any
# cross-check fails). KLMS_BOTAN_H20=1 adds one H20/W4 key generation each (about a minute of CPU
# for Botan). Needs perf (scripts/install-deps.sh --bench), taskset, and the provider built.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
log() { echo "botan-baseline: $*" >&2; }
. "$root/scripts/lib/debian-archive.sh"
# The suites that carry Botan 3 releases (trixie: 3.7.1, sid: the newest), from the Debian archive
# the system's apt sources name (scripts/lib/debian-archive.sh) or KLMS_DEBIAN_MIRROR.
suites=(trixie sid)
if [[ "${1:-}" == --print-sources ]]; then
  klms_debian_src_list "${suites[@]}"
  exit
fi

mode=build
if [[ "${1:-}" == --bench || "${1:-}" == --interop ]]; then
  mode="${1#--}"; shift
  version="${KLMS_BOTAN_VERSION:-3.13.0}"
else
  version="${1:-3.13.0}"
fi
upstream="${version%%+*}"
upstream="${upstream%%-*}"
case "$upstream" in
  3.[5-9].*|3.[1-9][0-9].*) ;;
  *) log "Botan $upstream has no HSS-LMS (3.5 added it) or is not a Botan 3 version"; exit 2 ;;
esac

cache="${KLMS_BOTAN_CACHE:-$HOME/.cache/klms-botan}"
prefix="$cache/$upstream"

build_botan() {
  mkdir -p "$cache/src" "$cache/apt/lists/partial" "$cache/apt/archives/partial"
  local aptdir="$cache/apt" sources
  sources=$(klms_debian_src_list "${suites[@]}") || exit 1
  echo "$sources" >"$aptdir/sources.list"
  local apt_opts=(-o "Dir::Etc::SourceList=$aptdir/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
                  -o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache::Archives=$aptdir/archives"
                  -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" -o "APT::Sandbox::User=root")
  local srcdir="$cache/src/botan-$upstream"
  if [[ ! -f "$srcdir/configure.py" ]]; then
    if [[ ! -f "$aptdir/lists/.updated" || -n $(find "$aptdir/lists/.updated" -mmin +1440) ]]; then
      log "updating the private deb-src lists"
      apt-get "${apt_opts[@]}" update -qq >&2
      touch "$aptdir/lists/.updated"
    fi
    local debver="$version"
    if [[ "$version" != *+* && "$version" != *-* ]]; then
      debver=$(apt-cache "${apt_opts[@]}" showsrc botan3 2>/dev/null |
               awk '/^Version:/ {print $2}' | grep -E "^$upstream[+-]" | sort -V | tail -1 || true)
      [[ -n "$debver" ]] || { log "no Debian source package botan3 of Botan $upstream (trixie/sid)"; exit 1; }
    fi
    log "fetching botan3=$debver"
    local dl="$cache/src/dl-$upstream"
    rm -rf "$dl"; mkdir -p "$dl"
    # Only the upstream tarball is built (Debian's patches concern its packaging); apt checks every
    # file it downloads against the signed Sources list. If the mirror lacks the .dsc or the Debian
    # tarball (it happens on partial mirrors), the verified orig tarball is enough.
    if ! (cd "$dl" && apt-get "${apt_opts[@]}" source -qq --download-only "botan3=$debver" >&2); then
      log "apt-get source did not fetch every file of botan3=$debver; using its verified orig tarball"
    fi
    local orig
    orig=$(ls "$dl"/botan3_"${debver%-*}".orig.tar.* 2>/dev/null | head -1 || true)
    [[ -n "$orig" ]] || { log "the orig tarball of botan3=$debver was not fetched"; exit 1; }
    local want
    want=$(apt-cache "${apt_opts[@]}" showsrc botan3 2>/dev/null | awk -v v="$debver" -v f="$(basename "$orig")" '
      BEGIN { RS = "" }
      index($0, "\nVersion: " v "\n") {
        n = split($0, l, "\n"); s = 0
        for (i = 1; i <= n; ++i) {
          if (l[i] ~ /^Checksums-Sha256:/) s = 1; else if (l[i] !~ /^ /) s = 0
          else if (s) { split(l[i], w, " "); if (w[3] == f) { print w[1]; exit } }
        }
      }')
    [[ -n "$want" && "$(sha256sum "$orig" | cut -d' ' -f1)" == "$want" ]] ||
      { log "$(basename "$orig") does not match the SHA-256 in the signed Sources list"; exit 1; }
    rm -rf "$srcdir" "$dl/unpack"; mkdir -p "$dl/unpack"
    tar -xf "$orig" -C "$dl/unpack"
    mv "$dl/unpack"/* "$srcdir"
    rm -rf "$dl"
    [[ -f "$srcdir/configure.py" ]] || { log "no configure.py in $srcdir"; exit 1; }
  fi
  command -v python3 >/dev/null || { log "python3 is needed (scripts/install-deps.sh --bench)"; exit 2; }
  command -v g++ >/dev/null || { log "g++ is needed (scripts/install-deps.sh)"; exit 2; }

  # Every SHA-256 path this release has for x86-64 (SHA-NI first); configure picks by CPUID at run time.
  local mods=hss_lms,sha2_32,system_rng m
  for m in sha2_32_x86 sha2_32_avx2 sha2_32_bmi2 sha2_32_simd; do
    [[ -d "$srcdir/src/lib/hash/sha2_32/$m" ]] && mods+=",$m"
  done
  local build="$cache/build/$upstream"
  rm -rf "$build" "$prefix"
  mkdir -p "$build"
  log "configuring Botan $upstream (--minimized-build --enable-modules=$mods) in $build"
  (cd "$srcdir" && python3 configure.py --minimized-build --enable-modules="$mods" \
      --disable-shared-library --build-targets=static --without-documentation \
      --no-install-python-module --cc=gcc --with-build-dir="$build" --prefix="$prefix" >"$build/configure.log" 2>&1) ||
    { tail -30 "$build/configure.log" >&2; exit 1; }
  local jobs t0
  jobs=$(nproc 2>/dev/null || echo 2)
  t0=$(date +%s)
  log "building (make -j$jobs)"
  make -C "$srcdir" -f "$build/Makefile" -j"$jobs" >"$build/make.log" 2>&1 || { tail -30 "$build/make.log" >&2; exit 1; }
  make -C "$srcdir" -f "$build/Makefile" install >>"$build/make.log" 2>&1 || { tail -30 "$build/make.log" >&2; exit 1; }
  echo "$mods" >"$prefix/modules"
  sed -n 's/.*INFO: Loading modules: //p' "$build/configure.log" >"$prefix/configure-modules"
  echo "$(( $(date +%s) - t0 ))" >"$prefix/build-seconds"
  touch "$prefix/.complete"
  rm -rf "$build"
  log "installed Botan $upstream in $prefix ($(cat "$prefix/build-seconds") s to build with make -j$jobs)"
}

build_driver() {
  local src="$root/bench/baseline/botan_hss_lms.cpp" bin="$prefix/bin/klms-botan-hss-lms"
  if [[ ! -x "$bin" || "$src" -nt "$bin" ]]; then
    mkdir -p "$prefix/bin"
    log "building $bin"
    g++ -std=c++20 -O2 -Wall -Wextra -I"$(ls -d "$prefix"/include/botan-3)" "$src" \
        "$prefix/lib/libbotan-3.a" -o "$bin.tmp" -pthread
    mv "$bin.tmp" "$bin"
  fi
}

[[ -f "$prefix/.complete" ]] || build_botan
build_driver
if [[ $mode == build ]]; then
  echo "$prefix"; exit 0
fi

# ---------------------------------------------------------------------------------------------
build_dir="$(cd "${1:-$root/build/release}" && pwd)"
runs="${2:-7}"
if [[ $mode == bench ]]; then
  (( runs >= 5 )) || { log "RUNS must be at least 5"; exit 2; }
  command -v perf >/dev/null || { log "perf not found (scripts/install-deps.sh --bench)"; exit 2; }
  command -v taskset >/dev/null || { log "taskset not found (Debian package util-linux)"; exit 2; }
fi
[[ -f "$build_dir/provider/klms.so" ]] || { log "no $build_dir/provider/klms.so (scripts/build.sh release)"; exit 2; }
botan="$prefix/bin/klms-botan-hss-lms"
bver=$("$botan" version)
export OPENSSL_MODULES="$build_dir/provider" OPENSSL_CONF="$root/conf/klms.cnf"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

median() { sort -g | awk '{a[NR]=$1} END{if(NR==0){print "nan"} else if(NR%2){print a[(NR+1)/2]} else {print (a[NR/2]+a[NR/2+1])/2}}'; }
r() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a / b}'; }
q() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3g", a / b}'; }
# timed LABEL CMD...: runs CMD once, appends its CPU ms (task-clock) to LABEL.cpu and wall ms to LABEL.wall
timed() {
  local label="$1"; shift
  local t0 t1
  t0=$(date +%s%N)
  perf stat -x, -e task-clock -o "$label.perf" "$@" >/dev/null 2>"$label.err" ||
    { log "$label failed: $*"; cat "$label.err" >&2; exit 1; }
  t1=$(date +%s%N)
  awk -F, '/task-clock/{print $1}' "$label.perf" >>"$label.cpu"
  echo $(( (t1 - t0) / 1000 )) | awk '{print $1 / 1000}' >>"$label.wall"
}

# The commands timed, by label; each run uses fresh output files.
run_label() {
  local i="$2"
  case "$1" in
    kg_ours_all) timed "$1" openssl genpkey -algorithm HSS-LMS -pkeyopt height:15 -pkeyopt winternitz:4 \
                   -pkeyopt state-file:"$tmp/ka$i.state" -out "ka$i.pem" ;;
    kg_ours_cpu0) timed "$1" taskset -c 0 openssl genpkey -algorithm HSS-LMS -pkeyopt height:15 \
                   -pkeyopt winternitz:4 -pkeyopt state-file:"$tmp/k0$i.state" -out "k0$i.pem" ;;
    kg_botan_all) timed "$1" "$botan" keygen "SHA-256,HW(15,4)" "ba$i.priv" "ba$i.pub" ;;
    kg_botan_cpu0) timed "$1" taskset -c 0 "$botan" keygen "SHA-256,HW(15,4)" "b0$i.priv" "b0$i.pub" ;;
    sign_ours) timed "$1" openssl pkeyutl -sign -rawin -inkey ka0.pem -in m1 -out "so$i.sig" ;;
    sign_botan) timed "$1" "$botan" sign ba0.priv m1 "sb$i.sig" ;;
    verify_ours) timed "$1" openssl pkeyutl -verify -rawin -pubin -inkey ka0.pub -in m1 -sigfile so0.sig ;;
    verify_botan) timed "$1" "$botan" verify ba0.pub m1 sb0.sig ;;
  esac
}
cpu_name=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)
if [[ $mode == bench ]]; then
  kg_labels=(kg_ours_all kg_botan_all kg_ours_cpu0 kg_botan_cpu0)
  log "Botan $bver; timing $runs interleaved runs of each H15/W4 key generation (all CPUs, then CPU 0) ..."
  for ((i = 0; i < runs; ++i)); do
    for l in "${kg_labels[@]}"; do run_label "$l" "$i"; done
  done
  head -c 1048576 /dev/urandom >m1
  openssl pkey -in ka0.pem -pubout -out ka0.pub
  log "timing $runs interleaved runs of signing and verifying 1 MiB with H15/W4 keys ..."
  sv_labels=(sign_ours sign_botan verify_ours verify_botan)
  for ((i = 0; i < runs; ++i)); do
    for l in "${sv_labels[@]}"; do run_label "$l" "$i"; done
  done
  declare -A cpu wall
  for l in "${kg_labels[@]}" "${sv_labels[@]}"; do
    cpu[$l]=$(median <"$l.cpu"); wall[$l]=$(median <"$l.wall")
  done
  log "Botan in-process (3 key generations, signatures and verifications) ..."
  inproc=$("$botan" bench "SHA-256,HW(15,4)" m1 3)
  # Botan picks its SHA-256 path by CPUID; BOTAN_CLEAR_CPUID=sha hides SHA-NI, so a slower second
  # figure shows that the first one used it.
  shani=$("$botan" bench "SHA-256,HW(10,4)" m1 5 | awk '/^keygen/{sub("median_cpu_ms=","",$4); print $4}')
  noshani=$(BOTAN_CLEAR_CPUID=sha "$botan" bench "SHA-256,HW(10,4)" m1 5 | awk '/^keygen/{sub("median_cpu_ms=","",$4); print $4}')
  h20=()
  if [[ "${KLMS_BOTAN_H20:-0}" == 1 ]]; then
    log "H20/W4 key generation, once each (about a minute of CPU for Botan) ..."
    timed kg20_ours openssl genpkey -algorithm HSS-LMS -pkeyopt height:20 -pkeyopt winternitz:4 \
      -pkeyopt state-file:"$tmp/k20.state" -out k20.pem
    timed kg20_botan "$botan" keygen "SHA-256,HW(20,4)" b20.priv b20.pub
    h20+=("| keygen H20/W4, all CPUs, one run each: wall s | $(r "$(cat kg20_ours.wall)" 1000) | $(r "$(cat kg20_botan.wall)" 1000) | $(r "$(cat kg20_ours.wall)" "$(cat kg20_botan.wall)")× |")
    h20+=("| keygen H20/W4, all CPUs, one run each: CPU s | $(r "$(cat kg20_ours.cpu)" 1000) | $(r "$(cat kg20_botan.cpu)" 1000) | $(r "$(cat kg20_ours.cpu)" "$(cat kg20_botan.cpu)")× |")
  fi
fi

# Cross-verification. Both sides use raw RFC 8554 bytes for signatures; the provider's public key
# is a SubjectPublicKeyInfo whose BIT STRING is the raw HSS key u32(L) || LMS public key (60 bytes
# for m = 32, 52 for m = 24), so Botan's raw key is wrapped by replacing those bytes at the end of
# the provider's DER key of the same parameter set.
interop=()
interop_fail=0
check() {  # check NAME EXPECT(0 valid|1 invalid) CMD...
  local name="$1" expect="$2" rc=0; shift 2
  "$@" >/dev/null 2>&1 || rc=$?
  if [[ $expect == 0 && $rc == 0 ]]; then interop+=("| $name | verified | ok |")
  elif [[ $expect == 1 && $rc != 0 ]]; then interop+=("| $name | refused | ok |")
  else interop+=("| $name | $([[ $rc == 0 ]] && echo verified || echo "refused (exit $rc)") | **FAILED** |"); interop_fail=1; fi
}
printf 'interoperability check message\n' >m
# tag | the provider's genpkey options | Botan's parameters
sets=("SHA-256 H5/W8|-pkeyopt height:5 -pkeyopt winternitz:8|SHA-256,HW(5,8)"
      "SHA-256 H10/W4|-pkeyopt height:10 -pkeyopt winternitz:4|SHA-256,HW(10,4)"
      "SHA-256 L=2 H5/W8,H5/W4|-pkeyopt height:5,5 -pkeyopt winternitz:8,4|SHA-256,HW(5,8),HW(5,4)"
      "SHA-256/192 H5/W8|-pkeyopt hash:SHA256/192 -pkeyopt height:5 -pkeyopt winternitz:8|Truncated(SHA-256,192),HW(5,8)"
      "SHAKE-256 H5/W8|-pkeyopt hash:SHAKE -pkeyopt height:5 -pkeyopt winternitz:8|SHAKE-256(256),HW(5,8)")
k=0
for set in "${sets[@]}"; do
  IFS='|' read -r tag opts bparams <<<"$set"
  k=$((k + 1)); h=$k
  # shellcheck disable=SC2086  # opts is a list of options
  openssl genpkey -algorithm HSS-LMS $opts -pkeyopt state-file:"$tmp/x$h.state" -out "x$h.pem" 2>/dev/null
  openssl pkey -in "x$h.pem" -pubout -outform DER -out "x$h.der"
  openssl pkeyutl -sign -rawin -inkey "x$h.pem" -in m -out "x$h.sig"
  "$botan" keygen "$bparams" "y$h.priv" "y$h.raw"
  "$botan" sign "y$h.priv" m "y$h.sig"
  len=$(stat -c %s "y$h.raw")
  tail -c "$len" "x$h.der" >"x$h.raw"
  { head -c -"$len" "x$h.der"; cat "y$h.raw"; } >"y$h.der"
  # tampered copies: one bit flipped in the second-to-last node of the authentication path
  for f in x y; do
    cp "$f$h.sig" "$f$h.bad"
    off=$(( $(stat -c %s "$f$h.sig") - 40 ))
    byte=$(od -An -tu1 -j "$off" -N1 "$f$h.sig" | tr -d ' ')
    printf "\\x$(printf %02x $(( byte ^ 1 )))" | dd of="$f$h.bad" bs=1 seek="$off" conv=notrunc status=none
    ! cmp -s "$f$h.sig" "$f$h.bad" || { log "tampering failed"; exit 1; }
  done
  check "Botan verifies the provider's $tag signature (raw public key = last $len bytes of its SPKI)" 0 "$botan" verify "x$h.raw" m "x$h.sig"
  check "Botan refuses the provider's $tag signature with one bit flipped" 1 "$botan" verify "x$h.raw" m "x$h.bad"
  check "the provider verifies Botan's $tag signature (Botan's raw key in an SPKI)" 0 \
    openssl pkeyutl -verify -rawin -pubin -keyform DER -inkey "y$h.der" -in m -sigfile "y$h.sig"
  check "the provider refuses Botan's $tag signature with one bit flipped" 1 \
    openssl pkeyutl -verify -rawin -pubin -keyform DER -inkey "y$h.der" -in m -sigfile "y$h.bad"
  check "the provider's and Botan's $tag public keys have the same L and type codes (first 12 bytes)" 0 \
    cmp -n 12 "x$h.raw" "y$h.raw"
done

echo
echo "CPU: $cpu_name ($(nproc) vCPUs), load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Baseline: Botan $bver HSS-LMS (module hss_lms; $(cat "$prefix/modules")), static, built by"
echo "bench/baseline/botan-baseline.sh in $(cat "$prefix/build-seconds" 2>/dev/null || echo '?') s; not Cisco's hash-sigs."
echo "Provider: $build_dir/provider/klms.so on $(openssl version | cut -d' ' -f1-2)."
if [[ $mode == bench ]]; then
  echo "Medians of $runs interleaved runs of whole processes: CPU = perf stat task-clock, wall = elapsed."
  echo
  echo "| H15/W4 SHA-256 | provider | Botan $bver | provider / Botan |"
  echo "|---|---|---|---|"
  echo "| keygen, all CPUs: wall s (provider: a thread per CPU; Botan: one) | $(r "${wall[kg_ours_all]}" 1000) | $(r "${wall[kg_botan_all]}" 1000) | $(r "${wall[kg_ours_all]}" "${wall[kg_botan_all]}")× |"
  echo "| keygen, all CPUs: CPU s | $(r "${cpu[kg_ours_all]}" 1000) | $(r "${cpu[kg_botan_all]}" 1000) | $(r "${cpu[kg_ours_all]}" "${cpu[kg_botan_all]}")× |"
  echo "| keygen, taskset -c 0 (one core each): wall s | $(r "${wall[kg_ours_cpu0]}" 1000) | $(r "${wall[kg_botan_cpu0]}" 1000) | $(r "${wall[kg_ours_cpu0]}" "${wall[kg_botan_cpu0]}")× |"
  echo "| keygen, taskset -c 0: CPU s | $(r "${cpu[kg_ours_cpu0]}" 1000) | $(r "${cpu[kg_botan_cpu0]}" 1000) | $(r "${cpu[kg_ours_cpu0]}" "${cpu[kg_botan_cpu0]}")× |"
  for row in "${h20[@]}"; do echo "$row"; done
  echo "| sign 1 MiB, a process (pkeyutl -sign -rawin / klms-botan-hss-lms sign): CPU ms | ${cpu[sign_ours]} | ${cpu[sign_botan]} | $(q "${cpu[sign_ours]}" "${cpu[sign_botan]}")× |"
  echo "| verify 1 MiB, a process (pkeyutl -verify -rawin / klms-botan-hss-lms verify): CPU ms | ${cpu[verify_ours]} | ${cpu[verify_botan]} | $(q "${cpu[verify_ours]}" "${cpu[verify_botan]}")× |"
  echo
  echo "Botan keeps no tree: loading its private key rebuilds the top tree for the public key, and"
  echo "every signature rebuilds it for the authentication path (a signing process: two tree builds);"
  echo "the provider reads the path from its tree cache (<state file>.cache)."
  echo
  echo "Botan in-process (klms-botan-hss-lms bench \"SHA-256,HW(15,4)\" 1MiB 3):"
  echo "$inproc"
  echo "Botan's SHA-256 path: H10/W4 keygen in-process ${shani} CPU ms as built (CPUID), ${noshani} ms with"
  echo "BOTAN_CLEAR_CPUID=sha (SHA-NI hidden): $(r "$noshani" "$shani")× slower without, so SHA-NI is used."
fi
echo
echo "| cross-verification (raw RFC 8554 keys and signatures) | result | |"
echo "|---|---|---|"
for row in "${interop[@]}"; do echo "$row"; done
exit "$interop_fail"
