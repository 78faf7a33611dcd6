// Shared plumbing of the LSH implementations: the block buffering of the streaming interface and a
// generic one-shot, both written once over a compression-function pointer. Only lsh*.cpp include it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hashes/lsh/lsh256.h"
#include "hashes/lsh/lsh512.h"

namespace klms::hashes::lsh_detail {

// The implementation tables, defined in lsh256_<isa>.cpp / lsh512_<isa>.cpp. Adapters in the
// backend and digest tables name them directly (one indirect call, no accessor call).
extern const Lsh256Implementation kLsh256Portable;
extern const Lsh256Implementation kLsh256Sse2;
extern const Lsh256Implementation kLsh256Avx2;
extern const Lsh256Implementation kLsh256Avx2Msg;
extern const Lsh256Implementation kLsh256Avx512;
extern const Lsh512Implementation kLsh512Portable;
extern const Lsh512Implementation kLsh512Sse2;
extern const Lsh512Implementation kLsh512Avx2;
extern const Lsh512Implementation kLsh512Avx512;

using Lsh256CompressFn = void (*)(std::uint32_t cv[16], const std::uint8_t* blocks, std::size_t count) noexcept;
using Lsh512CompressFn = void (*)(std::uint64_t cv[16], const std::uint8_t* blocks, std::size_t count) noexcept;

void lsh256_stream_update(Lsh256Context& ctx, const std::uint8_t* data, std::size_t len,
                          Lsh256CompressFn compress) noexcept;
void lsh256_stream_final(Lsh256Context& ctx, std::uint8_t* out, Lsh256CompressFn compress) noexcept;
// One-shot over (prefix || in) through whole-block compression calls; prefix_len < 128.
void lsh256_digest_generic(Lsh256CompressFn compress, const std::uint32_t iv[16], const std::uint8_t* prefix,
                           std::size_t prefix_len, const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                           std::size_t out_bytes) noexcept;

void lsh512_stream_update(Lsh512Context& ctx, const std::uint8_t* data, std::size_t len,
                          Lsh512CompressFn compress) noexcept;
void lsh512_stream_final(Lsh512Context& ctx, std::uint8_t* out, Lsh512CompressFn compress) noexcept;
void lsh512_digest_generic(Lsh512CompressFn compress, const std::uint64_t iv[16], const std::uint8_t* in,
                           std::size_t len, std::uint8_t* out, std::size_t out_bytes) noexcept;

}  // namespace klms::hashes::lsh_detail
