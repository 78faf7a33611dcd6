#include "lms/lmots.h"

#include <algorithm>
#include <cstring>

#include "lms/bytes.h"

namespace klms::lms {
namespace {

constexpr std::size_t kMaxManyBatch = 256;  // pointers per hash_many call (stack arrays)

// Runs every chain c from step start[c] to end[c] (exclusive): at step t each active chain hashes
// I || q || u16(i) || u8(t) || tmp in place. Chains live in `buffers` with kChainStride spacing and
// their u32 q || u16 i prefix already written.
void run_chains(const TreeHasher& hasher, std::uint8_t* buffers, std::size_t count, const std::uint8_t* start,
                const std::uint8_t* end, unsigned max_end, std::size_t n) noexcept {
  const std::uint8_t* rests[kMaxManyBatch];
  std::uint8_t* outs[kMaxManyBatch];
  for (unsigned t = 0; t < max_end; ++t) {
    std::size_t active = 0;
    for (std::size_t c = 0; c < count; ++c) {
      if (start[c] > t || t >= end[c]) continue;
      std::uint8_t* buf = buffers + c * kChainStride;
      buf[6] = static_cast<std::uint8_t>(t);
      rests[active] = buf;
      outs[active] = buf + 7;
      if (++active == kMaxManyBatch) {
        hasher.many(rests, 7 + n, outs, active);
        active = 0;
      }
    }
    if (active != 0) hasher.many(rests, 7 + n, outs, active);
  }
}

// Writes u32(q) || u16(i) || 0xFF || SEED into each chain buffer and hashes it in place, so the
// buffer then holds u32(q) || u16(i) || x_q[i] at offset 7 — ready to be a chain.
void private_elements(const TreeKey& key, std::uint32_t q, std::uint8_t* buffers, std::size_t p) noexcept {
  const std::size_t m = key.params.lms->m;
  const std::uint8_t* rests[kMaxManyBatch];
  std::uint8_t* outs[kMaxManyBatch];
  std::size_t pending = 0;
  for (std::size_t i = 0; i < p; ++i) {
    std::uint8_t* buf = buffers + i * kChainStride;
    put_u32(buf, q);
    put_u16(buf + 4, static_cast<std::uint32_t>(i));
    buf[6] = 0xFF;
    std::memcpy(buf + 7, key.seed.data(), m);
    rests[pending] = buf;
    outs[pending] = buf + 7;
    if (++pending == kMaxManyBatch || i + 1 == p) {
      key.hasher.many(rests, 7 + m, outs, pending);
      pending = 0;
    }
  }
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
  std::uint8_t start[kLeafBatch * kMaxP];
  std::uint8_t end[kLeafBatch * kMaxP];
  for (unsigned leaf = 0; leaf < count; ++leaf) {
    private_elements(key, first + leaf, scratch.chains + leaf * p * kChainStride, p);
  }
  std::memset(start, 0, count * p);
  std::memset(end, static_cast<int>(ots.chain_max()), count * p);
  run_chains(key.hasher, scratch.chains, count * p, start, end, ots.chain_max(), n);

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
    for (std::size_t i = 0; i < p; ++i) std::memcpy(in + 6 + i * n, chains + i * kChainStride + 7, n);
    rests[leaf] = in;
    outs[leaf] = k_values[leaf];
  }
  key.hasher.many(rests, public_len, outs, count);

  // Leaf node T[2^h + q] = H(I || u32(2^h + q) || D_LEAF || K).
  for (unsigned leaf = 0; leaf < count; ++leaf) {
    put_u32(leaf_inputs[leaf], static_cast<std::uint32_t>((std::uint64_t{1} << h) + first + leaf));
    put_u16(leaf_inputs[leaf] + 4, kDomainLeaf);
    std::memcpy(leaf_inputs[leaf] + 6, k_values[leaf], n);
    rests[leaf] = leaf_inputs[leaf];
    outs[leaf] = k_values[leaf];
  }
  key.hasher.many(rests, 6 + n, outs, count);
  for (unsigned leaf = 0; leaf < count; ++leaf) std::memcpy(out + leaf * n, k_values[leaf], n);
  // The chain buffers held private elements: do not leave them behind.
  wipe(scratch.chains, count * p * kChainStride);
}

void ots_sign_chains(const TreeKey& key, std::uint32_t q, const std::uint8_t* q_digest, std::uint8_t* y) noexcept {
  const OtsParams& ots = *key.params.ots;
  const std::size_t p = ots.p;
  const std::size_t n = ots.n;
  alignas(64) std::uint8_t chains[kMaxP * kChainStride];
  std::uint8_t start[kMaxP];
  std::uint8_t digits[kMaxP];
  ots_digits(ots, q_digest, digits);
  private_elements(key, q, chains, p);
  std::memset(start, 0, p);
  unsigned max_end = 0;
  for (std::size_t i = 0; i < p; ++i) max_end = std::max<unsigned>(max_end, digits[i]);
  run_chains(key.hasher, chains, p, start, digits, max_end, n);
  for (std::size_t i = 0; i < p; ++i) std::memcpy(y + i * n, chains + i * kChainStride + 7, n);
  wipe(chains, p * kChainStride);
}

void ots_candidate_key(const OtsParams& ots, const TreeHasher& hasher, std::uint32_t q,
                       const std::uint8_t* q_digest, const std::uint8_t* y, std::uint8_t* out32) noexcept {
  const std::size_t p = ots.p;
  const std::size_t n = ots.n;
  alignas(64) std::uint8_t chains[kMaxP * kChainStride];
  std::uint8_t digits[kMaxP];
  std::uint8_t end[kMaxP] = {};
  ots_digits(ots, q_digest, digits);
  for (std::size_t i = 0; i < p; ++i) {
    std::uint8_t* buf = chains + i * kChainStride;
    put_u32(buf, q);
    put_u16(buf + 4, static_cast<std::uint32_t>(i));
    std::memcpy(buf + 7, y + i * n, n);
  }
  std::memset(end, static_cast<int>(ots.chain_max()), p);
  run_chains(hasher, chains, p, digits, end, ots.chain_max(), n);
  alignas(64) std::uint8_t public_input[6 + kMaxP * kMaxHashBytes];
  put_u32(public_input, q);
  put_u16(public_input + 4, kDomainPublicKey);
  for (std::size_t i = 0; i < p; ++i) std::memcpy(public_input + 6 + i * n, chains + i * kChainStride + 7, n);
  hasher.one(public_input, 6 + p * n, out32);
}

}  // namespace klms::lms

