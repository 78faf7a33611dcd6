// An LMS Merkle tree (RFC 8554 §5.3): nodes in heap order, T[1] the root, T[2^h + q] leaf q.
//
// Trees up to height 20 keep every node (64 MiB at h = 20, m = 32). Taller trees keep the top 21
// levels; the bottom subtrees below them (height h - 20) are recomputed when a signature needs
// their nodes, and the most recent one is kept.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "base/bytes.h"
#include "base/error.h"
#include "lms/tree_key.h"
#include "stateful/tree_build.h"

namespace klms::lms {

inline constexpr unsigned kMaxStoredDepth = 20;

// Progress and build options are the stateful layer's (stateful/tree_build.h).
using ProgressCallback = stateful::ProgressCallback;
using BuildOptions = stateful::BuildOptions;

// The stored nodes of one tree.
class TreeNodes {
 public:
  TreeNodes() = default;
  TreeNodes(unsigned h, unsigned m);
  unsigned height() const noexcept { return h_; }
  unsigned node_bytes() const noexcept { return m_; }
  unsigned stored_depth() const noexcept { return h_ < kMaxStoredDepth ? h_ : kMaxStoredDepth; }
  std::uint64_t stored_count() const noexcept { return (std::uint64_t{2} << stored_depth()) - 1; }
  bool stores(std::uint64_t r) const noexcept { return r >= 1 && r <= stored_count(); }
  const std::uint8_t* node(std::uint64_t r) const noexcept { return data_.data() + (r - 1) * m_; }
  std::uint8_t* node(std::uint64_t r) noexcept { return data_.data() + (r - 1) * m_; }
  const std::uint8_t* root() const noexcept { return node(1); }
  std::vector<std::uint8_t>& bytes() noexcept { return data_; }
  const std::vector<std::uint8_t>& bytes() const noexcept { return data_; }

 private:
  unsigned h_ = 0;
  unsigned m_ = 0;
  std::vector<std::uint8_t> data_;
};

// Builds the tree on `threads` cores. kInvalidArgument when the progress callback cancelled.
Result<TreeNodes> build_tree(const TreeKey& key, const BuildOptions& options);

// Nodes of a bottom subtree of a tall tree: subtree s has its root at depth kMaxStoredDepth.
struct BottomSubtree {
  std::uint64_t index = ~std::uint64_t{0};
  TreeNodes nodes;  // a tree of height h - kMaxStoredDepth, in its own heap order
};
BottomSubtree build_bottom_subtree(const TreeKey& key, std::uint64_t index);

// Hash of one interior node: H(I || u32(r) || D_INTR || left || right).
void interior_node(const TreeHasher& hasher, std::uint32_t r, const std::uint8_t* left, const std::uint8_t* right,
                   std::size_t m, std::uint8_t* out32) noexcept;

// Root computed from a leaf node value and its authentication path (for checking cached paths).
void root_from_path(const TreeHasher& hasher, unsigned h, std::size_t m, std::uint32_t q, const std::uint8_t* leaf_node,
                    const std::uint8_t* path, std::uint8_t* out32) noexcept;

}  // namespace klms::lms
