// LSH-256 (KS X 3262): LSH-256-256 and LSH-256-224, byte-oriented.
//
// Several implementations of the same function exist (portable C++, SSE2/SSSE3, AVX2 (hash_many on
// word-sliced lanes or on message lanes), AVX-512VL);
// each is a table of function pointers. lsh256_fastest() picks one once, from the path table of
// cpu_paths.h; the per-ISA accessors exist so tests and benchmarks can run each one directly. Calling an
// implementation whose ISA the CPU lacks (lsh_isa_supported() == false) is undefined.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hashes/lsh/lsh_isa.h"

namespace klms::hashes {

inline constexpr std::size_t kLsh256BlockBytes = 128;
inline constexpr std::size_t kLsh256PrefixBytes = 16;  // the LMS identifier I that hash_many prepends

// Streaming state. Trivially copyable: duplicating a context is a memcpy. LSH has no length field,
// so no message counter is needed; `buffered` is the only size kept and is always < 128.
struct alignas(64) Lsh256Context {
  std::uint32_t cv[16];
  std::uint8_t buffer[kLsh256BlockBytes];
  std::uint64_t buffered;
  std::uint64_t output_bytes;  // 32 (LSH-256-256) or 28 (LSH-256-224)
};

// One implementation of LSH-256 and the paths built on its compression function.
struct Lsh256Implementation {
  LshIsa isa;
  std::string_view name;  // lsh_isa_name(isa)
  std::size_t lanes;      // how many messages hash_many carries at once

  // Compresses `block_count` whole 128-byte blocks into cv (natural word order).
  void (*compress)(std::uint32_t cv[16], const std::uint8_t* blocks, std::size_t block_count) noexcept;
  // out = the first out_bytes of LSH-256 with this IV over (prefix || in). prefix_len is 0 or 16.
  void (*digest)(const std::uint32_t iv[16], const std::uint8_t* prefix, std::size_t prefix_len, const std::uint8_t* in,
                 std::size_t len, std::uint8_t* out, std::size_t out_bytes) noexcept;
  // outs[k] (32 bytes) = LSH-256-256(prefix[0..16) || rests[k]) for k < count, every rest rest_len bytes.
  // outs[k] may alias rests[k]; all of a message is read before its digest is written.
  void (*hash_many)(const std::uint8_t* prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                    std::uint8_t* const* outs, std::size_t count) noexcept;
  // Streaming, on a context prepared by lsh256_init. Any split, any total length.
  void (*update)(Lsh256Context& ctx, const std::uint8_t* data, std::size_t len) noexcept;
  void (*final)(Lsh256Context& ctx, std::uint8_t* out) noexcept;  // writes ctx.output_bytes bytes
};

// Each implementation, to be called only when lsh_isa_supported(its isa).
const Lsh256Implementation& lsh256_portable() noexcept;
const Lsh256Implementation& lsh256_sse2() noexcept;
const Lsh256Implementation& lsh256_avx2() noexcept;
const Lsh256Implementation& lsh256_avx2_msg() noexcept;  // lsh256_avx2 but hash_many on message lanes
const Lsh256Implementation& lsh256_avx512() noexcept;
// The implementation for an ISA level, or null when this CPU cannot run it.
const Lsh256Implementation* lsh256_implementation(LshIsa isa) noexcept;
// The fastest implementation on this CPU, chosen on first call and kept.
const Lsh256Implementation& lsh256_fastest() noexcept;

// Starts a context for LSH-256-256 (output_bytes 32) or LSH-256-224 (28).
void lsh256_init(Lsh256Context& ctx, std::size_t output_bytes) noexcept;
// The IV for an output length of 32 or 28 bytes (16 words).
const std::uint32_t* lsh256_iv(std::size_t output_bytes) noexcept;

// One-shot LSH-256-256 through one specific implementation (tests, benchmarks).
void lsh256_256_digest_portable(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept;
void lsh256_256_digest_sse2(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept;
void lsh256_256_digest_avx2(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept;
void lsh256_256_digest_avx512(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept;

// The pitfall demonstration, NOT for real use: one-shot LSH-256-256 that runs CPUID
// (detect_cpu_features_uncached) on every call before choosing an implementation. On a virtual
// machine the CPUID exit costs more than the digest itself; benchmarks compare it with the
// chosen-once path.
void lsh256_digest_naive_dispatch(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept;

}  // namespace klms::hashes
