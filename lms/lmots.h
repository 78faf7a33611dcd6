// LM-OTS (RFC 8554 §4) with many-message hashing: the p chains of a signature, and the chains of
// several leaves during key generation, are independent, so each chain step hashes all active
// chains in one hash_many call.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lms/params.h"
#include "lms/tree_key.h"

namespace klms::lms {

inline constexpr std::size_t kMaxP = 265;       // LMOTS_*_N32_W1
inline constexpr std::size_t kChainStride = 48;  // u32 q || u16 i || u8 j || tmp (up to 32 + 8 spare)
// Leaves whose chains are hashed together: 16 fills the 16 AVX-512 lanes with every leaf's public-key
// hash, and 16 * p chains are whole groups of 16 for every p.
inline constexpr unsigned kLeafBatch = 16;

// The p base-2^w digits of Q || Cksm(Q) (RFC 8554 §4.4 coef and §4.5 checksum).
void ots_digits(const OtsParams& ots, const std::uint8_t* q_digest, std::uint8_t* digits) noexcept;

// Q = H(I || u32(q) || D_MESG || C || message), streamed.
class MessageHasher {
 public:
  MessageHasher(const TreeHasher& hasher, std::uint32_t q, const std::uint8_t* randomizer, std::size_t n) noexcept;
  void update(const std::uint8_t* data, std::size_t len) noexcept;
  void finish(std::uint8_t* out32) noexcept;

 private:
  const TreeHasher* hasher_;
  hashes::StreamState state_;
};

// Scratch for key generation (on the heap: ~400 KB): chain buffers of kLeafBatch leaves, their
// public-key inputs, and the chain pointers of backends without chain_steps.
struct OtsKeygenScratch {
  alignas(64) std::uint8_t chains[kLeafBatch * kMaxP * kChainStride];
  alignas(64) std::uint8_t public_inputs[kLeafBatch * (6 + kMaxP * kMaxHashBytes)];
  std::uint8_t* chain_rests[kLeafBatch * kMaxP];
  std::uint8_t* chain_outs[kLeafBatch * kMaxP];
};

// LMS leaf nodes T[2^h + q] for q = first .. first+count-1 (count <= kLeafBatch): x from SEED, the
// full chains, K = H(I||q||D_PBLC||y...), then H(I||r||D_LEAF||K). out: count nodes of m bytes.
void compute_leaves(const TreeKey& key, std::uint32_t first, unsigned count, std::uint8_t* out,
                    OtsKeygenScratch& scratch) noexcept;

// The y values of an LM-OTS signature of digest Q at leaf q (p*n bytes into y).
void ots_sign_chains(const TreeKey& key, std::uint32_t q, const std::uint8_t* q_digest, std::uint8_t* y) noexcept;

// Candidate public key Kc (RFC 8554 Algorithm 4b) from y and Q; out32 gets 32 bytes, n count.
void ots_candidate_key(const OtsParams& ots, const TreeHasher& hasher, std::uint32_t q,
                       const std::uint8_t* q_digest, const std::uint8_t* y, std::uint8_t* out32) noexcept;

}  // namespace klms::lms
