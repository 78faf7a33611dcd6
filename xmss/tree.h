// L-trees and XMSS hash trees (RFC 8391 §4.1.5, §4.1.6), level by level so that each level's tree
// hashes go to the backend together; the tree of one XMSS^MT layer is the same tree with the layer and
// tree address set (§4.2).
//
// A LayerTree keeps the top kStoredLevels levels of its tree (every level of a tree up to that
// height): 2^17 - 1 nodes of 32 bytes, 4 MiB, for the tallest tree (h = 20). Below them, the bottom
// subtree (height h - kStoredLevels, 16 leaves at h = 20) that a signature's path runs through is
// recomputed when first needed and the most recent one kept. Key generation streams the tree chunk by
// chunk, so no tree is ever whole in memory and the memory of a signer is bounded by 4 MiB per layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/error.h"
#include "xmss/hasher.h"

namespace klms::xmss {

inline constexpr unsigned kStoredLevels = 16;

// Progress of a long computation: (leaves done, leaves in all). Return false to cancel. Called from
// the thread that started the computation only: for trees of `report_from_leaves` leaves or more once
// with done = 0 before the first leaf, then about every 1/64 of the leaves; for every tree once at
// the end (done = total).
using ProgressCallback = std::function<bool(std::uint64_t done, std::uint64_t total)>;

struct BuildOptions {
  unsigned threads = 0;  // 0 = every core
  ProgressCallback progress;
  std::uint64_t report_from_leaves = std::uint64_t{1} << 14;
  // Levels a LayerTree keeps below its root (1 .. kStoredLevels; smaller in tests, so that small
  // trees exercise the recomputed bottom subtrees).
  unsigned stored_levels = kStoredLevels;
  // Optional: receives the levels a LayerTree does not keep (level j < stored_from(), nodes
  // first .. first+count-1 of that level, 32-byte slots) as key generation computes them, so that a
  // caller can write the whole tree to a file without holding it in memory. Called from the building
  // threads concurrently (each call a distinct range of nodes).
  std::function<void(unsigned level, std::uint32_t first, const std::uint8_t* nodes, std::uint32_t count)> unstored_levels;
};

// Compresses `count` WOTS+ public keys (len slots each, consecutive; overwritten) with the L-trees
// of leaf indices first .. first+count-1 of `tree`; leaf k goes to leaves + k * 32.
void ltrees(const Hasher& hasher, const TreeAddress& tree, std::uint8_t* pks, std::uint32_t first, unsigned count,
            std::uint8_t* leaves) noexcept;

// Leaves first .. first+count-1 of `tree` (WOTS+ key pairs from SK_SEED, then their L-trees), 32-byte
// slots into `out`.
void compute_leaves(const Hasher& hasher, const std::uint8_t* sk_seed, const TreeAddress& tree, std::uint32_t first,
                    std::uint32_t count, std::uint8_t* out);

// The nodes of one level from the level below: parents[i] = H(children[2i], children[2i+1]) at tree
// height `child_level`, parent index first_parent + i. `parents` may be `children` (in place).
void hash_level(const Hasher& hasher, const TreeAddress& tree, unsigned child_level, std::uint32_t first_parent,
                const std::uint8_t* children, std::uint32_t parent_count, std::uint8_t* parents) noexcept;

// The root implied by a leaf and its authentication path (`height` n-byte nodes, packed).
void root_from_path(const Hasher& hasher, const TreeAddress& tree, unsigned height, std::uint32_t leaf_index,
                    const std::uint8_t* leaf, const std::uint8_t* path, std::uint8_t* out32) noexcept;

// Every node of a subtree of `height` whose first leaf is `first` (a multiple of 2^height), level
// order: level 0 (2^height leaves) first, the subtree's root last. 32-byte slots.
class Subtree {
 public:
  Subtree() = default;
  Subtree(unsigned height, std::uint32_t first);
  unsigned height() const noexcept { return height_; }
  std::uint32_t first() const noexcept { return first_; }
  std::uint8_t* level(unsigned j) noexcept { return nodes_.data() + offset(j); }
  const std::uint8_t* level(unsigned j) const noexcept { return nodes_.data() + offset(j); }
  const std::uint8_t* root() const noexcept { return level(height_); }

 private:
  std::size_t offset(unsigned j) const noexcept {
    return static_cast<std::size_t>((std::uint64_t{2} << height_) - (std::uint64_t{2} << (height_ - j))) * kSlot;
  }
  unsigned height_ = 0;
  std::uint32_t first_ = 0;
  std::vector<std::uint8_t> nodes_;
};
Subtree build_subtree(const Hasher& hasher, const std::uint8_t* sk_seed, const TreeAddress& tree, unsigned height,
                      std::uint32_t first);

// One tree of one layer as a signer keeps it (see the top of this file). Not thread-safe: its owner
// serializes path() (which may replace the cached bottom subtree).
class LayerTree {
 public:
  // Builds the tree on `options.threads` cores with progress; kCancelled when the callback said stop.
  static Result<std::unique_ptr<LayerTree>> build(const Hasher& hasher, const std::uint8_t* sk_seed,
                                                  const TreeAddress& tree, const BuildOptions& options);

  const TreeAddress& address() const noexcept { return address_; }
  unsigned height() const noexcept { return height_; }
  // The lowest level kept (0 when the tree has at most kStoredLevels levels below its root).
  unsigned stored_from() const noexcept { return stored_from_; }
  const std::uint8_t* root() const noexcept { return stored_level(height_); }
  // The nodes of a kept level j (stored_from() <= j <= height()), 2^(height - j) 32-byte slots.
  const std::uint8_t* level(unsigned j) const noexcept { return stored_level(j); }
  // The authentication path of `leaf` (height() nodes of n bytes, packed).
  void path(const Hasher& hasher, const std::uint8_t* sk_seed, std::uint32_t leaf, std::uint8_t* out);
  // Bytes of nodes held (stored levels plus the cached bottom subtree).
  std::size_t memory_bytes() const noexcept;

 private:
  LayerTree(const TreeAddress& tree, unsigned height, unsigned stored_levels);
  std::uint8_t* stored_level(unsigned j) noexcept { return stored_.data() + stored_offset(j); }
  const std::uint8_t* stored_level(unsigned j) const noexcept { return stored_.data() + stored_offset(j); }
  std::size_t stored_offset(unsigned j) const noexcept;

  TreeAddress address_;
  unsigned height_ = 0;
  unsigned stored_from_ = 0;
  std::vector<std::uint8_t> stored_;  // levels stored_from_ .. height_, 32-byte slots, level order
  std::unique_ptr<Subtree> bottom_;   // the most recent bottom subtree (when stored_from_ > 0)
};

}  // namespace klms::xmss
