#include "lms/path_source.h"

#include <cstring>

namespace klms::lms {

PathSource::PathSource(unsigned stored_depth, bool check_paths) noexcept
    : stored_depth_(stored_depth), check_paths_(check_paths) {}

std::shared_ptr<const BottomSubtree> PathSource::bottom_subtree(const TreeKey& key, std::uint64_t index) {
  std::lock_guard<std::mutex> lock(bottom_mutex_);
  if (!bottom_ || bottom_->index != index) {
    bottom_ = std::make_shared<const BottomSubtree>(build_bottom_subtree(key, index));
  }
  return bottom_;
}

bool PathSource::node(std::size_t m, std::uint64_t r, const BottomSubtree* bottom, std::uint8_t* out) const noexcept {
  unsigned depth = 0;
  while ((r >> (depth + 1)) != 0) ++depth;
  if (depth <= stored_depth_) return read_stored(r, out);
  // Inside the bottom subtree rooted at depth stored_depth_.
  const unsigned below = depth - stored_depth_;
  const std::uint64_t subtree_root = (std::uint64_t{1} << stored_depth_) + bottom->index;
  const std::uint64_t local = (std::uint64_t{1} << below) + (r - (subtree_root << below));
  std::memcpy(out, bottom->nodes.node(local), m);
  return true;
}

bool PathSource::path(const TreeKey& key, std::uint32_t q, std::uint8_t* out) {
  const unsigned h = key.params.lms->h;
  const std::size_t m = key.params.lms->m;
  const std::uint64_t leaf = (std::uint64_t{1} << h) + q;
  std::shared_ptr<const BottomSubtree> bottom;
  if (h > stored_depth_) bottom = bottom_subtree(key, q >> (h - stored_depth_));
  for (unsigned i = 0; i < h; ++i) {
    if (!node(m, (leaf >> i) ^ 1, bottom.get(), out + i * m)) return false;
  }
  if (!check_paths_) return true;
  std::uint8_t leaf_node[32];
  std::uint8_t computed[32];
  if (!node(m, leaf, bottom.get(), leaf_node)) return false;
  root_from_path(key.hasher, h, m, q, leaf_node, out, computed);
  return std::memcmp(computed, root(), m) == 0;
}

MemoryPathSource::MemoryPathSource(TreeNodes nodes)
    : PathSource(nodes.stored_depth(), false), nodes_(std::move(nodes)) {}

bool MemoryPathSource::read_stored(std::uint64_t r, std::uint8_t* out) const noexcept {
  std::memcpy(out, nodes_.node(r), nodes_.node_bytes());
  return true;
}

FilePathSource::FilePathSource(TreeCacheFile file) : PathSource(file.stored_depth(), true), file_(std::move(file)) {}

bool FilePathSource::read_stored(std::uint64_t r, std::uint8_t* out) const noexcept { return file_.read_node(r, out); }

}  // namespace klms::lms
