// compress_from_midstate and digest_many (sha256_midstate.h) on 16 AVX-512 lanes, with the lane
// kernel's block compression (sha256_lanes.h) and transposes (sha256_avx512_ops.h).
#include "hashes/sha2/sha256_avx512_ops.h"
#include "hashes/sha2/sha256_midstate.h"

namespace klms::hashes::sha256::lanes {
namespace {

using Avx512Kernel = detail::Kernel<Avx512>;

void group(const std::uint32_t* midstate, const std::uint8_t* const* blocks, std::uint8_t* const* outs) noexcept {
  Avx512Kernel::State h;
  for (std::size_t k = 0; k < 8; ++k) h[k] = Avx512::set1(midstate[k]);
  Avx512Kernel::Schedule w;
  Avx512Kernel::load_block(blocks, 0, w);
  Avx512Kernel::compress_next(h, w);
  Avx512::store_digests(h, outs);
}

}  // namespace

void compress_from_midstate_avx512(const std::uint32_t* midstate, const std::uint8_t* const* blocks,
                                   std::uint8_t* const* outs, std::size_t count) noexcept {
  constexpr std::size_t kLanes = Avx512::kLanes;
  std::size_t k = 0;
  for (; count - k >= kLanes; k += kLanes) group(midstate, blocks + k, outs + k);
  if (k == count) return;
  // The idle lanes compress the first real block again into a scratch output.
  alignas(64) std::uint8_t sink[kLanes][32];
  const std::uint8_t* b[kLanes];
  std::uint8_t* o[kLanes];
  for (std::size_t l = 0; l < kLanes; ++l) {
    b[l] = k + l < count ? blocks[k + l] : blocks[k];
    o[l] = k + l < count ? outs[k + l] : sink[l];
  }
  group(midstate, b, o);
}

void digest_many_avx512(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                        std::size_t count) noexcept {
  Avx512Kernel::digest_many(ins, len, outs, count);
}

}  // namespace klms::hashes::sha256::lanes
