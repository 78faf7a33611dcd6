// How a scheme builds a tree of one-time keys, as every caller of the stateful layer asks for it:
// on how many cores, and with what progress. The engines' own names for these (lms/merkle_tree.h)
// are these types.
#pragma once

#include <cstdint>
#include <functional>

namespace klms::stateful {

// Progress of a long computation: (leaves done, leaves in all). Return false to cancel. Called from
// the thread that started the computation only. For trees of `report_from_leaves` leaves or more:
// once with done = 0 before the first leaf, then every 1/64 of the leaves; for every tree once at
// the end (done = total).
using ProgressCallback = std::function<bool(std::uint64_t done, std::uint64_t total)>;

struct BuildOptions {
  unsigned threads = 0;  // 0 = every core
  ProgressCallback progress;
  // Smaller trees report only their end: 2^14 leaves take about a second, and genpkey prints no
  // dots for a key that quick. 0: every tree reports (progress lines that were asked for).
  std::uint64_t report_from_leaves = std::uint64_t{1} << 14;
};

}  // namespace klms::stateful
