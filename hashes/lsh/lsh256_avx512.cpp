// LSH-256 with AVX-512F/VL: the AVX2 one-message code with single-instruction rotations (vprold),
// hash_many on 16 lanes of 512-bit registers (8-lane 256-bit batches for the rest). Called only
// when cpu_features() has AVX-512F and AVX-512VL.
//
// GCC 12's AVX-512 intrinsics read _mm512_undefined_*() and trip -Wuninitialized once inlined
// (GCC bug 105593); silence it for the intrinsic headers only, not for this code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include "hashes/lsh/lsh256_simd_lanes.h"
#include "hashes/lsh/lsh256_simd_one.h"
#include "hashes/lsh/lsh_internal.h"

namespace klms::hashes {
namespace {

// Leftovers (measured: a 16-lane batch costs ~5 one-shots, an 8-lane batch ~3.4): 10 or more take
// a padded 16-lane batch; otherwise an 8-lane batch, then a padded one for 4 or more.
constexpr std::size_t kPadWideFrom = 10;
constexpr std::size_t kPadNarrowFrom = 4;

void compress(std::uint32_t cv[16], const std::uint8_t* blocks, std::size_t count) noexcept {
  lsh256_simd::compress_blocks(cv, blocks, count);
}

void digest(const std::uint32_t iv[16], const std::uint8_t* prefix, std::size_t prefix_len, const std::uint8_t* in,
            std::size_t len, std::uint8_t* out, std::size_t out_bytes) noexcept {
  lsh256_simd::digest(iv, prefix, prefix_len, in, len, out, out_bytes);
}

void hash_many(const std::uint8_t* prefix, const std::uint8_t* const* rests, std::size_t rest_len,
               std::uint8_t* const* outs, std::size_t count) noexcept {
  using lsh256_simd::Avx512x16Lanes;
  using lsh256_simd::Avx8Lanes;
  lsh256_simd::hash_many_lanes<Avx512x16Lanes, Avx8Lanes, kPadWideFrom, kPadNarrowFrom>(
      prefix, rests, rest_len, outs, count,
      [](const std::uint8_t* p, const std::uint8_t* rest, std::size_t n, std::uint8_t* out) noexcept {
        lsh256_simd::digest(lsh::kIv256_256.data(), p, kLsh256PrefixBytes, rest, n, out, 32);
      });
}

void update(Lsh256Context& ctx, const std::uint8_t* data, std::size_t len) noexcept {
  lsh_detail::lsh256_stream_update(ctx, data, len, &compress);
}

void final(Lsh256Context& ctx, std::uint8_t* out) noexcept { lsh_detail::lsh256_stream_final(ctx, out, &compress); }

}  // namespace

namespace lsh_detail {
constexpr Lsh256Implementation kLsh256Avx512 = {LshIsa::kAvx512, "avx512",   16,      &compress,
                                                &digest,         &hash_many, &update, &final};
}  // namespace lsh_detail

const Lsh256Implementation& lsh256_avx512() noexcept { return lsh_detail::kLsh256Avx512; }

void lsh256_256_digest_avx512(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept {
  lsh256_simd::digest(lsh::kIv256_256.data(), nullptr, 0, in, len, out, 32);
}

}  // namespace klms::hashes
