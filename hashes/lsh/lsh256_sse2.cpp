// LSH-256 with SSE2 + SSSE3 (pshufb): one message on 128-bit registers,
// hash_many one message at a time. Called only when cpu_features() has SSSE3.
#include "hashes/lsh/lsh256_simd_one.h"
#include "hashes/lsh/lsh_internal.h"

namespace klms::hashes {
namespace {

void compress(std::uint32_t cv[16], const std::uint8_t* blocks, std::size_t count) noexcept {
  lsh256_simd::compress_blocks(cv, blocks, count);
}

void digest(const std::uint32_t iv[16], const std::uint8_t* prefix, std::size_t prefix_len, const std::uint8_t* in,
            std::size_t len, std::uint8_t* out, std::size_t out_bytes) noexcept {
  lsh256_simd::digest(iv, prefix, prefix_len, in, len, out, out_bytes);
}

// One message at a time: 4-lane batches on 128-bit registers measured slower than this.
void hash_many(const std::uint8_t* prefix, const std::uint8_t* const* rests, std::size_t rest_len,
               std::uint8_t* const* outs, std::size_t count) noexcept {
  for (std::size_t k = 0; k < count; ++k) {
    lsh256_simd::digest(lsh::kIv256_256.data(), prefix, kLsh256PrefixBytes, rests[k], rest_len, outs[k], 32);
  }
}

void update(Lsh256Context& ctx, const std::uint8_t* data, std::size_t len) noexcept {
  lsh_detail::lsh256_stream_update(ctx, data, len, &compress);
}

void final(Lsh256Context& ctx, std::uint8_t* out) noexcept { lsh_detail::lsh256_stream_final(ctx, out, &compress); }

}  // namespace

namespace lsh_detail {
constexpr Lsh256Implementation kLsh256Sse2 = {LshIsa::kSse2, "sse2",     1,       &compress,
                                              &digest,       &hash_many, &update, &final};
}  // namespace lsh_detail

const Lsh256Implementation& lsh256_sse2() noexcept { return lsh_detail::kLsh256Sse2; }

void lsh256_256_digest_sse2(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept {
  lsh256_simd::digest(lsh::kIv256_256.data(), nullptr, 0, in, len, out, 32);
}

}  // namespace klms::hashes
