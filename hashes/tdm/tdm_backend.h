// The Backend and DigestAlgorithm glue shared by TDM-CHAM, TDM-LEA and TDM-ARIA: the same functions
// instantiated for each cipher policy (see tdm_core.h).
#pragma once

#include <cstring>
#include <new>
#include <string_view>
#include <type_traits>

#include "hashes/backend.h"
#include "hashes/digests.h"
#include "hashes/tdm/tdm_core.h"

namespace klms::hashes::tdm {

static_assert(sizeof(ChainValue) <= sizeof(PrefixState));
static_assert(sizeof(Stream) <= sizeof(StreamState));
static_assert(std::is_trivially_copyable_v<Stream>);  // a digest context copy is memcpy
static_assert(sizeof(Stream) <= kMaxDigestContextBytes && alignof(Stream) <= kDigestContextAlign);

// The saved state after I is the chain value at the start of PrefixState.
inline ChainValue prefix_chain(const PrefixState& prefix) noexcept {
  ChainValue cv;
  std::memcpy(&cv, prefix.bytes, sizeof cv);
  return cv;
}

// Stream is trivially copyable, so the byte storage implicitly holds one (C++20 implicit lifetime).
inline Stream& stream_in(void* storage) noexcept { return *std::launder(static_cast<Stream*>(storage)); }

// IVs are given as bytes (docs/tandem-dm.md "IV derivation"); the chain value holds them in the cipher's word order.
constexpr ChainValue chain_from_bytes(const std::uint8_t (&bytes)[32], bool big_endian) noexcept {
  ChainValue cv{};
  for (int i = 0; i < 8; ++i) {
    std::uint32_t w = 0;
    for (int b = 0; b < 4; ++b) {
      const std::uint32_t byte = bytes[4 * i + b];
      w |= big_endian ? byte << (24 - 8 * b) : byte << (8 * b);
    }
    (i < 4 ? cv.g[i] : cv.h[i - 4]) = w;
  }
  return cv;
}

template <class Cipher>
struct Functions {
  static void init_prefix(PrefixState& prefix, const std::uint8_t* identifier) noexcept {
    std::memset(prefix.bytes, 0, sizeof prefix.bytes);
    const ChainValue cv = absorb_identifier<Cipher>(identifier);
    std::memcpy(prefix.bytes, &cv, sizeof cv);
  }

  static void hash_one(const PrefixState& prefix, const std::uint8_t* rest, std::size_t rest_len,
                       std::uint8_t* out) noexcept {
    hash_after_prefix<Cipher>(prefix_chain(prefix), rest, rest_len, out);
  }

  // One message after another (each is read fully before its output is written).
  static void hash_many(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                        std::uint8_t* const* outs, std::size_t count) noexcept {
    const ChainValue cv = prefix_chain(prefix);
    for (std::size_t k = 0; k < count; ++k) hash_after_prefix<Cipher>(cv, rests[k], rest_len, outs[k]);
  }

  static void stream_init(StreamState& state, const PrefixState& prefix) noexcept {
    stream_start(*::new (static_cast<void*>(state.bytes)) Stream, prefix_chain(prefix), kBlockBytes);
  }
  static void stream_update(StreamState& state, const std::uint8_t* data, std::size_t len) noexcept {
    tdm::stream_update<Cipher>(stream_in(state.bytes), data, len);
  }
  static void stream_final(StreamState& state, std::uint8_t* out) noexcept {
    stream_finish<Cipher>(stream_in(state.bytes), out);
  }

  static void digest(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept {
    hash_message<Cipher>(in, len, out);
  }

  // DigestAlgorithm callbacks.
  static void context_init(void* context) noexcept { stream_start(*::new (context) Stream, Cipher::kIv, 0); }
  static void context_update(void* context, const std::uint8_t* data, std::size_t len) noexcept {
    tdm::stream_update<Cipher>(stream_in(context), data, len);
  }
  static void context_final(void* context, std::uint8_t* out) noexcept {
    stream_finish<Cipher>(stream_in(context), out);
  }
};

using HashManyFunction = void (*)(const PrefixState&, const std::uint8_t* const*, std::size_t, std::uint8_t* const*,
                                  std::size_t) noexcept;

template <class Cipher>
Backend make_backend(BackendId id, HashFamily family, std::string_view name, std::string_view implementation,
                     HashManyFunction hash_many, std::size_t lanes) noexcept {
  using F = Functions<Cipher>;
  return Backend{id,           family,          name,           implementation, &F::init_prefix,
                 &F::hash_one, hash_many,       &F::stream_init, &F::stream_update, &F::stream_final,
                 &F::digest,   lanes};
}

template <class Cipher>
constexpr DigestAlgorithm make_digest(std::string_view name) noexcept {
  using F = Functions<Cipher>;
  return DigestAlgorithm{name, kBlockBytes, kDigestBytes, sizeof(Stream), &F::context_init, &F::context_update,
                         &F::context_final};
}

}  // namespace klms::hashes::tdm
