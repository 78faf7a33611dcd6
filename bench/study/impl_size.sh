#!/usr/bin/env bash
# Implementation size of each hash backend, counted from the sources in hashes/ and its family folders:
#   backend,part,files,lines,code_lines
# part: core (the primitive itself, portable), fast (SIMD / many-message code), glue (the backend
# table entry, saved prefix, streaming and dispatch). code_lines leaves out blank lines and lines
# that are only a // comment. A file shared by several backends counts for each of them; the
# backend table and CPU detection shared by all are reported as backend "(shared)". Files of
# hashes/ that no backend claims are listed on stderr, so the mapping stays honest as code changes.
#   bench/study/impl_size.sh hashes/ > impl-size.csv
set -euo pipefail
dir="${1:-hashes}"

declare -A parts=(
  [sha256-portable:core]="sha256_common.h sha256_rounds.h sha256_portable.h sha256_portable.cpp"
  [sha256-portable:fast]=""
  [sha256-portable:glue]="sha256_prefix.h sha256_prefix.cpp sha256_stream.h"
  [sha256-hw:core]="sha256_common.h"
  [sha256-hw:fast]="sha256_shani.h sha256_shani.cpp sha256_lanes.h sha256_avx512_ops.h sha256_avx512.cpp sha256_chains_avx512.cpp sha256_avx2.cpp"
  [sha256-hw:glue]="sha256_hw.cpp sha256_prefix.h sha256_prefix.cpp sha256_stream.h"
  [lsh256-ref:core]="lsh_params.h lsh256.h lsh256_portable.cpp"
  [lsh256-ref:fast]=""
  [lsh256-ref:glue]="lsh_backend.cpp lsh_internal.h lsh_stream.cpp lsh_isa.h lsh_isa.cpp lsh256_dispatch.cpp"
  [lsh256-simd:core]="lsh_params.h lsh256.h"
  [lsh256-simd:fast]="lsh256_simd_one.h lsh256_simd_lanes.h lsh_simd_chunks.h lsh256_sse2.cpp lsh256_avx2.cpp lsh256_avx512.cpp"
  [lsh256-simd:glue]="lsh_backend.cpp lsh_internal.h lsh_stream.cpp lsh_isa.h lsh_isa.cpp lsh256_dispatch.cpp"
  [tdm-cham:core]="cham.h cham.cpp tdm_core.h cipher_words.h tdm_ciphers.h"
  [tdm-cham:fast]="tdm_cham_lanes.h tdm_simd_avx2.h tdm_simd_avx512.h tdm_simd_driver.h tdm_cham_avx2.cpp tdm_cham_avx512.cpp"
  [tdm-cham:glue]="tdm_backend.h tdm_lanes.h tdm_cham.cpp"
  [tdm-lea:core]="lea.h lea.cpp tdm_core.h cipher_words.h tdm_ciphers.h"
  [tdm-lea:fast]="tdm_lea_lanes.h tdm_simd_avx2.h tdm_simd_avx512.h tdm_simd_driver.h tdm_lea_avx2.cpp tdm_lea_avx512.cpp"
  [tdm-lea:glue]="tdm_backend.h tdm_lanes.h tdm_lea.cpp"
  [tdm-aria:core]="aria.h aria.cpp aria_tables.h tdm_core.h cipher_words.h tdm_ciphers.h"
  [tdm-aria:fast]="tdm_aria_gfni_avx2.cpp"
  [tdm-aria:glue]="tdm_backend.h tdm_lanes.h tdm_aria.cpp"
  [shake256:core]="keccak.h keccak_constants.h keccak_round.h keccak_portable.cpp shake256.h"
  [shake256:fast]="keccak_simd.h keccak_avx2.cpp keccak_avx512.cpp shake256_many.cpp"
  [shake256:glue]="shake256.cpp"
  [(shared):glue]="backend.h backend.cpp families.h cpu_features.h cpu_features.cpp cpu_paths.h cpu_paths.cpp"
)
# Provider-only digest code (EVP streaming of LSH-512 etc.) is not part of any LMS backend.
not_backend="digests.h digests.cpp lsh_digests.cpp lsh512.h lsh512_portable.cpp lsh512_sse2.cpp lsh512_avx2.cpp lsh512_avx512.cpp lsh512_dispatch.cpp lsh512_simd_one.h CMakeLists.txt"

count() {  # prints "lines code_lines" of the existing files among the arguments
  local lines=0 code=0 f
  for f in "$@"; do
    # Each family has its folder under hashes/ (lsh/, sha2/, keccak/, blockcipher/, tdm/); file
    # names are unique across them.
    local path
    path=$(find "$dir" -name "$f" -type f | head -n 1)
    [[ -n "$path" ]] || { echo "impl_size: $f is missing under $dir" >&2; continue; }
    lines=$((lines + $(wc -l < "$path")))
    code=$((code + $(grep -cvE '^[[:space:]]*(//.*)?$' "$path" || true)))
  done
  echo "$lines $code"
}

echo "backend,part,files,lines,code_lines"
for backend in sha256-portable sha256-hw lsh256-ref lsh256-simd tdm-cham tdm-lea tdm-aria shake256 "(shared)"; do
  for part in core fast glue; do
    key="$backend:$part"
    [[ -v "parts[$key]" ]] || continue
    read -r lines code <<< "$(count ${parts[$key]})"
    files=$(wc -w <<< "${parts[$key]}")
    echo "$backend,$part,$files,$lines,$code"
  done
done

claimed=" $not_backend ${parts[*]} "
find "$dir" -type f | sort | while read -r f; do
  name=$(basename "$f")
  [[ "$claimed" == *" $name "* ]] || echo "impl_size: $name is not assigned to a backend" >&2
done
