#include "xmss/hasher.h"

#include <algorithm>
#include <cstring>

#include "base/bytes.h"
#include "base/secret.h"
#include "hashes/keccak/shake256.h"

namespace klms::xmss {
namespace {

constexpr unsigned kPadF = 0, kPadH = 1, kPadHmsg = 2, kPadPrf = 3, kPadPrfKeygen = 4;

// toByte(v, len): big-endian, zero-extended.
void to_bytes(std::uint8_t* out, std::size_t len, std::uint64_t v) noexcept {
  for (std::size_t i = len; i > 0; --i) {
    out[i - 1] = static_cast<std::uint8_t>(v);
    v >>= 8;
  }
}

void xor_into(std::uint8_t* out, const std::uint8_t* a, const std::uint8_t* b, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(a[i] ^ b[i]);
}

}  // namespace

void Address::write(std::uint8_t* out) const noexcept {
  for (unsigned i = 0; i < 8; ++i) put_u32(out + 4 * i, words[i]);
}

Hasher::Hasher(const Params& params, const hashes::Backend& backend, const std::uint8_t* pub_seed) noexcept
    : params_(params), backend_(&backend), prefixed_(params.pad == 32) {
  dom_ = prefixed_ ? params.pad - hashes::kIdentifierBytes : params.pad;
  const std::uint8_t zeros[hashes::kIdentifierBytes] = {};
  backend.init_prefix(zero_prefix_, zeros);
  std::memcpy(pub_seed_, pub_seed, params.n);
  for (unsigned x = 0; x < 5; ++x) to_bytes(domains_[x], dom_, x);
  std::memcpy(prf_head_, domains_[kPadPrf], dom_);
  std::memcpy(prf_head_ + dom_, pub_seed, params.n);
  // pad = 4 (n = 24): whole inputs, many at once on the lanes of the table's backends.
  if (!prefixed_ && &backend == hashes::backend(hashes::BackendId::kSha256Hw)) {
    digest_many_ = hashes::sha256::digest_many();
  } else if (!prefixed_ && &backend == hashes::backend(hashes::BackendId::kShake256)) {
    digest_many_ = hashes::shake256::digest_many();
  }
  sha256_n32_ = params.family == HashFamily::kSha256 && params.n == 32 && params.pad == 32;
  if (sha256_n32_) {
    std::uint8_t first[64] = {};
    first[31] = kPadPrf;
    std::memcpy(first + 32, pub_seed, 32);
    hashes::sha256::midstate_of(first, prf_midstate_);
    if (&backend == hashes::backend(hashes::BackendId::kSha256Hw)) {
      prf_kernel_ = hashes::sha256::compress_from_midstate();
      chains_kernel_ = hashes::sha256::xmss_chains();
    }
  }
}

std::size_t Hasher::put_domain(std::uint8_t* in, unsigned x) const noexcept {
  std::memcpy(in, domains_[x], dom_);
  return dom_;
}

void Hasher::many(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                  std::size_t count) const noexcept {
  if (count == 0) return;
  if (prefixed_) {
    backend_->hash_many(zero_prefix_, ins, len, outs, count);
    return;
  }
  if (digest_many_ != nullptr) {
    digest_many_(ins, len, outs, count);
    return;
  }
  for (std::size_t k = 0; k < count; ++k) {
    std::uint8_t out[hashes::kOutputBytes];
    backend_->digest(ins[k], len, out);
    std::memcpy(outs[k], out, sizeof out);
  }
}

void Hasher::prf_addresses(const Address* addresses, std::size_t count, unsigned mask_count,
                           std::uint8_t (*outs)[32]) const noexcept {
  // count * mask_count <= 3 * kChunk
  if (prf_kernel_ != nullptr) {
    // The second block of toByte(3, 32) || SEED || ADRS: ADRS, 0x80, zeros, the length (768 bits).
    alignas(64) std::uint8_t blocks[3 * kChunk][64];
    const std::uint8_t* block_ptrs[3 * kChunk];
    std::uint8_t* out_ptrs[3 * kChunk];
    for (std::size_t k = 0; k < count; ++k) {
      Address a = addresses[k];
      for (unsigned j = 0; j < mask_count; ++j) {
        const std::size_t slot = k * mask_count + j;
        std::uint8_t* p = blocks[slot];
        a.set_key_and_mask(j);
        a.write(p);
        std::memset(p + 32, 0, 32);
        p[32] = 0x80;
        p[62] = 0x03;  // 768 = 0x0300
        block_ptrs[slot] = p;
        out_ptrs[slot] = outs[slot];
      }
    }
    prf_kernel_(prf_midstate_, block_ptrs, out_ptrs, count * mask_count);
    return;
  }
  alignas(64) std::uint8_t in[3 * kChunk][kSlotBytes];
  const std::uint8_t* ins[3 * kChunk];
  std::uint8_t* out_ptrs[3 * kChunk];
  const std::size_t head = dom_ + params_.n;
  for (std::size_t k = 0; k < count; ++k) {
    Address a = addresses[k];
    for (unsigned j = 0; j < mask_count; ++j) {
      const std::size_t slot = k * mask_count + j;
      std::uint8_t* p = in[slot];
      std::memcpy(p, prf_head_, head);
      a.set_key_and_mask(j);
      a.write(p + head);
      ins[slot] = p;
      out_ptrs[slot] = outs[slot];
    }
  }
  const std::size_t len = head + 32;
  many(ins, len, out_ptrs, count * mask_count);
}

void Hasher::chain_steps(const Address* addresses, std::uint8_t* const* values, std::size_t count) const noexcept {
  const std::size_t n = params_.n;
  for (std::size_t base = 0; base < count; base += kChunk) {
    const std::size_t c = std::min(kChunk, count - base);
    alignas(64) std::uint8_t prf[2 * kChunk][32];
    prf_addresses(addresses + base, c, 2, prf);
    alignas(64) std::uint8_t in[kChunk][kSlotBytes];
    const std::uint8_t* ins[kChunk];
    std::size_t len = 0;
    for (std::size_t k = 0; k < c; ++k) {
      std::uint8_t* p = in[k];
      const std::size_t off = put_domain(p, kPadF);
      std::memcpy(p + off, prf[2 * k], n);                          // KEY
      xor_into(p + off + n, values[base + k], prf[2 * k + 1], n);  // M XOR BM
      len = off + 2 * n;
      ins[k] = p;
    }
    many(ins, len, values + base, c);
  }
  // The chain values of a private key passed through these buffers.
}

void Hasher::chains(const Address* chain_addresses, std::uint8_t* const* values, const std::uint8_t* start,
                    const std::uint8_t* end, std::size_t count) const noexcept {
  chains_with(chains_kernel_, chain_addresses, values, start, end, count);
}

void Hasher::chains_with(hashes::sha256::XmssChainsFn kernel, const Address* chain_addresses,
                         std::uint8_t* const* values, const std::uint8_t* start, const std::uint8_t* end,
                         std::size_t count) const noexcept {
  const unsigned top = params_.w() - 1;
  if (kernel != nullptr && sha256_n32_) {
    hashes::sha256::XmssChainKey key;
    std::memcpy(key.prf_midstate, prf_midstate_, sizeof key.prf_midstate);
    constexpr std::size_t kBatch = 256;
    hashes::sha256::XmssChain batch[kBatch];
    for (std::size_t base = 0; base < count;) {
      // One call per run of chains in the same tree (ADRS words 0-3).
      std::memcpy(key.tree_words, chain_addresses[base].words, sizeof key.tree_words);
      std::size_t filled = 0;
      for (; base < count && filled < kBatch; ++base) {
        const Address& a = chain_addresses[base];
        if (std::memcmp(a.words, key.tree_words, sizeof key.tree_words) != 0) break;
        const unsigned s = start != nullptr ? start[base] : 0;
        const unsigned e = end != nullptr ? end[base] : top;
        batch[filled++] = {values[base], a.words[4], a.words[5], s, e > s ? e - s : 0};
      }
      kernel(key, batch, filled);
    }
    return;
  }
  // Lock step: at step t every chain with start <= t < end hashes once, and the calls of one step
  // go to the backend together.
  Address batch[kChunk];
  std::uint8_t* batch_values[kChunk];
  for (unsigned t = 0; t < top; ++t) {
    std::size_t filled = 0;
    for (std::size_t k = 0; k < count; ++k) {
      const unsigned s = start != nullptr ? start[k] : 0;
      const unsigned e = end != nullptr ? end[k] : top;
      if (t < s || t >= e) continue;
      batch[filled] = chain_addresses[k];
      batch[filled].set_hash(t);
      batch_values[filled] = values[k];
      if (++filled == kChunk) {
        chain_steps(batch, batch_values, filled);
        filled = 0;
      }
    }
    chain_steps(batch, batch_values, filled);
  }
}

void Hasher::tree_hashes(const Address* addresses, const std::uint8_t* const* lefts,
                         const std::uint8_t* const* rights, std::uint8_t* const* outs,
                         std::size_t count) const noexcept {
  const std::size_t n = params_.n;
  for (std::size_t base = 0; base < count; base += kChunk) {
    const std::size_t c = std::min(kChunk, count - base);
    alignas(64) std::uint8_t prf[3 * kChunk][32];
    prf_addresses(addresses + base, c, 3, prf);
    alignas(64) std::uint8_t in[kChunk][kSlotBytes];
    const std::uint8_t* ins[kChunk];
    std::size_t len = 0;
    for (std::size_t k = 0; k < c; ++k) {
      std::uint8_t* p = in[k];
      const std::size_t off = put_domain(p, kPadH);
      std::memcpy(p + off, prf[3 * k], n);
      xor_into(p + off + n, lefts[base + k], prf[3 * k + 1], n);
      xor_into(p + off + 2 * n, rights[base + k], prf[3 * k + 2], n);
      len = off + 3 * n;
      ins[k] = p;
    }
    many(ins, len, outs + base, c);
  }
}

void Hasher::private_elements(const std::uint8_t* sk_seed, const Address* addresses, std::uint8_t* const* outs,
                              std::size_t count) const noexcept {
  const std::size_t n = params_.n;
  for (std::size_t base = 0; base < count; base += kChunk) {
    const std::size_t c = std::min(kChunk, count - base);
    alignas(64) std::uint8_t in[kChunk][kSlotBytes];
    const std::uint8_t* ins[kChunk];
    std::size_t len = 0;
    for (std::size_t k = 0; k < c; ++k) {
      std::uint8_t* p = in[k];
      const std::size_t off = put_domain(p, kPadPrfKeygen);
      std::memcpy(p + off, sk_seed, n);
      std::memcpy(p + off + n, pub_seed_, n);
      addresses[base + k].write(p + off + 2 * n);
      len = off + 2 * n + 32;
      ins[k] = p;
    }
    many(ins, len, outs + base, c);
    wipe(in, sizeof in);  // held SK_SEED
  }
}

void Hasher::randomizer(const std::uint8_t* sk_prf, std::uint64_t idx, std::uint8_t* out32) const noexcept {
  alignas(64) std::uint8_t in[kSlotBytes];
  const std::size_t n = params_.n;
  const std::size_t off = put_domain(in, kPadPrf);
  std::memcpy(in + off, sk_prf, n);
  to_bytes(in + off + n, 32, idx);
  const std::uint8_t* ins[1] = {in};
  std::uint8_t* outs[1] = {out32};
  if (prefixed_) {
    backend_->hash_one(zero_prefix_, in, off + n + 32, out32);
  } else {
    many(ins, off + n + 32, outs, 1);
  }
  wipe(in, sizeof in);
}

void Hasher::message_digest_begin(hashes::StreamState& state, const std::uint8_t* r, const std::uint8_t* root,
                                  std::uint64_t idx) const noexcept {
  // The whole padding, then KEY = r || root || toByte(idx, n); the backend's prefix is its first
  // 16 bytes (zero for pad = 32, toByte(2, 4) || r[0..12) for pad = 4).
  const std::size_t n = params_.n;
  std::uint8_t head[32 + 3 * kMaxN];
  to_bytes(head, params_.pad, kPadHmsg);
  std::memcpy(head + params_.pad, r, n);
  std::memcpy(head + params_.pad + n, root, n);
  to_bytes(head + params_.pad + 2 * n, n, idx);
  const std::size_t head_len = params_.pad + 3 * n;
  hashes::PrefixState prefix;
  backend_->init_prefix(prefix, head);
  backend_->stream_init(state, prefix);
  backend_->stream_update(state, head + hashes::kIdentifierBytes, head_len - hashes::kIdentifierBytes);
}

void Hasher::message_digest(const std::uint8_t* r, const std::uint8_t* root, std::uint64_t idx,
                            const std::uint8_t* message, std::size_t message_len, std::uint8_t* out32) const noexcept {
  hashes::StreamState state;
  message_digest_begin(state, r, root, idx);
  if (message_len != 0) backend_->stream_update(state, message, message_len);
  backend_->stream_final(state, out32);
}

}  // namespace klms::xmss
