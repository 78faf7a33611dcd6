// The hash backends the LMS engine runs on, and the table that names them.
//
// A backend hashes messages that start with the 16-byte LMS key identifier I: every hash LMS computes
// does. The backend absorbs I once per key (init_prefix) and then hashes the rest of each message, so
// Tandem-DM saves one of its four blocks and the others just copy 16 bytes. All outputs are 32 bytes;
// the n = 24 parameter sets use the first 24.
//
// A Backend's function pointers are fixed when the table is built (once, at first use) from the
// CPU's features. Nothing on the hashing path checks the CPU, allocates, locks or calls OpenSSL.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace klms::hashes {

inline constexpr std::size_t kOutputBytes = 32;
inline constexpr std::size_t kIdentifierBytes = 16;

// Opaque state after absorbing I. Filled by init_prefix, read-only afterwards (safe to share).
struct alignas(64) PrefixState {
  std::uint8_t bytes[192];
};

// Opaque streaming state for I || data of any length (the LMS message hash, long public-key hashes).
struct alignas(64) StreamState {
  std::uint8_t bytes[1024];
};

enum class BackendId : std::uint8_t {
  kSha256Portable,
  kSha256Hw,
  kLsh256Ref,
  kLsh256Simd,
  kTdmCham,
  kTdmLea,
  kTdmAria,
  kShake256,
};
inline constexpr std::size_t kBackendCount = 8;

// The hash families of docs/params.md "Hash families" (before truncation to n = 24).
enum class HashFamily : std::uint8_t { kSha256, kShake256, kLsh256, kTdmCham, kTdmLea, kTdmAria };
inline constexpr std::size_t kHashFamilyCount = 6;

struct Backend {
  BackendId id;
  HashFamily family;
  std::string_view name;         // the study's name: "sha256-portable", "lsh256-simd", ...
  std::string_view implementation;  // what actually runs on this CPU: "avx2", "sse2", "sha-ni", "portable"

  // Absorb the 16-byte identifier I.
  void (*init_prefix)(PrefixState& prefix, const std::uint8_t* identifier) noexcept;
  // out (32 bytes) = H(I || rest).
  void (*hash_one)(const PrefixState& prefix, const std::uint8_t* rest, std::size_t rest_len,
                   std::uint8_t* out) noexcept;
  // outs[k] (32 bytes each) = H(I || rests[k]) for k < count; every rests[k] is rest_len bytes.
  // Any count is allowed; backends with SIMD lanes or interleaved streams hash several at once.
  // outs[k] may alias rests[k] (the chain step hashes in place).
  void (*hash_many)(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                    std::uint8_t* const* outs, std::size_t count) noexcept;
  // Streaming H(I || data...).
  void (*stream_init)(StreamState& state, const PrefixState& prefix) noexcept;
  void (*stream_update)(StreamState& state, const std::uint8_t* data, std::size_t len) noexcept;
  void (*stream_final)(StreamState& state, std::uint8_t* out) noexcept;
  // Plain one-shot H(in), no prefix: for known-answer tests and hash-level benchmarks.
  void (*digest)(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept;
  // How many messages hash_many takes at once at full speed (1 when it gains nothing).
  std::size_t lanes;
  // Optional (null: the caller steps the chains with hash_many). The LM-OTS chains of key generation
  // (docs/design.md "Hash backends"), in place: chain c is the buffer chains + c * stride (stride >= 39)
  // holding u32(q) || u16(i) || u8(j) || tmp, rest_len = 7 + n bytes; for t = from .. to-1 in turn
  // it sets byte 6 to u8(t) and writes H(I || the first rest_len bytes) (32 bytes) at offset 7. The
  // buffers end exactly as from a loop of hash_many calls, one per t, over all count chains. A backend
  // with lanes keeps a group of chains in its registers for all steps (no load, transpose or store
  // between steps); only the j byte and tmp change from step to step.
  void (*chain_steps)(const PrefixState& prefix, std::uint8_t* chains, std::size_t stride, std::size_t count,
                      std::size_t rest_len, unsigned from, unsigned to) noexcept = nullptr;
};

// SHA-256 of a byte string (FIPS 180-4) with the portable code: the one way the engine and the state
// store take SHA-256 for identities and checksums (key id, levels digest, state-slot checksum,
// file-handle digest). Those run once per key load or reservation, so no CPU dispatch; the bytes are
// the same as any SHA-256 backend's. Defined in hashes/sha2 (klms_sha2 links it, as the state store
// does, without the backend table).
void sha256_digest(const std::uint8_t* in, std::size_t len, std::uint8_t* out32) noexcept;

// The backend with this id; null when this CPU cannot run it (it is then absent from the table,
// not a stand-in under its name). The rows that define every backend: hashes/family_table.h.
const Backend* backend(BackendId id) noexcept;
bool available(BackendId id) noexcept;
// By study name ("sha256-hw", ...); null when unknown or not available on this CPU.
const Backend* find_backend(std::string_view name) noexcept;
// All backends available on this CPU, in BackendId order.
std::span<const Backend* const> available_backends() noexcept;
// The fastest correct backend for a hash family on this CPU (what the provider uses): the family
// row's fast backend where this CPU runs it, else its portable one.
const Backend& fastest_backend(HashFamily family) noexcept;

// Secret input (docs/threat-model.md "Secrets in memory"). The PRF input I || u32(q) || u16(j) || 0xFF
// || SEED and the chain values of LM-OTS private elements pass through the backends' stack buffers:
// padded blocks, message schedules, lane transposes, spilled vector registers. Rather than wipe those
// inside every kernel on every call (the one-block path is the hot path, and one hash_many call of the
// LSH lanes writes ~30 KB of expanded message), the engine wipes the stack once after each operation
// on secret input: wipe_hash_stack(b) zeroes hash_stack_bytes(b) of stack just below the caller's
// frame, which covers every frame that hash_one and hash_many of backend b (or anything it calls)
// used from there. test/unit/hashes/stack_wipe_test.cpp measures each backend's depth on the secret
// lengths and checks it is within hash_stack_bytes.
std::size_t hash_stack_bytes(const Backend& b) noexcept;
// Zeroes the vector registers (wipe_vector_registers), then hash_stack_bytes(b) bytes below the
// caller's frame with stores the compiler cannot drop.
// Call it from the function that made the backend calls (or one above it), after the last of them.
void wipe_hash_stack(const Backend& b) noexcept;

// Zeroes the vector registers (x86-64: xmm/ymm/zmm 0-15, and zmm16-31 where AVX-512 is there). A
// secret left in a register does not stay there: glibc's memcpy keeps its last bytes in ymm16-31,
// which little else touches, and the whole register file is written to memory by the lazy-binding
// resolver, by a signal frame, and into every thread created meanwhile (which inherits it) — on a
// thread stack that outlives the thread (docs/threat-model.md "Secrets in memory"). Call it after
// copying SEED with memcpy and after hashing secret input (wipe_hash_stack does).
void wipe_vector_registers() noexcept;

}  // namespace klms::hashes
