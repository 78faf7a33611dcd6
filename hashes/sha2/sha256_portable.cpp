// "sha256-portable": SHA-256 in plain C++, the study's software baseline. Unrolled rounds and the
// precomputed rounds 0-3 of I (sha256_prefix.h), but no SIMD, no intrinsics and (by the build's
// -fno-tree-vectorize) no compiler vectorization; hash_many simply loops.
#include <cstring>

#include "hashes/families.h"
#include "hashes/sha2/sha256_portable.h"
#include "hashes/sha2/sha256_rounds.h"
#include "hashes/sha2/sha256_stream.h"

namespace klms::hashes {
namespace sha256 {
namespace {

void add_into(std::uint32_t* h, const Slots& v) noexcept {
  for (std::size_t i = 0; i < 8; ++i) h[i] += v[i];
}

// Block 0 of I || rest: rounds 4-63 from the stored state; `rest48` holds message bytes 16..63.
void compress_first_block(const Prefix& p, const std::uint8_t* rest48, std::uint32_t* h) noexcept {
  Schedule w;
  std::memcpy(w, p.first_words, 4 * sizeof(std::uint32_t));
  for (std::size_t i = 4; i < 16; ++i) w[i] = load_be32(rest48 + 4 * (i - 4));
  Slots v;
  std::memcpy(v, p.slots, sizeof v);
  rounds<4, 64>(v, w);
  std::memcpy(h, kInitialState, sizeof(Slots));
  add_into(h, v);
}

// H(I || rest) for any rest_len. Always inlined so that a constant rest_len (the one-block LMS
// lengths below) turns the copies into a few moves.
[[gnu::always_inline]] inline void hash_prefixed(const Prefix& p, const std::uint8_t* rest, std::size_t rest_len,
                                                 std::uint8_t* out) noexcept {
  constexpr std::size_t kFirstRest = kBlockBytes - kIdentifierBytes;  // rest bytes in block 0
  const std::uint64_t total = kIdentifierBytes + rest_len;
  std::uint32_t h[8];
  alignas(16) std::uint8_t last[2 * kBlockBytes];
  if (rest_len < kFirstRest) {
    // The whole message ends in block 0 (and its padding may spill into block 1).
    const bool one_block = rest_len <= kMaxOneBlockBytes - kIdentifierBytes;
    if (rest_len != 0) std::memcpy(last, rest, rest_len);
    std::memset(last + rest_len, 0, (one_block ? kFirstRest : sizeof last) - rest_len);
    last[rest_len] = 0x80;
    if (one_block) {
      store_be64(last + kFirstRest - kLengthFieldBytes, total << 3);
      compress_first_block(p, last, h);
    } else {
      compress_first_block(p, last, h);
      store_be64(last + kFirstRest + kBlockBytes - kLengthFieldBytes, total << 3);
      compress_blocks(h, last + kFirstRest, 1);
    }
  } else {
    compress_first_block(p, rest, h);
    rest += kFirstRest;
    const std::size_t remaining = rest_len - kFirstRest;
    const std::size_t whole = remaining / kBlockBytes;
    if (whole != 0) compress_blocks(h, rest, whole);
    const std::size_t tail = remaining % kBlockBytes;
    if (tail != 0) std::memcpy(last, rest + whole * kBlockBytes, tail);
    compress_blocks(h, last, pad_final_blocks(last, tail, total));
  }
  store_digest(h, out);
}

void portable_hash_one(const PrefixState& prefix, const std::uint8_t* rest, std::size_t rest_len,
                       std::uint8_t* out) noexcept {
  const Prefix& p = prefix_of(prefix);
  switch (rest_len) {  // the LMS one-block inputs: chains and PRF (n = 32, 24), leaves
    case 39: return hash_prefixed(p, rest, 39, out);
    case 31: return hash_prefixed(p, rest, 31, out);
    case 38: return hash_prefixed(p, rest, 38, out);
    case 30: return hash_prefixed(p, rest, 30, out);
    default: return hash_prefixed(p, rest, rest_len, out);
  }
}

// The baseline gains nothing from batching: one message after the other.
void portable_hash_many(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                        std::uint8_t* const* outs, std::size_t count) noexcept {
  for (std::size_t k = 0; k < count; ++k) portable_hash_one(prefix, rests[k], rest_len, outs[k]);
}

using PortableStreaming = Streaming<compress_blocks>;

}  // namespace

void compress_blocks(std::uint32_t* h, const std::uint8_t* blocks, std::size_t count) noexcept {
  for (; count != 0; --count, blocks += kBlockBytes) {
    Schedule w;
    for (std::size_t i = 0; i < 16; ++i) w[i] = load_be32(blocks + 4 * i);
    Slots v;
    std::memcpy(v, h, sizeof v);
    rounds<0, 64>(v, w);
    add_into(h, v);
  }
}

}  // namespace sha256

void sha256_digest(const std::uint8_t* in, std::size_t len, std::uint8_t* out32) noexcept {
  sha256::PortableStreaming::digest(in, len, out32);
}

Backend sha256_portable_backend() noexcept {
  using namespace sha256;
  return Backend{
      .id = BackendId::kSha256Portable,
      .family = HashFamily::kSha256,
      .name = "sha256-portable",
      .implementation = "portable",
      .init_prefix = init_prefix,
      .hash_one = portable_hash_one,
      .hash_many = portable_hash_many,
      .stream_init = PortableStreaming::init,
      .stream_update = PortableStreaming::update,
      .stream_final = PortableStreaming::final,
      .digest = PortableStreaming::digest,
      .lanes = 1,
  };
}

}  // namespace klms::hashes
