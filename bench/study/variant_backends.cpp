#include "bench/study/variant_backends.h"

#include <cstring>

#include "hashes/backend_members.h"
#include "hashes/cpu_features.h"
#include "hashes/lsh/lsh256.h"
#include "hashes/sha2/sha256_shani.h"

namespace klms::bench {
namespace {

// Each variant below sets every entry of Backend it does not take unchanged from the real backend,
// chain_steps included (a variant that hashes one message at a time must not step its chains on
// lanes). An entry added to Backend must be decided on here too.
static_assert(hashes::kBackendMembers == 13, "hashes::Backend changed: decide the new entry for each variant");

using hashes::Backend;
using hashes::PrefixState;
using hashes::StreamState;

const Backend& simd() noexcept { return *hashes::find_backend("lsh256-simd"); }

// Largest one-shot LMS input: I || u32 q || u16 D_PBLC || 265 chains of 32 bytes (W1).
constexpr std::size_t kMaxOneShot = 16 + 6 + 265 * 32;

namespace naive {

// The prefix keeps I itself; every digest re-hashes I || rest from scratch, as a wrapper would.
void init_prefix(PrefixState& prefix, const std::uint8_t* identifier) noexcept {
  std::memcpy(prefix.bytes, identifier, hashes::kIdentifierBytes);
}

void hash_one(const PrefixState& prefix, const std::uint8_t* rest, std::size_t rest_len, std::uint8_t* out) noexcept {
  if (hashes::kIdentifierBytes + rest_len > kMaxOneShot) {  // never in LMS; keep the per-digest probe anyway
    (void)hashes::detect_cpu_features_uncached();
    simd().hash_one(prefix, rest, rest_len, out);
    return;
  }
  std::uint8_t message[kMaxOneShot];
  std::memcpy(message, prefix.bytes, hashes::kIdentifierBytes);
  std::memcpy(message + hashes::kIdentifierBytes, rest, rest_len);
  hashes::lsh256_digest_naive_dispatch(message, hashes::kIdentifierBytes + rest_len, out);
}

void hash_many(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
               std::uint8_t* const* outs, std::size_t count) noexcept {
  for (std::size_t k = 0; k < count; ++k) hash_one(prefix, rests[k], rest_len, outs[k]);
}

// One probe per streamed digest, like the one-shots.
void stream_init(StreamState& state, const PrefixState& prefix) noexcept {
  (void)hashes::detect_cpu_features_uncached();
  PrefixState real;
  simd().init_prefix(real, prefix.bytes);
  simd().stream_init(state, real);
}
void stream_update(StreamState& state, const std::uint8_t* data, std::size_t len) noexcept {
  simd().stream_update(state, data, len);
}
void stream_final(StreamState& state, std::uint8_t* out) noexcept { simd().stream_final(state, out); }

}  // namespace naive

namespace serial {

void hash_many(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
               std::uint8_t* const* outs, std::size_t count) noexcept {
  const Backend& b = simd();
  for (std::size_t k = 0; k < count; ++k) b.hash_one(prefix, rests[k], rest_len, outs[k]);
}

}  // namespace serial

Backend make_naive() noexcept {
  Backend b = simd();
  b.name = "lsh256-naive-dispatch";
  b.implementation = "cpuid-per-digest";
  b.init_prefix = &naive::init_prefix;
  b.hash_one = &naive::hash_one;
  b.hash_many = &naive::hash_many;
  b.stream_init = &naive::stream_init;
  b.stream_update = &naive::stream_update;
  b.stream_final = &naive::stream_final;
  b.digest = &hashes::lsh256_digest_naive_dispatch;
  b.chain_steps = nullptr;  // one message at a time: the engine steps the chains with hash_many
  b.lanes = 1;
  return b;
}

Backend make_serial() noexcept {
  Backend b = simd();
  b.name = "lsh256-serial";
  b.hash_many = &serial::hash_many;
  b.chain_steps = nullptr;
  b.lanes = 1;
  return b;
}

Backend make_shani() noexcept {
  Backend b = *hashes::find_backend("sha256-hw");
  b.name = "sha256-shani";
  b.implementation = "sha-ni-x4";
  b.hash_many = &hashes::sha256::shani::hash_many;
  b.chain_steps = nullptr;  // sha256-hw's chain_steps runs on AVX-512 lanes, not SHA-NI
  b.lanes = hashes::sha256::shani::kInterleave;
  return b;
}

}  // namespace

bool is_study_variant(const hashes::Backend& backend) noexcept {
  return backend.name == "lsh256-naive-dispatch" || backend.name == "lsh256-serial" || backend.name == "sha256-shani";
}

const hashes::Backend* find_variant_backend(std::string_view name) noexcept {
  if (name == "sha256-shani") {
    if (hashes::find_backend("sha256-hw") == nullptr) return nullptr;
    static const Backend b = make_shani();
    return &b;
  }
  if (hashes::find_backend("lsh256-simd") == nullptr) return nullptr;
  if (name == "lsh256-naive-dispatch") {
    static const Backend b = make_naive();
    return &b;
  }
  if (name == "lsh256-serial") {
    static const Backend b = make_serial();
    return &b;
  }
  return nullptr;
}

}  // namespace klms::bench
