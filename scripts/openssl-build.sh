#!/usr/bin/env bash
# Fetches the Debian source package of one OpenSSL version and builds it once into a cache
# directory outside the source tree; prints the install prefix on stdout.
#   scripts/openssl-build.sh VERSION [--lms|--no-lms]
#   scripts/openssl-build.sh --print-sources    print the private deb-src list and stop
# VERSION is an upstream version (4.0.2) or a Debian one (4.0.2-1); --lms (the default for 3.6+)
# configures OpenSSL's own LMS with enable-lms, --no-lms with no-lms (as Debian ships it).
# Versions before 3.6 have no LMS of their own and take neither.
# Cache: ${KLMS_OPENSSL_CACHE:-$HOME/.cache/klms-openssl}/<upstream>-<lms|nolms>/ (the install
# prefix, reused when its .complete marker exists); sources under .../src/.
# Uses a private apt configuration (its own deb-src list and package lists under the cache), so
# the system's apt sources are never changed; the Debian archive it names is the one the system's
# apt sources use (scripts/lib/debian-archive.sh), or KLMS_DEBIAN_MIRROR.
set -euo pipefail
. "$(dirname "$0")/lib/debian-archive.sh"
# Private apt: the Debian suites that carry 3.5 (trixie), 3.6 (sid) and 4.0 (experimental).
suites=(trixie sid experimental)
if [[ "${1:-}" == --print-sources ]]; then
  klms_debian_src_list "${suites[@]}"
  exit
fi

version="${1:?usage: openssl-build.sh VERSION [--lms|--no-lms]}"
lms="${2:-}"
upstream="${version%%-*}"
major_minor=$(cut -d. -f1,2 <<<"$upstream")
has_lms=0
case "$major_minor" in
  3.0|3.1|3.2|3.3|3.4|3.5) ;;
  *) has_lms=1 ;;
esac
case "$lms" in
  ""|--lms) lms=$([[ $has_lms == 1 ]] && echo lms || echo nolms) ;;
  --no-lms) lms=nolms ;;
  *) echo "error: second argument must be --lms or --no-lms, not '$lms'" >&2; exit 2 ;;
esac
if [[ $has_lms == 0 && "${2:-}" == --lms ]]; then
  echo "error: OpenSSL $upstream has no LMS of its own (3.6 added it)" >&2; exit 2
fi

cache="${KLMS_OPENSSL_CACHE:-$HOME/.cache/klms-openssl}"
prefix="$cache/$upstream-$lms"
if [[ -f "$prefix/.complete" ]]; then
  echo "$prefix"; exit 0
fi
mkdir -p "$cache/src" "$cache/apt/lists/partial" "$cache/apt/archives/partial"
log() { echo "openssl-build: $*" >&2; }

aptdir="$cache/apt"
sources=$(klms_debian_src_list "${suites[@]}") || exit 1
echo "$sources" >"$aptdir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$aptdir/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
          -o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache::Archives=$aptdir/archives"
          -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" -o "APT::Sandbox::User=root")
srcdir=$(ls -d "$cache/src/openssl-$upstream" 2>/dev/null || true)
if [[ -z "$srcdir" ]]; then
  if [[ ! -f "$aptdir/lists/.updated" || -n $(find "$aptdir/lists/.updated" -mmin +1440) ]]; then
    log "updating the private deb-src lists"
    apt-get "${apt_opts[@]}" update -qq >&2
    touch "$aptdir/lists/.updated"
  fi
  debver="$version"
  if [[ "$version" != *-* ]]; then
    debver=$(apt-cache "${apt_opts[@]}" showsrc openssl 2>/dev/null |
             awk '/^Version:/ {print $2}' | grep -E "^$upstream-" | sort -V | tail -1 || true)
    [[ -n "$debver" ]] || { log "no Debian source package of OpenSSL $upstream (trixie/sid/experimental)"; exit 1; }
  fi
  log "fetching openssl=$debver"
  (cd "$cache/src" && apt-get "${apt_opts[@]}" source -qq "openssl=$debver" >&2)
  srcdir="$cache/src/openssl-$upstream"
  [[ -d "$srcdir" ]] || { log "apt-get source did not unpack $srcdir"; exit 1; }
fi

build="$cache/build/$upstream-$lms"
rm -rf "$build" "$prefix"
mkdir -p "$build"
lms_opt=()
if [[ $has_lms == 1 ]]; then
  lms_opt=($([[ $lms == lms ]] && echo enable-lms || echo no-lms))
fi
log "configuring OpenSSL $upstream (${lms_opt[*]:-no LMS of its own}) in $build"
# Minimal and fast: no tests and no docs (otherwise as upstream: the console UI stays, klms-cms-sign
# asks passphrases through it); shared libraries with an rpath to the prefix,
# so the openssl binary and every program linked against it use this libcrypto.
(cd "$build" && "$srcdir/Configure" linux-x86_64 --prefix="$prefix" --libdir=lib \
    --openssldir="$prefix/ssl" shared no-tests no-docs \
    "${lms_opt[@]}" "-Wl,-rpath,$prefix/lib" -O2 >&2)
jobs=$(nproc 2>/dev/null || echo 2)
t0=$(date +%s)
# Through ccache where it is installed: OpenSSL compiles each libcrypto source twice, for the static
# (libcrypto-lib-*.o) and the shared library (libcrypto-shlib-*.o), with the same flags, so even a
# first build takes 958 of its 2,178 compiles from the cache (4.0.2: 293 s with an empty cache).
make_path=$PATH
if [[ -d /usr/lib/ccache ]] && command -v ccache >/dev/null; then
  make_path=/usr/lib/ccache:$PATH
  log "compiling through ccache (${CCACHE_DIR:-its default directory})"
fi
log "building (make -j$jobs build_sw); this takes a while"
PATH=$make_path make -C "$build" -j"$jobs" build_sw >"$build/make.log" 2>&1 || { tail -30 "$build/make.log" >&2; exit 1; }
make -C "$build" install_sw install_ssldirs >>"$build/make.log" 2>&1 || { tail -30 "$build/make.log" >&2; exit 1; }
touch "$prefix/.complete"
rm -rf "$build"
log "installed OpenSSL $upstream ($lms) in $prefix ($(( $(date +%s) - t0 )) s to build)"
echo "$prefix"
