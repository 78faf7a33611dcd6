// LSH-512 with AVX2: each 4-word quarter is one 256-bit register. Called only when cpu_features().avx2.
#include "hashes/lsh/lsh512_simd_one.h"
#include "hashes/lsh/lsh_internal.h"

namespace klms::hashes {
namespace {

void compress(std::uint64_t cv[16], const std::uint8_t* blocks, std::size_t count) noexcept {
  lsh512_simd::compress_blocks(cv, blocks, count);
}

void digest(const std::uint64_t iv[16], const std::uint8_t* in, std::size_t len, std::uint8_t* out,
            std::size_t out_bytes) noexcept {
  lsh512_simd::digest(iv, in, len, out, out_bytes);
}

void update(Lsh512Context& ctx, const std::uint8_t* data, std::size_t len) noexcept {
  lsh_detail::lsh512_stream_update(ctx, data, len, &compress);
}

void final(Lsh512Context& ctx, std::uint8_t* out) noexcept { lsh_detail::lsh512_stream_final(ctx, out, &compress); }

}  // namespace

namespace lsh_detail {
constexpr Lsh512Implementation kLsh512Avx2 = {LshIsa::kAvx2, "avx2", &compress, &digest, &update, &final};
}  // namespace lsh_detail

const Lsh512Implementation& lsh512_avx2() noexcept { return lsh_detail::kLsh512Avx2; }

}  // namespace klms::hashes
