#include "xmss/tree.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <thread>

#include "xmss/stack_wipe.h"
#include "xmss/wots.h"

namespace klms::xmss {
namespace {

// Leaves per unit of work in key generation: big enough that the upper levels left to one thread
// are few (2^(h-8) nodes), small enough that two cores share a 2^10-leaf tree.
constexpr unsigned kChunkHeight = 8;

unsigned thread_count(unsigned asked, std::uint64_t chunks) noexcept {
  unsigned n = asked != 0 ? asked : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::uint64_t>(n, chunks));
}

}  // namespace

void ltrees(const Hasher& hasher, const TreeAddress& tree, std::uint8_t* pks, std::uint32_t first, unsigned count,
            std::uint8_t* leaves) noexcept {
  const std::size_t len = hasher.params().len;
  Address addresses[kChunk];
  const std::uint8_t* lefts[kChunk];
  const std::uint8_t* rights[kChunk];
  std::uint8_t* outs[kChunk];
  std::size_t l = len;
  for (std::uint32_t height = 0; l > 1; ++height) {
    const std::size_t parents = l / 2;
    std::size_t filled = 0;
    for (unsigned leaf = 0; leaf < count; ++leaf) {
      std::uint8_t* pk = pks + leaf * len * kSlot;
      for (std::size_t i = 0; i < parents; ++i) {
        Address a = Address::ltree(tree, first + leaf);
        a.set_tree_height(height);
        a.set_tree_index(static_cast<std::uint32_t>(i));
        addresses[filled] = a;
        lefts[filled] = pk + 2 * i * kSlot;
        rights[filled] = pk + (2 * i + 1) * kSlot;
        outs[filled] = pk + i * kSlot;  // written after every input of this chunk was read
        if (++filled == kChunk) {
          hasher.tree_hashes(addresses, lefts, rights, outs, filled);
          filled = 0;
        }
      }
    }
    // Chunks run in order and node i only overwrites slot i <= 2i: no input is overwritten early.
    hasher.tree_hashes(addresses, lefts, rights, outs, filled);
    for (unsigned leaf = 0; leaf < count; ++leaf) {
      std::uint8_t* pk = pks + leaf * len * kSlot;
      if (l & 1) std::memcpy(pk + parents * kSlot, pk + (l - 1) * kSlot, kSlot);  // odd node moves up
    }
    l = (l & 1) ? parents + 1 : parents;
  }
  for (unsigned leaf = 0; leaf < count; ++leaf) std::memcpy(leaves + leaf * kSlot, pks + leaf * len * kSlot, kSlot);
}

void compute_leaves(const Hasher& hasher, const std::uint8_t* sk_seed, const TreeAddress& tree, std::uint32_t first,
                    std::uint32_t count, std::uint8_t* out) {
  std::vector<std::uint8_t> pks(kLeafBatch * std::size_t{hasher.params().len} * kSlot);
  for (std::uint32_t done = 0; done < count; done += kLeafBatch) {
    const unsigned batch = std::min<std::uint32_t>(kLeafBatch, count - done);
    wots_public_keys(hasher, sk_seed, tree, first + done, batch, pks.data());
    ltrees(hasher, tree, pks.data(), first + done, batch, out + std::size_t{done} * kSlot);
  }
  // The WOTS+ public keys are public; nothing secret is left in pks.
}

void hash_level(const Hasher& hasher, const TreeAddress& tree, unsigned child_level, std::uint32_t first_parent,
                const std::uint8_t* children, std::uint32_t parent_count, std::uint8_t* parents) noexcept {
  Address addresses[kChunk];
  const std::uint8_t* lefts[kChunk];
  const std::uint8_t* rights[kChunk];
  std::uint8_t* outs[kChunk];
  std::size_t filled = 0;
  for (std::uint32_t i = 0; i < parent_count; ++i) {
    Address a = Address::hash_tree(tree);
    a.set_tree_height(child_level);
    a.set_tree_index(first_parent + i);
    addresses[filled] = a;
    lefts[filled] = children + std::size_t{2} * i * kSlot;
    rights[filled] = children + (std::size_t{2} * i + 1) * kSlot;
    outs[filled] = parents + std::size_t{i} * kSlot;  // in place: slot i <= 2i, chunks in order
    if (++filled == kChunk) {
      hasher.tree_hashes(addresses, lefts, rights, outs, filled);
      filled = 0;
    }
  }
  hasher.tree_hashes(addresses, lefts, rights, outs, filled);
}

void root_from_path(const Hasher& hasher, const TreeAddress& tree, unsigned height, std::uint32_t leaf_index,
                    const std::uint8_t* leaf, const std::uint8_t* path, std::uint8_t* out32) noexcept {
  const std::size_t n = hasher.params().n;
  alignas(64) std::uint8_t node[kSlot] = {};
  alignas(64) std::uint8_t sibling[kSlot] = {};
  std::memcpy(node, leaf, n);
  for (unsigned j = 0; j < height; ++j) {
    Address a = Address::hash_tree(tree);
    a.set_tree_height(j);
    a.set_tree_index(leaf_index >> (j + 1));
    std::memcpy(sibling, path + j * n, n);
    const bool right = ((leaf_index >> j) & 1) != 0;
    const std::uint8_t* left_ptr = right ? sibling : node;
    const std::uint8_t* right_ptr = right ? node : sibling;
    std::uint8_t* out_ptr = node;
    hasher.tree_hashes(&a, &left_ptr, &right_ptr, &out_ptr, 1);
  }
  std::memcpy(out32, node, kSlot);
}

Subtree::Subtree(unsigned height, std::uint32_t first)
    : height_(height), first_(first), nodes_(((std::size_t{2} << height) - 1) * kSlot) {}

Subtree build_subtree(const Hasher& hasher, const std::uint8_t* sk_seed, const TreeAddress& tree, unsigned height,
                      std::uint32_t first) {
  Subtree s(height, first);
  compute_leaves(hasher, sk_seed, tree, first, std::uint32_t{1} << height, s.level(0));
  for (unsigned j = 0; j < height; ++j) {
    hash_level(hasher, tree, j, first >> (j + 1), s.level(j), std::uint32_t{1} << (height - j - 1), s.level(j + 1));
  }
  return s;
}

LayerTree::LayerTree(const TreeAddress& tree, unsigned height, unsigned stored_levels)
    : address_(tree), height_(height), stored_from_(height > stored_levels ? height - stored_levels : 0) {
  stored_.resize(((std::size_t{2} << (height_ - stored_from_)) - 1) * kSlot);
}

std::size_t LayerTree::stored_offset(unsigned j) const noexcept {
  const std::uint64_t top = std::uint64_t{2} << (height_ - stored_from_);
  return static_cast<std::size_t>(top - (std::uint64_t{2} << (height_ - j))) * kSlot;
}

std::size_t LayerTree::memory_bytes() const noexcept {
  return stored_.size() + (bottom_ ? ((std::size_t{2} << bottom_->height()) - 1) * kSlot : 0);
}

Result<std::unique_ptr<LayerTree>> LayerTree::build(const Hasher& hasher, const std::uint8_t* sk_seed,
                                                    const TreeAddress& tree, const BuildOptions& options) {
  const unsigned h = hasher.params().tree_height();
  const unsigned stored_levels = std::clamp(options.stored_levels, 1u, kStoredLevels);
  std::unique_ptr<LayerTree> t(new LayerTree(tree, h, stored_levels));
  const unsigned c = std::max(t->stored_from_, std::min(h, kChunkHeight));
  const std::uint64_t chunks = std::uint64_t{1} << (h - c);
  const std::uint64_t total = std::uint64_t{1} << h;
  const bool report = options.progress && total >= options.report_from_leaves;

  std::atomic<std::uint64_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  LayerTree& out = *t;
  auto work = [&](bool reporter) {
    std::uint64_t reported = 0;
    for (;;) {
      const std::uint64_t k = next.fetch_add(1);
      if (k >= chunks || stop.load()) break;
      const auto first = static_cast<std::uint32_t>(k << c);
      const Subtree s = build_subtree(hasher, sk_seed, tree, c, first);
      for (unsigned j = out.stored_from_; j <= c; ++j) {
        std::memcpy(out.stored_level(j) + std::size_t{first >> j} * kSlot, s.level(j),
                    (std::size_t{1} << (c - j)) * kSlot);
      }
      if (options.unstored_levels) {
        for (unsigned j = 0; j < out.stored_from_; ++j) {
          options.unstored_levels(j, first >> j, s.level(j), std::uint32_t{1} << (c - j));
        }
      }
      const std::uint64_t now = done.fetch_add(std::uint64_t{1} << c) + (std::uint64_t{1} << c);
      if (reporter && report && now - reported >= total / 64 && now < total) {
        reported = now;
        if (!options.progress(now, total)) stop.store(true);
      }
    }
    wipe_stack();  // chain values of private keys passed through the stack
  };

  if (report && !options.progress(0, total)) return Error::kCancelled;
  std::vector<std::thread> helpers;
  const unsigned threads = thread_count(options.threads, chunks);
  for (unsigned i = 1; i < threads; ++i) {
    try {
      helpers.emplace_back(work, false);
    } catch (const std::exception&) {
      break;  // fewer threads: the work is shared by those that started
    }
  }
  work(true);
  for (std::thread& th : helpers) th.join();
  if (stop.load()) return Error::kCancelled;

  for (unsigned j = c; j < h; ++j) {
    hash_level(hasher, tree, j, 0, t->stored_level(j), std::uint32_t{1} << (h - j - 1), t->stored_level(j + 1));
  }
  if (options.progress) options.progress(total, total);  // the end is reported, not asked about
  return t;
}

void LayerTree::path(const Hasher& hasher, const std::uint8_t* sk_seed, std::uint32_t leaf, std::uint8_t* out) {
  const std::size_t n = hasher.params().n;
  if (stored_from_ > 0) {
    const std::uint32_t first = (leaf >> stored_from_) << stored_from_;
    if (!bottom_ || bottom_->first() != first) {
      bottom_ = std::make_unique<Subtree>(build_subtree(hasher, sk_seed, address_, stored_from_, first));
      wipe_stack();
    }
    for (unsigned j = 0; j < stored_from_; ++j) {
      const std::uint32_t sibling = ((leaf >> j) ^ 1u) - (first >> j);
      std::memcpy(out + j * n, bottom_->level(j) + std::size_t{sibling} * kSlot, n);
    }
  }
  for (unsigned j = stored_from_; j < height_; ++j) {
    std::memcpy(out + j * n, stored_level(j) + std::size_t{(leaf >> j) ^ 1u} * kSlot, n);
  }
}

}  // namespace klms::xmss
