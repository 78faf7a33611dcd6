#include "lms/lmots.h"

#include <algorithm>
#include <cstring>

#include "base/bytes.h"

namespace klms::lms {
namespace {

// The chains of an operation advance in lock step: at step t every active chain c hashes
// I || q || u16(i) || u8(t) || tmp in place (buffers hold u32 q || u16 i || j || tmp, kChainStride
// apart). Either every chain starts at 0 and stops at its own end (key generation, signing), or
// every chain starts at its own digit and runs to the top (verification). Chains are ordered once
// (counting sort) so that the active ones are always a prefix: each step is one hash_many call
// over that prefix, with no per-chain branch on random digits. The pointer arrays (count entries each)
// are the caller's: one signature's p on the stack, key generation's kLeafBatch * p in its scratch.
class ChainSchedule {
 public:
  // Chains c run from `from[c]` (or 0 when from is null) to `to[c]` (or `top` when to is null).
  ChainSchedule(std::uint8_t* buffers, std::size_t count, const std::uint8_t* from, const std::uint8_t* to,
                unsigned top, std::uint8_t** rests, std::uint8_t** outs) noexcept
      : top_(top), growing_(from != nullptr), rests_(rests), outs_(outs) {
    const std::uint8_t* key = growing_ ? from : to;
    // Growing (verification): ascending start. Shrinking (signing): descending end.
    std::uint16_t histogram[257] = {};
    if (key == nullptr) {
      for (std::size_t c = 0; c < count; ++c) place(c, buffers);
      for (unsigned t = 0; t <= top; ++t) active_[t] = static_cast<std::uint16_t>(count);
      return;
    }
    for (std::size_t c = 0; c < count; ++c) ++histogram[growing_ ? key[c] : 255 - key[c]];
    std::uint16_t offsets[257];
    std::uint16_t sum = 0;
    for (unsigned v = 0; v < 257; ++v) {
      offsets[v] = sum;
      sum = static_cast<std::uint16_t>(sum + histogram[v]);
    }
    for (std::size_t c = 0; c < count; ++c) {
      const unsigned v = growing_ ? key[c] : 255 - key[c];
      place_at(offsets[v]++, c, buffers);
    }
    // active_[t]: chains still running at step t.
    std::uint16_t running = 0;
    if (growing_) {
      for (unsigned t = 0; t < top; ++t) active_[t] = running = static_cast<std::uint16_t>(running + histogram[t]);
    } else {
      std::uint16_t ended = 0;
      for (unsigned t = 0; t < top; ++t) {
        ended = static_cast<std::uint16_t>(ended + histogram[255 - t]);  // chains whose end is t
        active_[t] = static_cast<std::uint16_t>(count - ended);
      }
    }
  }

  void run(const TreeHasher& hasher, std::size_t n) noexcept {
    for (unsigned t = 0; t < top_; ++t) {
      const std::size_t active = active_[t];
      if (active == 0) continue;
      for (std::size_t k = 0; k < active; ++k) rests_[k][6] = static_cast<std::uint8_t>(t);
      hasher.many(const_cast<const std::uint8_t* const*>(rests_), 7 + n, outs_, active);
    }
  }

 private:
  void place(std::size_t c, std::uint8_t* buffers) noexcept { place_at(c, c, buffers); }
  void place_at(std::size_t slot, std::size_t c, std::uint8_t* buffers) noexcept {
    rests_[slot] = buffers + c * kChainStride;
    outs_[slot] = rests_[slot] + 7;
  }

  unsigned top_;
  bool growing_;
  std::uint16_t active_[256] = {};
  std::uint8_t** rests_;
  std::uint8_t** outs_;
};
static_assert(kLeafBatch * kMaxP <= 0xFFFF, "chain counts are 16-bit");

// Signing and verification: one leaf's p chains.
struct OneLeafChains {
  std::uint8_t* rests[kMaxP];
  std::uint8_t* outs[kMaxP];
};

// Writes u32(q) || u16(i) || 0xFF || SEED into each chain buffer and hashes it in place, so the
// buffer then holds u32(q) || u16(i) || x_q[i] at offset 7 — ready to be a chain. Always inlined: its
// callers wipe the backend's stack (hashes/backend.h) once, after the chain steps too, and that
// covers this frame only if it is theirs.
[[gnu::always_inline]] inline void private_elements(const TreeKey& key, std::uint32_t q, std::uint8_t* buffers, std::size_t p) noexcept {
  const std::size_t m = key.params.lms->m;
  const std::uint8_t* rests[kMaxP];
  std::uint8_t* outs[kMaxP];
  for (std::size_t i = 0; i < p; ++i) {
    std::uint8_t* buf = buffers + i * kChainStride;
    put_u32(buf, q);
    put_u16(buf + 4, static_cast<std::uint32_t>(i));
    buf[6] = 0xFF;
    copy_hash(buf + 7, key.seed.data(), m);
    rests[i] = buf;
    outs[i] = buf + 7;
  }
  key.hasher.many(rests, 7 + m, outs, p);
}

}  // namespace

void ots_digits(const OtsParams& ots, const std::uint8_t* q_digest, std::uint8_t* digits) noexcept {
  const unsigned w = ots.w;
  const unsigned n = ots.n;
  const unsigned per_byte = 8 / w;
  const unsigned mask = (1u << w) - 1;
  const unsigned u = 8 * n / w;
  unsigned checksum = 0;
  for (unsigned i = 0; i < u; ++i) {
    const unsigned shift = 8 - (w * (i % per_byte) + w);
    const unsigned digit = (q_digest[i / per_byte] >> shift) & mask;
    digits[i] = static_cast<std::uint8_t>(digit);
    checksum += mask - digit;
  }
  checksum <<= ots.ls;
  const std::uint8_t cksm[2] = {static_cast<std::uint8_t>(checksum >> 8), static_cast<std::uint8_t>(checksum)};
  for (unsigned i = u; i < ots.p; ++i) {
    const unsigned k = i - u;
    const unsigned shift = 8 - (w * (k % per_byte) + w);
    digits[i] = static_cast<std::uint8_t>((cksm[k / per_byte] >> shift) & mask);
  }
}

MessageHasher::MessageHasher(const TreeHasher& hasher, std::uint32_t q, const std::uint8_t* randomizer,
                             std::size_t n) noexcept
    : hasher_(&hasher) {
  hasher.backend->stream_init(state_, hasher.prefix);
  std::uint8_t head[6 + kMaxHashBytes];
  put_u32(head, q);
  put_u16(head + 4, kDomainMessage);
  std::memcpy(head + 6, randomizer, n);
  hasher.backend->stream_update(state_, head, 6 + n);
}

void MessageHasher::update(const std::uint8_t* data, std::size_t len) noexcept {
  if (len != 0) hasher_->backend->stream_update(state_, data, len);
}

void MessageHasher::finish(std::uint8_t* out32) noexcept { hasher_->backend->stream_final(state_, out32); }

void compute_leaves(const TreeKey& key, std::uint32_t first, unsigned count, std::uint8_t* out,
                    OtsKeygenScratch& scratch) noexcept {
  const OtsParams& ots = *key.params.ots;
  const std::size_t n = ots.n;
  const std::size_t p = ots.p;
  const unsigned h = key.params.lms->h;
  for (unsigned leaf = 0; leaf < count; ++leaf) {
    private_elements(key, first + leaf, scratch.chains + leaf * p * kChainStride, p);
  }
  // Every chain runs 0 .. 2^w - 1: in the backend's registers where it can, else a step at a time.
  if (const hashes::Backend& b = *key.hasher.backend; b.chain_steps != nullptr) {
    b.chain_steps(key.hasher.prefix, scratch.chains, kChainStride, count * p, 7 + n, 0, ots.chain_max());
  } else {
    ChainSchedule(scratch.chains, count * p, nullptr, nullptr, ots.chain_max(), scratch.chain_rests, scratch.chain_outs)
        .run(key.hasher, n);
  }

  // K = H(I || u32(q) || D_PBLC || y[0] || ... || y[p-1]) for every leaf at once.
  const std::size_t public_len = 6 + p * n;
  const std::uint8_t* rests[kLeafBatch];
  std::uint8_t* outs[kLeafBatch];
  std::uint8_t k_values[kLeafBatch][32];
  std::uint8_t leaf_inputs[kLeafBatch][6 + 32];
  for (unsigned leaf = 0; leaf < count; ++leaf) {
    std::uint8_t* in = scratch.public_inputs + leaf * public_len;
    put_u32(in, first + leaf);
    put_u16(in + 4, kDomainPublicKey);
    const std::uint8_t* chains = scratch.chains + leaf * p * kChainStride;
    for (std::size_t i = 0; i < p; ++i) copy_hash(in + 6 + i * n, chains + i * kChainStride + 7, n);
    rests[leaf] = in;
    outs[leaf] = k_values[leaf];
  }
  key.hasher.many(rests, public_len, outs, count);

  // Leaf node T[2^h + q] = H(I || u32(2^h + q) || D_LEAF || K).
  for (unsigned leaf = 0; leaf < count; ++leaf) {
    put_u32(leaf_inputs[leaf], static_cast<std::uint32_t>((std::uint64_t{1} << h) + first + leaf));
    put_u16(leaf_inputs[leaf] + 4, kDomainLeaf);
    copy_hash(leaf_inputs[leaf] + 6, k_values[leaf], n);
    rests[leaf] = leaf_inputs[leaf];
    outs[leaf] = k_values[leaf];
  }
  key.hasher.many(rests, 6 + n, outs, count);
  for (unsigned leaf = 0; leaf < count; ++leaf) copy_hash(out + leaf * n, k_values[leaf], n);
  // The chain buffers held private elements: do not leave them behind, nor what the backend's
  // chain steps left on the stack.
  wipe(scratch.chains, count * p * kChainStride);
  hashes::wipe_hash_stack(*key.hasher.backend);
}

void ots_sign_chains(const TreeKey& key, std::uint32_t q, const std::uint8_t* q_digest, std::uint8_t* y) noexcept {
  const OtsParams& ots = *key.params.ots;
  const std::size_t p = ots.p;
  const std::size_t n = ots.n;
  alignas(64) std::uint8_t chains[kMaxP * kChainStride];
  std::uint8_t digits[kMaxP];
  ots_digits(ots, q_digest, digits);
  private_elements(key, q, chains, p);
  OneLeafChains pointers;
  ChainSchedule(chains, p, nullptr, digits, ots.chain_max(), pointers.rests, pointers.outs).run(key.hasher, n);
  for (std::size_t i = 0; i < p; ++i) copy_hash(y + i * n, chains + i * kChainStride + 7, n);
  wipe(chains, p * kChainStride);
  hashes::wipe_hash_stack(*key.hasher.backend);  // the chain steps' intermediate values
}

void ots_candidate_key(const OtsParams& ots, const TreeHasher& hasher, std::uint32_t q,
                       const std::uint8_t* q_digest, const std::uint8_t* y, std::uint8_t* out32) noexcept {
  const std::size_t p = ots.p;
  const std::size_t n = ots.n;
  alignas(64) std::uint8_t chains[kMaxP * kChainStride];
  std::uint8_t digits[kMaxP];
  ots_digits(ots, q_digest, digits);
  for (std::size_t i = 0; i < p; ++i) {
    std::uint8_t* buf = chains + i * kChainStride;
    put_u32(buf, q);
    put_u16(buf + 4, static_cast<std::uint32_t>(i));
    copy_hash(buf + 7, y + i * n, n);
  }
  OneLeafChains pointers;
  ChainSchedule(chains, p, digits, nullptr, ots.chain_max(), pointers.rests, pointers.outs).run(hasher, n);
  alignas(64) std::uint8_t public_input[6 + kMaxP * kMaxHashBytes];
  put_u32(public_input, q);
  put_u16(public_input + 4, kDomainPublicKey);
  for (std::size_t i = 0; i < p; ++i) copy_hash(public_input + 6 + i * n, chains + i * kChainStride + 7, n);
  hasher.one(public_input, 6 + p * n, out32);
}

}  // namespace klms::lms

