// LSH-512 with AVX-512VL: the AVX2 code with single-instruction rotations (vprolq). Called only when cpu_features() has
// AVX-512F and AVX-512VL.
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
constexpr Lsh512Implementation kLsh512Avx512 = {LshIsa::kAvx512, "avx512", &compress, &digest, &update, &final};
}  // namespace lsh_detail

const Lsh512Implementation& lsh512_avx512() noexcept { return lsh_detail::kLsh512Avx512; }

}  // namespace klms::hashes
