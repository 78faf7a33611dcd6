# The Debian archive this machine's apt already uses, for the private apt configurations of
# scripts/openssl-build.sh and bench/baseline/botan-baseline.sh (sourced by both; bash).
# The tree names no mirror: the URI comes from the system's own sources, either format —
#   one-line: /etc/apt/sources.list and sources.list.d/*.list   "deb [opts] URI SUITE COMPONENT..."
#   deb822:   sources.list.d/*.sources                          "URIs: ..." / "Suites: ..." stanzas
# — or from KLMS_DEBIAN_MIRROR, which wins. Read from ${KLMS_APT_ETC:-/etc/apt}
# (test/recipes/debian_archive.t points it at sample files).

# The suites of Debian's own archive (not its security archive, not third-party repositories).
klms_debian_suite_re='^(buster|bullseye|bookworm|trixie|forky|duke|sid|oldstable|stable|testing|unstable|experimental)(-updates|-backports|-proposed-updates)?$'

# Prints every URI of the Debian archive named in the apt configuration, one per line: the one-line
# files first (sources.list, then sources.list.d/*.list by name), then the deb822 ones by name;
# duplicates removed.
klms_debian_archive_uris() {
  local etc="${KLMS_APT_ETC:-/etc/apt}" f
  {
    for f in "$etc/sources.list" "$etc"/sources.list.d/*.list; do
      [[ -f "$f" ]] || continue
      # deb|deb-src [options] URI suite components: the options may hold spaces inside [ ].
      sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
        awk -v re="$klms_debian_suite_re" '($1 == "deb" || $1 == "deb-src") && NF >= 3 && $3 ~ re { print $2 }'
    done
    for f in "$etc"/sources.list.d/*.sources; do
      [[ -f "$f" ]] || continue
      # Stanzas end at a blank line; a field's value may continue on indented lines.
      awk -v re="$klms_debian_suite_re" '
        function flush(   n, i, u, s, ok) {
          if (enabled != "no" && uris != "") {
            ok = 0; n = split(suites, s, " ")
            for (i = 1; i <= n; i++) if (s[i] ~ re) ok = 1
            if (ok) { n = split(uris, u, " "); for (i = 1; i <= n; i++) print u[i] }
          }
          uris = ""; suites = ""; enabled = ""; field = ""
        }
        /^[ \t]*#/ { next }
        /^[ \t]*$/ { flush(); next }
        /^[ \t]/ { if (field == "uris") uris = uris " " $0; else if (field == "suites") suites = suites " " $0; next }
        {
          key = tolower($0); sub(/:.*/, "", key); val = $0; sub(/^[^:]*:[ \t]*/, "", val)
          field = key
          if (key == "uris") uris = val; else if (key == "suites") suites = val; else if (key == "enabled") enabled = tolower(val)
        }
        END { flush() }' "$f"
    done
  } | grep -Ev '^(cdrom|file|copy):' | awk '!seen[$0]++'
}

# The one URI to use: KLMS_DEBIAN_MIRROR, else the first of the system's. Fails with a message that
# names the variable when there is none.
klms_debian_archive_uri() {
  if [[ -n "${KLMS_DEBIAN_MIRROR:-}" ]]; then
    echo "${KLMS_DEBIAN_MIRROR%/}"
    return 0
  fi
  local uri
  uri=$(klms_debian_archive_uris | head -1)
  if [[ -z "$uri" ]]; then
    echo "error: no Debian archive found in the apt sources under ${KLMS_APT_ETC:-/etc/apt}" \
         "(sources.list, sources.list.d/*.list or *.sources); set KLMS_DEBIAN_MIRROR to a Debian" \
         "archive URI (the one that serves dists/sid)" >&2
    return 1
  fi
  echo "${uri%/}"
}

# Writes a deb-src list for SUITE... of the archive to stdout, signed by Debian's archive keyring.
#   klms_debian_src_list SUITE...
klms_debian_src_list() {
  local uri suite
  uri=$(klms_debian_archive_uri) || return 1
  for suite in "$@"; do
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main"
  done
}
