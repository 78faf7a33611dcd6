#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs, skipping those already there.
#   scripts/install-deps.sh            build, tests and the demo
#   scripts/install-deps.sh --bench    also what the study (bench/study.sh) plots with, and perf
#   scripts/install-deps.sh --package  also what builds and checks the Debian package
#                                      (scripts/build-deb.sh, scripts/test-package.sh)
#   ... --no-install (or KLMS_NO_INSTALL=1)  only list what is missing: exit 1 if anything is,
#                                      instead of installing it
# It names the packages it is about to install before apt-get runs.
set -euo pipefail

packages=(build-essential cmake ninja-build pkg-config openssl libssl-dev googletest libgtest-dev libgmock-dev
          libbenchmark-dev perl clang libclang-rt-14-dev procps scdoc
          # klms-state show --json (tools/state_json.cpp): header-only
          nlohmann-json3-dev
          # scripts/test-openssl.sh: apt-get source (dpkg-source, xz) of Debian's signed OpenSSL sources
          dpkg-dev xz-utils debian-archive-keyring ccache
          # the TPM witness module (witness/tpm: SAPI and the TCTI loader) and its tests against a
          # real software TPM (test/recipes/witness_rollback.t: swtpm, tpm2_shutdown, tpm2_nvincrement)
          libtss2-dev swtpm tpm2-tools
          # the etcd fleet witness's tests against a real 3-member cluster (test/recipes/lib/EtcdCluster.pm,
          # test/recipes/etcd_cluster.t: etcd, etcdctl, and curl for its JSON gateway checks)
          etcd-server etcd-client curl
          # the etcd fleet witness module (witness/etcd): neon over GnuTLS for HTTP (Debian's libcurl
          # links libssh2 and with it the system's libcrypto), GnuTLS for base64 and client certificates
          libneon27-gnutls-dev libgnutls28-dev
          # the rollback matrix's btrfs snapshot case (mkfs.btrfs, btrfs subvolume snapshot)
          btrfs-progs
          # scripts/clang-tidy.sh (a stage of scripts/test.sh): clang-tidy-14 and run-clang-tidy-14
          clang-tidy
          # test/recipes/bouncycastle.t: BouncyCastle verifies klms signatures (docs/firmware.md
          # "Verify elsewhere"); the JDK's javac compiles test/support/HssVerify.java
          default-jre-headless default-jdk-headless libbcprov-java
          # docs/xmss.md "Interoperability": Botan 2's CLI signs and verifies XMSS (test/data/SOURCES.md)
          botan
          # test/recipes/pkcs11*.t: real PKCS#11 clients of libklms-pkcs11.so (PyKCS11 under
          # /usr/bin/python3, OpenSC's pkcs11-tool, p11-kit list-modules and its proxy)
          python3-pykcs11 opensc p11-kit p11-kit-modules)
no_install=${KLMS_NO_INSTALL:-0}
set_name=""
for arg in "$@"; do
  case "$arg" in
    --no-install) no_install=1 ;;
    --bench|--package) set_name=$arg ;;
    *) echo "install-deps.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done
case "$set_name" in
  --bench) packages+=(gnuplot-nox time linux-perf python3) ;;  # linux-perf: bench/paths/targets.sh (perf stat)
  # python3: Botan's configure.py in bench/baseline/botan-baseline.sh (opt-in)
  --package) packages+=(debhelper lintian man-db) ;;  # no devscripts or fakeroot: not used (Rules-Requires-Root: no)
esac

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if (( ${#missing[@]} == 0 )); then
  exit 0
fi

if [[ "$no_install" == 1 ]]; then
  echo "install-deps.sh: missing Debian packages: ${missing[*]}" >&2
  echo "install-deps.sh: not installing them (--no-install / KLMS_NO_INSTALL=1): install them, or run without it" >&2
  exit 1
fi
echo "install-deps.sh: installing these Debian packages with apt-get: ${missing[*]}" >&2
echo "install-deps.sh: (to stop here instead, run with --no-install or KLMS_NO_INSTALL=1)" >&2
as_root=()
if (( EUID != 0 )); then
  if command -v sudo >/dev/null; then as_root=(sudo); else
    echo "error: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
