// Where a signer gets authentication paths: a tree in memory, or a cache file read O(h) nodes at a
// time. Tall trees (h > 20) store only the top levels; both sources recompute the bottom subtree a
// path runs through and keep the most recent one.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include "lms/merkle_tree.h"
#include "lms/tree_cache.h"
#include "lms/tree_key.h"

namespace klms::lms {

// A source belongs to one tree and holds none of its key: the owner passes the key it was made for
// to every call (a reference into the owner would make the owner unsafe to copy or move).
class PathSource {
 public:
  virtual ~PathSource() = default;
  // The h*m-byte authentication path of leaf q of the tree of `key`. False when the source cannot
  // give a path that recomputes to its root (a damaged cache): the caller rebuilds.
  bool path(const TreeKey& key, std::uint32_t q, std::uint8_t* out);
  virtual const std::uint8_t* root() const noexcept = 0;
  // The tree's nodes when they are in memory (to write them to a cache), else null.
  virtual const TreeNodes* nodes_in_memory() const noexcept { return nullptr; }

 protected:
  PathSource(unsigned stored_depth, bool check_paths) noexcept;
  virtual bool read_stored(std::uint64_t r, std::uint8_t* out) const noexcept = 0;

 private:
  std::shared_ptr<const BottomSubtree> bottom_subtree(const TreeKey& key, std::uint64_t index);
  bool node(std::size_t m, std::uint64_t r, const BottomSubtree* bottom, std::uint8_t* out) const noexcept;

  unsigned stored_depth_;
  bool check_paths_;
  std::mutex bottom_mutex_;
  std::shared_ptr<const BottomSubtree> bottom_;
};

// Nodes computed in this process: trusted, paths are not re-checked.
class MemoryPathSource final : public PathSource {
 public:
  explicit MemoryPathSource(TreeNodes nodes);
  const std::uint8_t* root() const noexcept override { return nodes_.root(); }
  const TreeNodes* nodes_in_memory() const noexcept override { return &nodes_; }

 private:
  bool read_stored(std::uint64_t r, std::uint8_t* out) const noexcept override;
  TreeNodes nodes_;
};

// Nodes from a cache file: every path is checked against the authenticated root.
class FilePathSource final : public PathSource {
 public:
  explicit FilePathSource(TreeCacheFile file);
  const std::uint8_t* root() const noexcept override { return file_.root(); }

 private:
  bool read_stored(std::uint64_t r, std::uint8_t* out) const noexcept override;
  TreeCacheFile file_;
};

}  // namespace klms::lms
