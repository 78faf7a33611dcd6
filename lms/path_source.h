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

class PathSource {
 public:
  virtual ~PathSource() = default;
  // The h*m-byte authentication path of leaf q. False when the source cannot give a path that
  // recomputes to its root (a damaged cache): the caller rebuilds.
  bool path(std::uint32_t q, std::uint8_t* out);
  const std::uint8_t* root() const noexcept { return root_; }

 protected:
  PathSource(const TreeKey& key, unsigned stored_depth, const std::uint8_t* root, bool check_paths) noexcept;
  virtual bool read_stored(std::uint64_t r, std::uint8_t* out) const noexcept = 0;
  void set_root(const std::uint8_t* root) noexcept { root_ = root; }

 private:
  std::shared_ptr<const BottomSubtree> bottom_subtree(std::uint64_t index);
  bool node(std::uint64_t r, const BottomSubtree* bottom, std::uint8_t* out) const noexcept;

  const TreeKey& key_;
  unsigned stored_depth_;
  const std::uint8_t* root_;
  bool check_paths_;
  std::mutex bottom_mutex_;
  std::shared_ptr<const BottomSubtree> bottom_;
};

// Nodes computed in this process: trusted, paths are not re-checked.
class MemoryPathSource final : public PathSource {
 public:
  MemoryPathSource(const TreeKey& key, TreeNodes nodes);
  const TreeNodes& nodes() const noexcept { return nodes_; }

 private:
  bool read_stored(std::uint64_t r, std::uint8_t* out) const noexcept override;
  TreeNodes nodes_;
};

// Nodes from a cache file: every path is checked against the authenticated root.
class FilePathSource final : public PathSource {
 public:
  FilePathSource(const TreeKey& key, TreeCacheFile file);

 private:
  bool read_stored(std::uint64_t r, std::uint8_t* out) const noexcept override;
  TreeCacheFile file_;
};

}  // namespace klms::lms
