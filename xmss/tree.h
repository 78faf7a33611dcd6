// L-trees and the XMSS hash tree (RFC 8391 §4.1.5, §4.1.6), level by level so that each level's
// tree hashes go to the backend together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "xmss/hasher.h"

namespace klms::xmss {

// Compresses `count` WOTS+ public keys (len slots each, consecutive; overwritten) with the L-trees
// of leaf indices first .. first+count-1; leaf k goes to leaves + k * 32.
void ltrees(const Hasher& hasher, std::uint8_t* pks, std::uint32_t first, unsigned count,
            std::uint8_t* leaves) noexcept;

// Every node of the tree, level 0 (the 2^h leaves) to level h (the root), 32-byte slots.
class TreeNodes {
 public:
  TreeNodes() = default;
  explicit TreeNodes(unsigned h);
  unsigned height() const noexcept { return h_; }
  std::uint8_t* node(unsigned level, std::uint64_t index) noexcept { return data_.data() + slot(level, index); }
  const std::uint8_t* node(unsigned level, std::uint64_t index) const noexcept {
    return data_.data() + slot(level, index);
  }
  const std::uint8_t* root() const noexcept { return node(h_, 0); }
  std::size_t bytes() const noexcept { return data_.size(); }

 private:
  std::size_t slot(unsigned level, std::uint64_t index) const noexcept {
    // Level j starts after the 2^h + 2^(h-1) + ... + 2^(h-j+1) nodes below it.
    const std::uint64_t before = (std::uint64_t{2} << h_) - (std::uint64_t{2} << (h_ - level));
    return static_cast<std::size_t>((before + index) * 32);
  }
  unsigned h_ = 0;
  std::vector<std::uint8_t> data_;
};

// Every leaf (WOTS+ key pair -> L-tree) and every interior node.
TreeNodes build_tree(const Hasher& hasher, const std::uint8_t* sk_seed);
// The authentication path of leaf idx: h nodes of n bytes, packed.
void authentication_path(const TreeNodes& nodes, std::size_t n, std::uint64_t idx, std::uint8_t* out) noexcept;
// The root implied by a leaf and its authentication path (n-byte nodes, packed).
void root_from_path(const Hasher& hasher, std::uint64_t idx, const std::uint8_t* leaf, const std::uint8_t* path,
                    std::uint8_t* out32) noexcept;

}  // namespace klms::xmss
