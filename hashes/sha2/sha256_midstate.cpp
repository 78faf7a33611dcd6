// The dispatch of sha256_midstate.h and its SHA-NI path. Compiled without special flags: the SHA-NI
// and AVX-512 code it calls lives in their own files and runs only after the CPU check.
#include "hashes/sha2/sha256_midstate.h"

#include <cstring>

#include "hashes/cpu_features.h"
#include "hashes/cpu_paths.h"
#include "hashes/sha2/sha256_common.h"
#include "hashes/sha2/sha256_portable.h"
#include "hashes/sha2/sha256_shani.h"

namespace klms::hashes::sha256 {
namespace {

void compress_from_midstate_shani(const std::uint32_t* midstate, const std::uint8_t* const* blocks,
                                  std::uint8_t* const* outs, std::size_t count) noexcept {
  for (std::size_t k = 0; k < count; ++k) {
    std::uint32_t h[8];
    std::memcpy(h, midstate, sizeof h);
    shani::compress_blocks(h, blocks[k], 1);
    for (std::size_t i = 0; i < 8; ++i) store_be32(outs[k] + 4 * i, h[i]);
  }
}

}  // namespace

void midstate_of(const std::uint8_t* block, std::uint32_t* out8) noexcept {
  std::memcpy(out8, kInitialState, 8 * sizeof(std::uint32_t));
  compress_blocks(out8, block, 1);  // the portable one: once per key
}

CompressFromMidstate compress_from_midstate() noexcept {
  if (!cpu_features().sha_ni) return nullptr;
  if (chosen_path(PathSlot::kSha256Many) == HashPath::kAvx512) return lanes::compress_from_midstate_avx512;
  return compress_from_midstate_shani;
}

DigestMany digest_many() noexcept {
  if (!cpu_features().sha_ni) return nullptr;
  if (chosen_path(PathSlot::kSha256Many) == HashPath::kAvx512) return lanes::digest_many_avx512;
  return shani::digest_many;
}

}  // namespace klms::hashes::sha256
