#include "lms/path_source.h"

#include <cstring>

namespace klms::lms {

PathSource::PathSource(const TreeKey& key, unsigned stored_depth, const std::uint8_t* root, bool check_paths) noexcept
    : key_(key), stored_depth_(stored_depth), root_(root), check_paths_(check_paths) {}

std::shared_ptr<const BottomSubtree> PathSource::bottom_subtree(std::uint64_t index) {
  std::lock_guard<std::mutex> lock(bottom_mutex_);
  if (!bottom_ || bottom_->index != index) {
    bottom_ = std::make_shared<const BottomSubtree>(build_bottom_subtree(key_, index));
  }
  return bottom_;
}

bool PathSource::node(std::uint64_t r, const BottomSubtree* bottom, std::uint8_t* out) const noexcept {
  unsigned depth = 0;
  while ((r >> (depth + 1)) != 0) ++depth;
  if (depth <= stored_depth_) return read_stored(r, out);
  // Inside the bottom subtree rooted at depth stored_depth_.
  const unsigned below = depth - stored_depth_;
  const std::uint64_t subtree_root = (std::uint64_t{1} << stored_depth_) + bottom->index;
  const std::uint64_t local = (std::uint64_t{1} << below) + (r - (subtree_root << below));
  std::memcpy(out, bottom->nodes.node(local), key_.params.lms->m);
  return true;
}

bool PathSource::path(std::uint32_t q, std::uint8_t* out) {
  const unsigned h = key_.params.lms->h;
  const std::size_t m = key_.params.lms->m;
  const std::uint64_t leaf = (std::uint64_t{1} << h) + q;
  std::shared_ptr<const BottomSubtree> bottom;
  if (h > stored_depth_) bottom = bottom_subtree(q >> (h - stored_depth_));
  for (unsigned i = 0; i < h; ++i) {
    if (!node((leaf >> i) ^ 1, bottom.get(), out + i * m)) return false;
  }
  if (!check_paths_) return true;
  std::uint8_t leaf_node[32];
  std::uint8_t computed[32];
  if (!node(leaf, bottom.get(), leaf_node)) return false;
  root_from_path(key_.hasher, h, m, q, leaf_node, out, computed);
  return std::memcmp(computed, root_, m) == 0;
}

MemoryPathSource::MemoryPathSource(const TreeKey& key, TreeNodes nodes)
    : PathSource(key, nodes.stored_depth(), nullptr, false), nodes_(std::move(nodes)) {
  set_root(nodes_.root());
}

bool MemoryPathSource::read_stored(std::uint64_t r, std::uint8_t* out) const noexcept {
  std::memcpy(out, nodes_.node(r), nodes_.node_bytes());
  return true;
}

FilePathSource::FilePathSource(const TreeKey& key, TreeCacheFile file)
    : PathSource(key, file.stored_depth(), nullptr, true), file_(std::move(file)) {
  set_root(file_.root());
}

bool FilePathSource::read_stored(std::uint64_t r, std::uint8_t* out) const noexcept { return file_.read_node(r, out); }

}  // namespace klms::lms
