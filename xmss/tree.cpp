#include "xmss/tree.h"

#include <cstring>

#include "xmss/wots.h"

namespace klms::xmss {

void ltrees(const Hasher& hasher, std::uint8_t* pks, std::uint32_t first, unsigned count,
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
        Address a = Address::ltree(first + leaf);
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

TreeNodes::TreeNodes(unsigned h) : h_(h), data_(((std::size_t{2} << h) - 1) * 32) {}

TreeNodes build_tree(const Hasher& hasher, const std::uint8_t* sk_seed) {
  const Params& p = hasher.params();
  TreeNodes nodes(p.h);
  std::vector<std::uint8_t> pks(kLeafBatch * std::size_t{p.len} * kSlot);
  const std::uint64_t leaves = p.leaves();
  for (std::uint64_t first = 0; first < leaves; first += kLeafBatch) {
    const unsigned count = static_cast<unsigned>(leaves - first < kLeafBatch ? leaves - first : kLeafBatch);
    const auto f = static_cast<std::uint32_t>(first);
    wots_public_keys(hasher, sk_seed, f, count, pks.data());
    ltrees(hasher, pks.data(), f, count, nodes.node(0, first));
  }
  // The WOTS+ public keys are public; nothing secret is left in pks.
  Address addresses[kChunk];
  const std::uint8_t* lefts[kChunk];
  const std::uint8_t* rights[kChunk];
  std::uint8_t* outs[kChunk];
  for (unsigned level = 0; level < p.h; ++level) {
    const std::uint64_t parents = leaves >> (level + 1);
    std::size_t filled = 0;
    for (std::uint64_t i = 0; i < parents; ++i) {
      Address a = Address::hash_tree();
      a.set_tree_height(level);
      a.set_tree_index(static_cast<std::uint32_t>(i));
      addresses[filled] = a;
      lefts[filled] = nodes.node(level, 2 * i);
      rights[filled] = nodes.node(level, 2 * i + 1);
      outs[filled] = nodes.node(level + 1, i);
      if (++filled == kChunk) {
        hasher.tree_hashes(addresses, lefts, rights, outs, filled);
        filled = 0;
      }
    }
    hasher.tree_hashes(addresses, lefts, rights, outs, filled);
  }
  return nodes;
}

void authentication_path(const TreeNodes& nodes, std::size_t n, std::uint64_t idx, std::uint8_t* out) noexcept {
  for (unsigned j = 0; j < nodes.height(); ++j) std::memcpy(out + j * n, nodes.node(j, (idx >> j) ^ 1), n);
}

void root_from_path(const Hasher& hasher, std::uint64_t idx, const std::uint8_t* leaf, const std::uint8_t* path,
                    std::uint8_t* out32) noexcept {
  const Params& p = hasher.params();
  alignas(64) std::uint8_t node[kSlot];
  alignas(64) std::uint8_t sibling[kSlot];
  std::memcpy(node, leaf, p.n);
  for (unsigned j = 0; j < p.h; ++j) {
    Address a = Address::hash_tree();
    a.set_tree_height(j);
    a.set_tree_index(static_cast<std::uint32_t>(idx >> (j + 1)));
    std::memcpy(sibling, path + j * std::size_t{p.n}, p.n);
    const bool right = ((idx >> j) & 1) != 0;
    const std::uint8_t* left_ptr = right ? sibling : node;
    const std::uint8_t* right_ptr = right ? node : sibling;
    std::uint8_t* out_ptr = node;
    hasher.tree_hashes(&a, &left_ptr, &right_ptr, &out_ptr, 1);
  }
  std::memcpy(out32, node, kSlot);
}

}  // namespace klms::xmss
