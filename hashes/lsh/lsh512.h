// LSH-512 (KS X 3262): LSH-512-512, -384, -256 and -224, byte-oriented.
//
// Same shape as lsh256.h: one function table per implementation, lsh512_fastest() chosen once.
// Calling an implementation whose ISA the CPU lacks (lsh_isa_supported() == false) is undefined.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hashes/lsh/lsh_isa.h"

namespace klms::hashes {

inline constexpr std::size_t kLsh512BlockBytes = 256;

// Streaming state; trivially copyable (dupctx = memcpy). `buffered` is always < 256.
struct alignas(64) Lsh512Context {
  std::uint64_t cv[16];
  std::uint8_t buffer[kLsh512BlockBytes];
  std::uint64_t buffered;
  std::uint64_t output_bytes;  // 64, 48, 32 or 28
};

struct Lsh512Implementation {
  LshIsa isa;
  std::string_view name;
  // Compresses `block_count` whole 256-byte blocks into cv (natural word order).
  void (*compress)(std::uint64_t cv[16], const std::uint8_t* blocks, std::size_t block_count) noexcept;
  // out = the first out_bytes of LSH-512 with this IV over in.
  void (*digest)(const std::uint64_t iv[16], const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                 std::size_t out_bytes) noexcept;
  void (*update)(Lsh512Context& ctx, const std::uint8_t* data, std::size_t len) noexcept;
  void (*final)(Lsh512Context& ctx, std::uint8_t* out) noexcept;  // writes ctx.output_bytes bytes
};

const Lsh512Implementation& lsh512_portable() noexcept;
const Lsh512Implementation& lsh512_sse2() noexcept;
const Lsh512Implementation& lsh512_avx2() noexcept;
const Lsh512Implementation& lsh512_avx512() noexcept;
const Lsh512Implementation* lsh512_implementation(LshIsa isa) noexcept;
const Lsh512Implementation& lsh512_fastest() noexcept;

// Starts a context for output_bytes 64, 48, 32 or 28.
void lsh512_init(Lsh512Context& ctx, std::size_t output_bytes) noexcept;
// The IV for an output length of 64, 48, 32 or 28 bytes (16 words).
const std::uint64_t* lsh512_iv(std::size_t output_bytes) noexcept;

}  // namespace klms::hashes
