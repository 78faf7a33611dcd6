// The hash functions of RFC 8391 §5.1 over a backend of the table the LMS engine uses:
//   F(KEY, M)       = H(toByte(0, pad) || KEY || M)
//   H(KEY, M)       = H(toByte(1, pad) || KEY || M)
//   H_msg(KEY, M)   = H(toByte(2, pad) || KEY || M)        KEY = r || root || toByte(idx, n)
//   PRF(KEY, M)     = H(toByte(3, pad) || KEY || M)
//   PRF_keygen(K,M) = H(toByte(4, pad) || KEY || M)        SP 800-208 key derivation
// and the keyed, masked calls built from them (RFC 8391 §4.1.2): the WOTS+ chain step
// F(PRF(SEED, ADRS.km=0), x XOR PRF(SEED, ADRS.km=1)) and the tree hash H(PRF(km=0), (L||R) XOR
// (PRF(km=1) || PRF(km=2))).
//
// With pad = 32 the inputs' first 16 bytes are zero: the backend's 16-byte prefix is absorbed once
// (init_prefix of 16 zero bytes) and each call hashes the rest, toByte(x, 16) || KEY || M, through
// hash_one / hash_many — the same functions, lanes and counting as LMS. pad = 4 (the n = 24 sets)
// hashes each input whole (no prefix to share): many at once on the lanes of sha256-hw and shake256
// (hashes/sha2/sha256_midstate.h, hashes/keccak/shake256.h), with the backend's digest elsewhere.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hashes/backend.h"
#include "hashes/sha2/sha256_midstate.h"
#include "hashes/sha2/sha256_xmss_chains.h"
#include "xmss/params.h"

namespace klms::xmss {

// Which tree of the hypertree an address is in (RFC 8391 §2.5: layer address, tree address).
// Always {0, 0} for XMSS.
struct TreeAddress {
  std::uint32_t layer = 0;
  std::uint64_t tree = 0;
};

// The 32-byte address ADRS (RFC 8391 §2.5): eight big-endian words.
struct Address {
  enum Type : std::uint32_t { kOts = 0, kLtree = 1, kHashTree = 2 };
  std::uint32_t words[8] = {};

  static Address of(const TreeAddress& t, Type type) noexcept {
    Address a;
    a.words[0] = t.layer;
    a.words[1] = static_cast<std::uint32_t>(t.tree >> 32);
    a.words[2] = static_cast<std::uint32_t>(t.tree);
    a.words[3] = type;
    return a;
  }
  static Address ots(const TreeAddress& t, std::uint32_t ots_index) noexcept {
    Address a = of(t, kOts);
    a.words[4] = ots_index;
    return a;
  }
  static Address ltree(const TreeAddress& t, std::uint32_t ltree_index) noexcept {
    Address a = of(t, kLtree);
    a.words[4] = ltree_index;
    return a;
  }
  static Address hash_tree(const TreeAddress& t) noexcept { return of(t, kHashTree); }
  // OTS: chain (word 5), hash (word 6). L-tree / hash tree: tree height (5), tree index (6).
  void set_chain(std::uint32_t v) noexcept { words[5] = v; }
  void set_hash(std::uint32_t v) noexcept { words[6] = v; }
  void set_tree_height(std::uint32_t v) noexcept { words[5] = v; }
  void set_tree_index(std::uint32_t v) noexcept { words[6] = v; }
  void set_key_and_mask(std::uint32_t v) noexcept { words[7] = v; }
  void write(std::uint8_t* out) const noexcept;
};

// Chain values and nodes live in 32-byte slots (the backend writes 32 bytes; the first n count).
inline constexpr std::size_t kSlot = 32;
// Inputs are built in slots of this many bytes (the longest: 16 + 3 * 32).
inline constexpr std::size_t kSlotBytes = 128;
// Calls are hashed in chunks of this many (stack buffers, no allocation).
inline constexpr std::size_t kChunk = 64;

class Hasher {
 public:
  Hasher() = default;
  Hasher(const Params& params, const hashes::Backend& backend, const std::uint8_t* pub_seed) noexcept;

  const Params& params() const noexcept { return params_; }
  const hashes::Backend& backend() const noexcept { return *backend_; }
  const std::uint8_t* pub_seed() const noexcept { return pub_seed_; }

  // Writes toByte(x, dom) into `in`, where dom is what the caller's buffer holds of the padding (16
  // after the shared prefix, or 4), and returns the offset of KEY.
  std::size_t put_domain(std::uint8_t* in, unsigned x) const noexcept;
  // outs[k] (32 bytes written; the first n count) = H(padding prefix || ins[k]) for inputs of
  // `len` bytes (as put_domain counts them). outs[k] may alias ins[k].
  void many(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
            std::size_t count) const noexcept;

  // Chain steps: values[k] (in place) = F(PRF(SEED, a_k.km0), values[k] XOR PRF(SEED, a_k.km1)).
  void chain_steps(const Address* addresses, std::uint8_t* const* values, std::size_t count) const noexcept;
  // Whole chains (RFC 8391 §3.1.2): chain k (OTS address chain_addresses[k], all in one tree) runs
  // from step start[k] to end[k] (end <= w - 1; start null: 0, end null: w - 1), values[k] in place.
  // SHA-256 sets with n = 32 on the table's sha256-hw run the fused kernel
  // (hashes/sha2/sha256_xmss_chains.h); every other backend steps the chains in lock step, each
  // step's calls to the backend together.
  void chains(const Address* chain_addresses, std::uint8_t* const* values, const std::uint8_t* start,
              const std::uint8_t* end, std::size_t count) const noexcept;
  // Whether chains() runs a fused kernel (for the tests and benchmarks).
  bool fused_chains() const noexcept { return chains_kernel_ != nullptr; }
  // The same chains with a kernel of hashes::sha256::xmss_chain_kernels() (a SHA-256 set with n = 32
  // only), or with the lock-step path when `kernel` is null: for the cross-path tests.
  void chains_with(hashes::sha256::XmssChainsFn kernel, const Address* chain_addresses, std::uint8_t* const* values,
                   const std::uint8_t* start, const std::uint8_t* end, std::size_t count) const noexcept;
  // Tree hashes: outs[k] = H(PRF(km0), (lefts[k] || rights[k]) XOR (PRF(km1) || PRF(km2))).
  // outs[k] may alias lefts[k] or rights[k].
  void tree_hashes(const Address* addresses, const std::uint8_t* const* lefts, const std::uint8_t* const* rights,
                   std::uint8_t* const* outs, std::size_t count) const noexcept;
  // WOTS+ private elements (SP 800-208): outs[k] = PRF_keygen(SK_SEED, SEED || a_k).
  void private_elements(const std::uint8_t* sk_seed, const Address* addresses, std::uint8_t* const* outs,
                        std::size_t count) const noexcept;
  // r = PRF(SK_PRF, toByte(idx, 32)).
  void randomizer(const std::uint8_t* sk_prf, std::uint64_t idx, std::uint8_t* out32) const noexcept;
  // H_msg(r || root || toByte(idx, n), message) in pieces: begin, then the backend's stream_update
  // with the message, then its stream_final.
  void message_digest_begin(hashes::StreamState& state, const std::uint8_t* r, const std::uint8_t* root,
                            std::uint64_t idx) const noexcept;
  // The same in one call.
  void message_digest(const std::uint8_t* r, const std::uint8_t* root, std::uint64_t idx, const std::uint8_t* message,
                      std::size_t message_len, std::uint8_t* out32) const noexcept;

 private:
  // PRF(SEED, a_k with key_and_mask = masks[j]) for j < mask_count, into outs[k * mask_count + j].
  void prf_addresses(const Address* addresses, std::size_t count, unsigned mask_count,
                     std::uint8_t (*outs)[32]) const noexcept;

  Params params_{};
  const hashes::Backend* backend_ = nullptr;
  // toByte(x, dom) for x = 0..4, and toByte(3, dom) || SEED (the fixed head of every PRF input).
  std::uint8_t domains_[5][32] = {};
  std::uint8_t prf_head_[32 + kMaxN] = {};
  hashes::PrefixState zero_prefix_{};
  // SHA-256 sets with n = 32 on the table's sha256-hw: the PRF's first block, toByte(3, 32) || SEED,
  // compressed once per key, so that each PRF is one compression (hashes/sha2/sha256_midstate.h).
  // Other backends (and the study's wrappers of this one) take the generic path.
  hashes::sha256::CompressFromMidstate prf_kernel_ = nullptr;
  hashes::sha256::XmssChainsFn chains_kernel_ = nullptr;
  // n = 24 on sha256-hw or shake256: whole inputs in lanes (sha256_midstate.h, shake256.h), else
  // the backend's digest one at a time.
  void (*digest_many_)(const std::uint8_t* const*, std::size_t, std::uint8_t* const*, std::size_t) noexcept = nullptr;
  std::uint32_t prf_midstate_[8] = {};  // any SHA-256 set with n = 32 (the cross-path tests use it)
  bool sha256_n32_ = false;
  std::uint8_t pub_seed_[kMaxN] = {};
  std::size_t dom_ = 16;  // padding bytes the inputs carry (16 after the prefix, or the whole 4)
  bool prefixed_ = true;
};

}  // namespace klms::xmss
