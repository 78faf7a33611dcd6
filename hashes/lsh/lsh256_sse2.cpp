// LSH-256 with SSE2 + SSSE3 (pshufb): one message on 128-bit registers,
// hash_many one message at a time. Called only when cpu_features() has SSSE3.
#include "hashes/lsh/lsh256_simd_one.h"
#include "hashes/lsh/lsh_internal.h"

namespace klms::hashes {
namespace {

// One message at a time: 4-lane batches on 128-bit registers measured slower than this.
void hash_many(const std::uint8_t* prefix, const std::uint8_t* const* rests, std::size_t rest_len,
               std::uint8_t* const* outs, std::size_t count) noexcept {
  for (std::size_t k = 0; k < count; ++k) {
    lsh256_simd::digest_prefixed(prefix, rests[k], rest_len, outs[k]);
  }
}

}  // namespace

namespace lsh_detail {
constexpr Lsh256Implementation kLsh256Sse2 = lsh256_simd::implementation(LshIsa::kSse2, "sse2", 1, &hash_many);
}  // namespace lsh_detail

const Lsh256Implementation& lsh256_sse2() noexcept { return lsh_detail::kLsh256Sse2; }

void lsh256_256_digest_sse2(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept {
  lsh256_simd::digest_256(in, len, out);
}

}  // namespace klms::hashes
