// The two LSH-256 entries of the backend table: "lsh256-ref" (portable C++) and "lsh256-simd" (the
// fastest vectorized implementation on this CPU, fixed when the table is built).
#include <cstring>
#include <new>

#include "hashes/families.h"
#include "hashes/lsh/lsh_internal.h"
#include "hashes/lsh/lsh_params.h"

namespace klms::hashes {
namespace {

static_assert(sizeof(Lsh256Context) <= sizeof(StreamState) && alignof(Lsh256Context) <= alignof(StreamState));

// PrefixState holds I itself: LSH's 128-byte block leaves nothing to precompute for 16 bytes.
void init_prefix(PrefixState& prefix, const std::uint8_t* identifier) noexcept {
  std::memcpy(prefix.bytes, identifier, kIdentifierBytes);
}

Lsh256Context& context_of(StreamState& state) noexcept {
  return *std::launder(reinterpret_cast<Lsh256Context*>(state.bytes));
}

// Adapters from the Backend signatures to one implementation table, bound at compile time.
template <const Lsh256Implementation& kImpl>
struct Adapters {
  static void hash_one(const PrefixState& prefix, const std::uint8_t* rest, std::size_t rest_len,
                       std::uint8_t* out) noexcept {
    kImpl.digest(lsh::kIv256_256.data(), prefix.bytes, kIdentifierBytes, rest, rest_len, out, kOutputBytes);
  }
  static void hash_many(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                        std::uint8_t* const* outs, std::size_t count) noexcept {
    kImpl.hash_many(prefix.bytes, rests, rest_len, outs, count);
  }
  static void stream_init(StreamState& state, const PrefixState& prefix) noexcept {
    Lsh256Context* ctx = new (state.bytes) Lsh256Context;
    lsh256_init(*ctx, kOutputBytes);
    kImpl.update(*ctx, prefix.bytes, kIdentifierBytes);
  }
  static void stream_update(StreamState& state, const std::uint8_t* data, std::size_t len) noexcept {
    kImpl.update(context_of(state), data, len);
  }
  static void stream_final(StreamState& state, std::uint8_t* out) noexcept { kImpl.final(context_of(state), out); }
  static void digest(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept {
    kImpl.digest(lsh::kIv256_256.data(), nullptr, 0, in, len, out, kOutputBytes);
  }

  static Backend make(BackendId id, std::string_view name) noexcept {
    return Backend{id,         HashFamily::kLsh256, name,           kImpl.name,    &init_prefix, &hash_one,
                   &hash_many, &stream_init,        &stream_update, &stream_final, &digest,      kImpl.lanes};
  }
};

}  // namespace

Backend lsh256_ref_backend() noexcept {
  return Adapters<lsh_detail::kLsh256Portable>::make(BackendId::kLsh256Ref, "lsh256-ref");
}

Backend lsh256_simd_backend() noexcept {
  constexpr BackendId id = BackendId::kLsh256Simd;
  constexpr std::string_view name = "lsh256-simd";
  switch (lsh256_fastest().isa) {
    case LshIsa::kAvx512:
      return Adapters<lsh_detail::kLsh256Avx512>::make(id, name);
    case LshIsa::kAvx2:
      return Adapters<lsh_detail::kLsh256Avx2>::make(id, name);
    case LshIsa::kAvx2MessageLanes:
      return Adapters<lsh_detail::kLsh256Avx2Msg>::make(id, name);
    case LshIsa::kSse2:
      return Adapters<lsh_detail::kLsh256Sse2>::make(id, name);
    case LshIsa::kPortable:
      break;
  }
  return Adapters<lsh_detail::kLsh256Portable>::make(id, name);  // no usable SIMD (or KLMS_DISABLE_SIMD=1)
}

}  // namespace klms::hashes
