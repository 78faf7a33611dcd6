#include "lms/merkle_tree.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <thread>

#include "lms/lmots.h"

namespace klms::lms {
namespace {

constexpr std::size_t kNodeBatch = 64;

// Computes the interior nodes of one level from the level below, batched. `below(r)` and
// `at(r)` give node storage; nodes r in [first, first + count) at the level being computed.
template <typename BelowFn, typename AtFn>
void hash_level(const TreeHasher& hasher, std::size_t m, std::uint64_t first, std::uint64_t count, BelowFn below,
                AtFn at) {
  std::uint8_t inputs[kNodeBatch][6 + 2 * kMaxHashBytes];
  std::uint8_t outputs[kNodeBatch][32];
  const std::uint8_t* rests[kNodeBatch];
  std::uint8_t* outs[kNodeBatch];
  for (std::uint64_t done = 0; done < count;) {
    const std::size_t batch = static_cast<std::size_t>(std::min<std::uint64_t>(kNodeBatch, count - done));
    for (std::size_t k = 0; k < batch; ++k) {
      const std::uint64_t r = first + done + k;
      put_u32(inputs[k], static_cast<std::uint32_t>(r));
      put_u16(inputs[k] + 4, kDomainInterior);
      std::memcpy(inputs[k] + 6, below(2 * r), m);
      std::memcpy(inputs[k] + 6 + m, below(2 * r + 1), m);
      rests[k] = inputs[k];
      outs[k] = outputs[k];
    }
    hasher.many(rests, 6 + 2 * m, outs, batch);
    for (std::size_t k = 0; k < batch; ++k) std::memcpy(at(first + done + k), outputs[k], m);
    done += batch;
  }
}

// Computes every node of the subtree rooted at `root` of height `sub_h` into `local` (its own heap
// order): leaves in batches, then the levels above.
void compute_subtree(const TreeKey& key, std::uint64_t root, unsigned sub_h, TreeNodes& local,
                     OtsKeygenScratch& scratch) {
  const unsigned h = key.params.lms->h;
  const std::size_t m = key.params.lms->m;
  const std::uint64_t leaves = std::uint64_t{1} << sub_h;
  const std::uint64_t first_leaf_q = (root << sub_h) - (std::uint64_t{1} << h);
  for (std::uint64_t done = 0; done < leaves;) {
    const unsigned batch = static_cast<unsigned>(std::min<std::uint64_t>(kLeafBatch, leaves - done));
    compute_leaves(key, static_cast<std::uint32_t>(first_leaf_q + done), batch, local.node(leaves + done), scratch);
    done += batch;
  }
  // Interior nodes: local index j at local depth e has global index (root << e) + j - 2^e.
  for (unsigned e = sub_h; e-- > 0;) {
    const std::uint64_t first_local = std::uint64_t{1} << e;
    // hash_level works on global indices (they go into the hash); map to local storage.
    const std::uint64_t first_global = root << e;
    hash_level(
        key.hasher, m, first_global, first_local,
        [&](std::uint64_t global_child) {
          const std::uint64_t local_child = global_child - (root << (e + 1)) + (std::uint64_t{2} << e);
          return local.node(local_child);
        },
        [&](std::uint64_t global) { return local.node(global - first_global + first_local); });
  }
}

unsigned worker_count(unsigned requested) {
  unsigned n = requested != 0 ? requested : std::thread::hardware_concurrency();
  return std::clamp(n, 1u, 64u);
}

}  // namespace

TreeNodes::TreeNodes(unsigned h, unsigned m) : h_(h), m_(m) {
  data_.resize(static_cast<std::size_t>(stored_count()) * m);
}

void interior_node(const TreeHasher& hasher, std::uint32_t r, const std::uint8_t* left, const std::uint8_t* right,
                   std::size_t m, std::uint8_t* out32) noexcept {
  std::uint8_t input[6 + 2 * kMaxHashBytes];
  put_u32(input, r);
  put_u16(input + 4, kDomainInterior);
  std::memcpy(input + 6, left, m);
  std::memcpy(input + 6 + m, right, m);
  hasher.one(input, 6 + 2 * m, out32);
}

void root_from_path(const TreeHasher& hasher, unsigned h, std::size_t m, std::uint32_t q, const std::uint8_t* leaf_node,
                    const std::uint8_t* path, std::uint8_t* out32) noexcept {
  std::uint8_t tmp[32];
  std::memcpy(tmp, leaf_node, m);
  std::uint64_t r = (std::uint64_t{1} << h) + q;
  for (unsigned i = 0; i < h; ++i, r >>= 1) {
    const std::uint8_t* sibling = path + i * m;
    if (r & 1) {
      interior_node(hasher, static_cast<std::uint32_t>(r >> 1), sibling, tmp, m, tmp);
    } else {
      interior_node(hasher, static_cast<std::uint32_t>(r >> 1), tmp, sibling, m, tmp);
    }
  }
  std::memcpy(out32, tmp, m);
}

BottomSubtree build_bottom_subtree(const TreeKey& key, std::uint64_t index) {
  const unsigned h = key.params.lms->h;
  const unsigned sub_h = h - kMaxStoredDepth;
  BottomSubtree b;
  b.index = index;
  b.nodes = TreeNodes(sub_h, key.params.lms->m);
  auto scratch = std::make_unique<OtsKeygenScratch>();
  compute_subtree(key, (std::uint64_t{1} << kMaxStoredDepth) + index, sub_h, b.nodes, *scratch);
  return b;
}

Result<TreeNodes> build_tree(const TreeKey& key, const BuildOptions& options) {
  const unsigned h = key.params.lms->h;
  const std::size_t m = key.params.lms->m;
  TreeNodes tree(h, static_cast<unsigned>(m));
  const unsigned stored = tree.stored_depth();

  // Work units: subtrees of height `unit_h`, enough of them to keep every core busy.
  const unsigned bottom = h - stored;  // levels below the stored part
  const unsigned unit_h = std::max(bottom, std::min(h > 4 ? h - 4 : 0u, 10u));
  const unsigned unit_depth = h - unit_h;
  const std::uint64_t units = std::uint64_t{1} << unit_depth;
  const std::uint64_t total_leaves = std::uint64_t{1} << h;

  std::atomic<std::uint64_t> next_unit{0};
  std::atomic<std::uint64_t> leaves_done{0};
  std::atomic<bool> cancelled{false};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  std::mutex done_mutex;                // guards `running`; progress waits on done_changed
  std::condition_variable done_changed;

  auto work = [&]() {
    try {
      auto scratch = std::make_unique<OtsKeygenScratch>();
      TreeNodes local(unit_h, static_cast<unsigned>(m));
      for (;;) {
        if (cancelled.load(std::memory_order_relaxed)) return;
        const std::uint64_t u = next_unit.fetch_add(1);
        if (u >= units) return;
        const std::uint64_t root = units + u;
        compute_subtree(key, root, unit_h, local, *scratch);
        // Copy the stored part (global depth <= stored) of the unit into the tree.
        for (unsigned e = 0; e <= unit_h && unit_depth + e <= stored; ++e) {
          const std::uint64_t count = std::uint64_t{1} << e;
          std::memcpy(tree.node((root << e)), local.node(count), count * m);
        }
        leaves_done.fetch_add(std::uint64_t{1} << unit_h);
        if (options.progress) {
          std::lock_guard<std::mutex> lock(done_mutex);
          done_changed.notify_all();
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      cancelled = true;
    }
  };

  // Every worker is a thread of its own when progress is reported, so that the calling thread
  // (the only one allowed to call back) is free to report; otherwise the caller works too.
  const unsigned threads = static_cast<unsigned>(std::min<std::uint64_t>(worker_count(options.threads), units));
  unsigned running = 0;
  auto run_worker = [&] {
    work();
    std::lock_guard<std::mutex> lock(done_mutex);
    --running;
    done_changed.notify_all();
  };
  std::vector<std::thread> workers;
  const unsigned spawn = options.progress ? threads : threads - 1;
  for (unsigned t = 0; t < spawn; ++t) {
    try {
      {
        std::lock_guard<std::mutex> lock(done_mutex);
        ++running;
      }
      workers.emplace_back(run_worker);
    } catch (...) {
      // Fewer threads than asked for is slower, not wrong.
      std::lock_guard<std::mutex> lock(done_mutex);
      --running;
      break;
    }
  }
  if (!options.progress || workers.empty()) {
    work();
  }
  if (options.progress) {
    // Progress is paced by work done, not by a clock (docs/state.md §14): whenever another 1/64 of the
    // leaves is finished — for trees big enough to take a while (2^14 leaves: about a second).
    const std::uint64_t step = std::max<std::uint64_t>(total_leaves / 64, 1);
    std::uint64_t next_report = total_leaves >= (std::uint64_t{1} << 14) ? step : total_leaves + 1;
    std::unique_lock<std::mutex> lock(done_mutex);
    for (;;) {
      done_changed.wait(lock, [&] { return running == 0 || leaves_done.load() >= next_report; });
      if (running == 0) break;
      const std::uint64_t done = leaves_done.load();
      next_report = (done / step + 1) * step;
      if (done >= total_leaves) continue;  // the final report comes once, after the top levels
      lock.unlock();
      if (!options.progress(done, total_leaves)) cancelled = true;
      lock.lock();
    }
  }
  for (std::thread& t : workers) t.join();
  if (failure) std::rethrow_exception(failure);
  if (cancelled) return Error::kCancelled;

  // The levels above the units, from their roots.
  for (unsigned depth = unit_depth; depth-- > 0;) {
    const std::uint64_t first = std::uint64_t{1} << depth;
    hash_level(
        key.hasher, m, first, first, [&](std::uint64_t r) { return tree.node(r); },
        [&](std::uint64_t r) { return tree.node(r); });
  }
  if (options.progress) options.progress(total_leaves, total_leaves);
  return tree;
}

}  // namespace klms::lms
