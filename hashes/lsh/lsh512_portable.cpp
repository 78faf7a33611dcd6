// LSH-512 in plain C++: the fallback on CPUs without SSSE3 and the reference for the others.
#include <array>

#include "base/endian.h"
#include "hashes/lsh/lsh_internal.h"
#include "hashes/lsh/lsh_params.h"

namespace klms::hashes {
namespace {

using endian::load_le64;

void compress(std::uint64_t cv[16], const std::uint8_t* blocks, std::size_t count) noexcept {
  std::array<std::uint64_t, lsh::kCvWords> state;
  for (int l = 0; l < 16; ++l) state[l] = cv[l];
  for (std::size_t b = 0; b < count; ++b, blocks += kLsh512BlockBytes) {
    std::array<std::uint64_t, lsh::kBlockWords> words;
    for (int i = 0; i < 32; ++i) words[i] = load_le64(blocks + 8 * i);
    lsh::compress_words<std::uint64_t>(state, words);
  }
  for (int l = 0; l < 16; ++l) cv[l] = state[l];
}

void digest(const std::uint64_t iv[16], const std::uint8_t* in, std::size_t len, std::uint8_t* out,
            std::size_t out_bytes) noexcept {
  lsh_detail::lsh512_digest_generic(&compress, iv, in, len, out, out_bytes);
}

void update(Lsh512Context& ctx, const std::uint8_t* data, std::size_t len) noexcept {
  lsh_detail::lsh512_stream_update(ctx, data, len, &compress);
}

void final(Lsh512Context& ctx, std::uint8_t* out) noexcept { lsh_detail::lsh512_stream_final(ctx, out, &compress); }

}  // namespace

namespace lsh_detail {
constexpr Lsh512Implementation kLsh512Portable = {LshIsa::kPortable, "portable", &compress, &digest, &update, &final};
}  // namespace lsh_detail

const Lsh512Implementation& lsh512_portable() noexcept { return lsh_detail::kLsh512Portable; }

}  // namespace klms::hashes
