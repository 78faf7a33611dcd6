#!/usr/bin/env bash
# Builds the Debian package of the provider with Debian's own tooling (debhelper's dh with the CMake
# build system, dpkg-buildpackage), then checks it with lintian:
#
#   scripts/build-deb.sh [--out DIR] [--no-lintian] [--no-install]
#
# Writes DIR/klms_<version>_<arch>.deb, DIR/klms-dev_<version>_<arch>.deb and
# DIR/klms-witness-tpm_<version>_<arch>.deb, DIR/klms-witness-etcd_<version>_<arch>.deb (default DIR: ./dist),
# with their .changes, .buildinfo, the debug-symbol package and lintian.txt (lintian's output). The
# build runs in a copy of the source tree (without build/, dist/, .git), so the working tree stays
# clean. Installs the Debian packages that are missing first (scripts/install-deps.sh --package),
# naming them before apt-get runs; with --no-install (or KLMS_NO_INSTALL=1) it names them and
# exits 1 instead. Exit status non-zero if the build fails or lintian reports an error or a
# warning that a debian/*.lintian-overrides file does not explain.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/dist"
lint=1
install_flags=()
while (( $# > 0 )); do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --out=*) out="${1#*=}"; shift ;;
    --no-lintian) lint=0; shift ;;
    --no-install) install_flags=(--no-install); shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-deb.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

"$root/scripts/install-deps.sh" --package "${install_flags[@]}" || {
  echo "build-deb.sh: the Debian packages the build needs are missing (above)" >&2
  exit 1
}

version=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
project_version=$(sed -n 's/^project(klms VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
if [[ "$version" != "$project_version" ]]; then
  echo "build-deb.sh: debian/changelog says $version, CMakeLists.txt says $project_version" >&2
  exit 1
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
# The build runs at the same path every time (one build at a time, under a lock): the compiler's
# -ffile-prefix-map names that path, so ccache (scripts/test.sh exports it) finds the objects of
# an earlier package build only there.
cache="${XDG_CACHE_HOME:-$HOME/.cache}/klms-deb"
mkdir -p -m 700 "$cache"
exec 9>"$cache/lock"
flock 9
work="$cache/work"
rm -rf "$work"
mkdir -m 700 "$work"
trap 'rm -rf "$work"' EXIT
src="$work/klms-$version"
mkdir "$src"
tar -C "$root" --exclude=./build --exclude=./dist --exclude=./.git --exclude=./report -cf - . | tar -C "$src" -xf -

echo "build-deb.sh: dpkg-buildpackage in $src" >&2
(cd "$src" && dpkg-buildpackage -b -us -uc -j"$(nproc 2>/dev/null || echo 2)") > "$work/build.log" 2>&1 || {
  tail -50 "$work/build.log" >&2
  echo "build-deb.sh: dpkg-buildpackage failed (log above)" >&2
  exit 1
}
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
changes="$work/klms_${version}_${arch}.changes"
# Every binary package of the source (klms, klms-dev, klms-witness-tpm, their -dbgsym) and the
# .changes and .buildinfo naming them: lintian reads them all.
rm -f "$out"/klms_"$version"_* "$out"/klms-*_"$version"_*
mv "$work"/klms_"$version"_* "$work"/klms-*_"$version"_* "$out"/ 2>/dev/null || true
cp "$work/build.log" "$out/build.log"
deb="$out/klms_${version}_${arch}.deb"
[[ -f "$deb" ]] || { echo "build-deb.sh: no $deb" >&2; exit 1; }
[[ -f "$out/klms-dev_${version}_${arch}.deb" ]] || { echo "build-deb.sh: no $out/klms-dev_${version}_${arch}.deb" >&2; exit 1; }
for p in klms-witness-tpm klms-witness-etcd; do
  [[ -f "$out/${p}_${version}_${arch}.deb" ]] || { echo "build-deb.sh: no $out/${p}_${version}_${arch}.deb" >&2; exit 1; }
done
changes="$out/${changes##*/}"

status=0
if (( lint )); then
  # Everything lintian has to say, informational and pedantic tags included, into lintian.txt;
  # errors and warnings fail the build.
  lintian --info --display-info --pedantic --show-overrides "$changes" > "$out/lintian.txt" 2>&1 || true
  lintian --fail-on error,warning "$changes" > /dev/null 2>&1 || status=$?
  if [[ -s "$out/lintian.txt" ]]; then cat "$out/lintian.txt" >&2; else echo "lintian: no tags" >&2; fi
  (( status == 0 )) || echo "build-deb.sh: lintian reports errors or warnings" >&2
fi
echo "$deb"
dpkg-deb --info "$deb" | sed -n '/Package:/,$p' >&2
exit "$status"
