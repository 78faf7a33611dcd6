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

// The work units of a build: subtrees of height `unit_h`, enough of them to keep every core busy,
// never lower than the levels below the stored part.
struct UnitPlan {
  unsigned unit_h = 0;
  unsigned unit_depth = 0;  // the depth of the units' roots
  std::uint64_t units = 0;
  std::uint64_t total_leaves = 0;
};

UnitPlan plan_units(unsigned h, unsigned stored) {
  const unsigned bottom = h - stored;  // levels below the stored part
  UnitPlan plan;
  plan.unit_h = std::max(bottom, std::min(h > 4 ? h - 4 : 0u, 10u));
  plan.unit_depth = h - plan.unit_h;
  plan.units = std::uint64_t{1} << plan.unit_depth;
  plan.total_leaves = std::uint64_t{1} << h;
  return plan;
}

// The units of one build, computed by workers that take them in turn, and the progress reports.
class TreeBuild {
 public:
  TreeBuild(const TreeKey& key, const UnitPlan& plan, TreeNodes& tree) : key_(key), plan_(plan), tree_(tree) {}
  TreeBuild(const TreeBuild&) = delete;
  TreeBuild& operator=(const TreeBuild&) = delete;
  ~TreeBuild() {
    cancelled_ = true;
    join();
  }

  // Every worker is a thread of its own when progress is reported, so that the calling thread
  // (the only one allowed to call back) is free to report; otherwise the caller works too.
  void run(unsigned threads, const ProgressCallback& progress, std::uint64_t report_from_leaves) {
    reports_ = static_cast<bool>(progress);
    spawn(reports_ ? threads : threads - 1);
    if (!reports_ || workers_.empty()) work();
    if (reports_) report(progress, report_from_leaves);
  }

  // After run: kCancelled if the callback asked to stop; a worker's exception is rethrown here.
  Error finish() {
    join();
    if (failure_) std::rethrow_exception(failure_);
    return cancelled_ ? Error::kCancelled : Error::kOk;
  }

 private:
  // One worker: units until none is left, each computed in `local` and its stored part copied out.
  void work() {
    try {
      // Every byte is written before it is read: no 400 KiB memset per worker.
      auto scratch = std::make_unique_for_overwrite<OtsKeygenScratch>();
      TreeNodes local(plan_.unit_h, tree_.node_bytes());
      for (;;) {
        if (cancelled_.load(std::memory_order_relaxed)) return;
        const std::uint64_t u = next_unit_.fetch_add(1);
        if (u >= plan_.units) return;
        const std::uint64_t root = plan_.units + u;
        compute_subtree(key_, root, plan_.unit_h, local, *scratch);
        copy_stored_part(root, local);
        leaves_done_.fetch_add(std::uint64_t{1} << plan_.unit_h);
        if (reports_) {
          std::lock_guard<std::mutex> lock(done_mutex_);
          done_changed_.notify_all();
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex_);
      if (!failure_) failure_ = std::current_exception();
      cancelled_ = true;
    }
  }

  // The unit's nodes at global depth <= the stored depth, level by level.
  void copy_stored_part(std::uint64_t root, const TreeNodes& local) {
    const std::size_t m = tree_.node_bytes();
    for (unsigned e = 0; e <= plan_.unit_h && plan_.unit_depth + e <= tree_.stored_depth(); ++e) {
      const std::uint64_t count = std::uint64_t{1} << e;
      std::memcpy(tree_.node((root << e)), local.node(count), count * m);
    }
  }

  void spawn(unsigned count) {
    for (unsigned t = 0; t < count; ++t) {
      try {
        {
          std::lock_guard<std::mutex> lock(done_mutex_);
          ++running_;
        }
        workers_.emplace_back([this] {
          work();
          std::lock_guard<std::mutex> lock(done_mutex_);
          --running_;
          done_changed_.notify_all();
        });
      } catch (...) {
        // Fewer threads than asked for is slower, not wrong.
        std::lock_guard<std::mutex> lock(done_mutex_);
        --running_;
        break;
      }
    }
  }

  // Progress is paced by work done, not by a clock (docs/state.md §14): whenever another 1/64 of the
  // leaves is finished — for trees big enough to take a while (BuildOptions::report_from_leaves).
  void report(const ProgressCallback& progress, std::uint64_t report_from_leaves) {
    const std::uint64_t total = plan_.total_leaves;
    const std::uint64_t step = std::max<std::uint64_t>(total / 64, 1);
    std::uint64_t next_report = total >= report_from_leaves ? step : total + 1;
    std::unique_lock<std::mutex> lock(done_mutex_);
    for (;;) {
      done_changed_.wait(lock, [&] { return running_ == 0 || leaves_done_.load() >= next_report; });
      if (running_ == 0) break;
      const std::uint64_t done = leaves_done_.load();
      next_report = (done / step + 1) * step;
      if (done >= total) continue;  // the final report comes once, after the top levels
      lock.unlock();
      if (!progress(done, total)) cancelled_ = true;
      lock.lock();
    }
  }

  void join() {
    for (std::thread& t : workers_) {
      if (t.joinable()) t.join();
    }
  }

  const TreeKey& key_;
  const UnitPlan& plan_;
  TreeNodes& tree_;
  bool reports_ = false;
  std::atomic<std::uint64_t> next_unit_{0};
  std::atomic<std::uint64_t> leaves_done_{0};
  std::atomic<bool> cancelled_{false};
  std::mutex failure_mutex_;
  std::exception_ptr failure_;
  std::mutex done_mutex_;  // guards `running_`; progress waits on done_changed_
  std::condition_variable done_changed_;
  unsigned running_ = 0;
  std::vector<std::thread> workers_;
};

// The levels above the units, from their roots.
void hash_top_levels(const TreeHasher& hasher, std::size_t m, unsigned unit_depth, TreeNodes& tree) {
  for (unsigned depth = unit_depth; depth-- > 0;) {
    const std::uint64_t first = std::uint64_t{1} << depth;
    hash_level(
        hasher, m, first, first, [&](std::uint64_t r) { return tree.node(r); },
        [&](std::uint64_t r) { return tree.node(r); });
  }
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
  auto scratch = std::make_unique_for_overwrite<OtsKeygenScratch>();  // (written before read)
  compute_subtree(key, (std::uint64_t{1} << kMaxStoredDepth) + index, sub_h, b.nodes, *scratch);
  return b;
}

Result<TreeNodes> build_tree(const TreeKey& key, const BuildOptions& options) {
  const unsigned h = key.params.lms->h;
  const std::size_t m = key.params.lms->m;
  TreeNodes tree(h, static_cast<unsigned>(m));
  const UnitPlan plan = plan_units(h, tree.stored_depth());
  // The start, before any worker runs: a caller that prints what it builds says so before the wait.
  if (options.progress && plan.total_leaves >= options.report_from_leaves && !options.progress(0, plan.total_leaves)) {
    return Error::kCancelled;
  }
  {
    TreeBuild build(key, plan, tree);
    build.run(static_cast<unsigned>(std::min<std::uint64_t>(worker_count(options.threads), plan.units)),
              options.progress, options.report_from_leaves);
    if (const Error e = build.finish(); e != Error::kOk) return e;
  }
  hash_top_levels(key.hasher, m, plan.unit_depth, tree);
  if (options.progress) options.progress(plan.total_leaves, plan.total_leaves);
  return tree;
}

}  // namespace klms::lms
