// "shake256": SHAKE256 with 32-byte output on the portable Keccak-f[1600].
//
// init_prefix keeps I as its two lanes: I || rest of up to 119 bytes (every one-block LMS input)
// is one permutation, with the block assembled on the stack. hash_many runs 8 (AVX-512) or 4 (AVX2)
// states at once when the CPU has them (shake256_many.cpp).
#include "hashes/keccak/shake256.h"

#include <cstring>
#include <new>

#include "hashes/cpu_features.h"
#include "hashes/cpu_paths.h"
#include "hashes/families.h"

namespace klms::hashes {
namespace shake256 {
namespace {

static_assert(sizeof(Sponge) <= sizeof(StreamState) && alignof(Sponge) <= alignof(StreamState));

Sponge& sponge_of(StreamState& state) noexcept { return *std::launder(reinterpret_cast<Sponge*>(state.bytes)); }

void xor_byte(keccak::State& lanes, std::size_t index, std::uint8_t value) noexcept {
  lanes[index / 8] ^= std::uint64_t{value} << (8 * (index % 8));
}

void squeeze_output(const keccak::State& lanes, std::uint8_t* out) noexcept {
  for (std::size_t i = 0; i < kOutputBytes / 8; ++i) keccak::store_le64(out + 8 * i, lanes[i]);
}

void init_prefix(PrefixState& state, const std::uint8_t* identifier) noexcept {
  Prefix& p = *new (state.bytes) Prefix{};
  p.identifier_lanes[0] = keccak::load_le64(identifier);
  p.identifier_lanes[1] = keccak::load_le64(identifier + 8);
  std::memcpy(p.identifier, identifier, sizeof p.identifier);
}

constexpr std::size_t kMaxOneBlockRest = kRateBytes - kIdentifierBytes - 1;

// H(I || rest) when it fits one block. Always inlined so a constant rest_len makes the copy a few moves.
[[gnu::always_inline]] inline void hash_one_block(const Prefix& p, const std::uint8_t* rest, std::size_t rest_len,
                                                  std::uint8_t* out) noexcept {
  constexpr std::size_t kRestLanes = kRateLanes - 2;
  alignas(8) std::uint8_t block[kRestLanes * 8];  // message bytes 16 .. 135
  if (rest_len != 0) std::memcpy(block, rest, rest_len);
  std::memset(block + rest_len, 0, sizeof block - rest_len);
  block[rest_len] = kDomainPadding;
  block[sizeof block - 1] |= 0x80;
  keccak::State lanes;
  lanes[0] = p.identifier_lanes[0];
  lanes[1] = p.identifier_lanes[1];
  for (std::size_t i = 0; i < kRestLanes; ++i) lanes[2 + i] = keccak::load_le64(block + 8 * i);
  for (std::size_t i = kRateLanes; i < keccak::kLanes; ++i) lanes[i] = 0;
  keccak::permute(lanes);
  squeeze_output(lanes, out);
}

}  // namespace

void hash_one(const PrefixState& prefix, const std::uint8_t* rest, std::size_t rest_len, std::uint8_t* out) noexcept {
  const Prefix& p = prefix_of(prefix);
  switch (rest_len) {  // the LMS one-block inputs: chains and PRF (n = 32, 24), leaves
    case 39: return hash_one_block(p, rest, 39, out);
    case 31: return hash_one_block(p, rest, 31, out);
    case 38: return hash_one_block(p, rest, 38, out);
    case 30: return hash_one_block(p, rest, 30, out);
    default: break;
  }
  if (rest_len <= kMaxOneBlockRest) return hash_one_block(p, rest, rest_len, out);
  Sponge sponge{};
  sponge.lanes[0] = p.identifier_lanes[0];
  sponge.lanes[1] = p.identifier_lanes[1];
  sponge.position = kIdentifierBytes;
  absorb(sponge, rest, rest_len);
  finish(sponge, out);
}

namespace {

void hash_many_portable(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                        std::uint8_t* const* outs, std::size_t count) noexcept {
  for (std::size_t k = 0; k < count; ++k) hash_one(prefix, rests[k], rest_len, outs[k]);
}

void stream_init(StreamState& state, const PrefixState& prefix) noexcept {
  Sponge& sponge = *new (state.bytes) Sponge{};
  sponge.lanes[0] = prefix_of(prefix).identifier_lanes[0];
  sponge.lanes[1] = prefix_of(prefix).identifier_lanes[1];
  sponge.position = kIdentifierBytes;
}

void stream_update(StreamState& state, const std::uint8_t* data, std::size_t len) noexcept {
  absorb(sponge_of(state), data, len);
}

void stream_final(StreamState& state, std::uint8_t* out) noexcept { finish(sponge_of(state), out); }

void digest(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept {
  Sponge sponge{};
  absorb(sponge, in, len);
  finish(sponge, out);
}

}  // namespace

void absorb(Sponge& sponge, const std::uint8_t* data, std::size_t len) noexcept {
  // Finish a partly filled block byte by byte.
  while (len != 0 && sponge.position != 0) {
    xor_byte(sponge.lanes, sponge.position, *data++);
    --len;
    if (++sponge.position == kRateBytes) {
      keccak::permute(sponge.lanes);
      sponge.position = 0;
    }
  }
  // Whole blocks a lane at a time.
  for (; len >= kRateBytes; len -= kRateBytes, data += kRateBytes) {
    for (std::size_t i = 0; i < kRateLanes; ++i) sponge.lanes[i] ^= keccak::load_le64(data + 8 * i);
    keccak::permute(sponge.lanes);
  }
  for (; len != 0; --len) xor_byte(sponge.lanes, sponge.position++, *data++);
}

void finish(Sponge& sponge, std::uint8_t* out) noexcept {
  xor_byte(sponge.lanes, sponge.position, kDomainPadding);
  xor_byte(sponge.lanes, kRateBytes - 1, 0x80);
  keccak::permute(sponge.lanes);
  squeeze_output(sponge.lanes, out);
}

DigestMany digest_many() noexcept {
  const HashPath path = chosen_path(PathSlot::kShake256Many);
  if (path == HashPath::kAvx512) return digest_many_x8_avx512;
  if (path == HashPath::kAvx2) return digest_many_x4_avx2;
  return nullptr;
}

}  // namespace shake256

Backend shake256_backend() noexcept {
  using namespace shake256;
  // hash_one is always the portable permutation; `implementation` names what hash_many uses (eight
  // or four states in SIMD lanes, or the portable loop).
  // The path table (cpu_paths.cpp) says which; it only names paths this CPU runs.
  const HashPath path = chosen_path(PathSlot::kShake256Many);
  const bool avx512 = path == HashPath::kAvx512;
  const bool avx2 = path == HashPath::kAvx2;
  return Backend{
      .id = BackendId::kShake256,
      .family = HashFamily::kShake256,
      .name = "shake256",
      .implementation = avx512 ? "avx512" : avx2 ? "avx2" : "portable",
      .init_prefix = init_prefix,
      .hash_one = hash_one,
      .hash_many = avx512 ? hash_many_x8_avx512 : avx2 ? hash_many_x4_avx2 : hash_many_portable,
      .stream_init = stream_init,
      .stream_update = stream_update,
      .stream_final = stream_final,
      .digest = digest,
      .lanes = avx512 ? std::size_t{8} : avx2 ? std::size_t{4} : std::size_t{1},
  };
}

}  // namespace klms::hashes
