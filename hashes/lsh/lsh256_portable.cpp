// LSH-256 in plain C++: the reference backend ("lsh256-ref") and the fallback on CPUs without SSSE3.
#include <array>

#include "base/endian.h"
#include "hashes/lsh/lsh_internal.h"
#include "hashes/lsh/lsh_params.h"

namespace klms::hashes {
namespace {

using endian::load_le32;

void compress(std::uint32_t cv[16], const std::uint8_t* blocks, std::size_t count) noexcept {
  std::array<std::uint32_t, lsh::kCvWords> state;
  for (int l = 0; l < 16; ++l) state[l] = cv[l];
  for (std::size_t b = 0; b < count; ++b, blocks += kLsh256BlockBytes) {
    std::array<std::uint32_t, lsh::kBlockWords> words;
    for (int i = 0; i < 32; ++i) words[i] = load_le32(blocks + 4 * i);
    lsh::compress_words<std::uint32_t>(state, words);
  }
  for (int l = 0; l < 16; ++l) cv[l] = state[l];
}

void digest(const std::uint32_t iv[16], const std::uint8_t* prefix, std::size_t prefix_len, const std::uint8_t* in,
            std::size_t len, std::uint8_t* out, std::size_t out_bytes) noexcept {
  lsh_detail::lsh256_digest_generic(&compress, iv, prefix, prefix_len, in, len, out, out_bytes);
}

// One message at a time; the input of each is fully absorbed before its output is written.
void hash_many(const std::uint8_t* prefix, const std::uint8_t* const* rests, std::size_t rest_len,
               std::uint8_t* const* outs, std::size_t count) noexcept {
  const std::uint32_t* iv = lsh256_iv(32);
  for (std::size_t k = 0; k < count; ++k) digest(iv, prefix, kLsh256PrefixBytes, rests[k], rest_len, outs[k], 32);
}

void update(Lsh256Context& ctx, const std::uint8_t* data, std::size_t len) noexcept {
  lsh_detail::lsh256_stream_update(ctx, data, len, &compress);
}

void final(Lsh256Context& ctx, std::uint8_t* out) noexcept { lsh_detail::lsh256_stream_final(ctx, out, &compress); }

}  // namespace

namespace lsh_detail {
constexpr Lsh256Implementation kLsh256Portable = {LshIsa::kPortable, "portable", 1,       &compress,
                                                  &digest,           &hash_many, &update, &final};
}  // namespace lsh_detail

const Lsh256Implementation& lsh256_portable() noexcept { return lsh_detail::kLsh256Portable; }

void lsh256_256_digest_portable(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept {
  digest(lsh256_iv(32), nullptr, 0, in, len, out, 32);
}

}  // namespace klms::hashes
