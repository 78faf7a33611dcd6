// Order statistics of repeated timings: the benchmark reports medians with p10/p90 as the spread,
// because on a shared machine the mean is dragged by whoever else is running.
#pragma once

#include <cstddef>
#include <vector>

namespace klms::bench {

struct Summary {
  std::size_t count = 0;
  double median = 0, p10 = 0, p90 = 0, mean = 0, min = 0, max = 0;
};

// Percentiles by linear interpolation between order statistics (the same rule as numpy's default).
Summary summarize(std::vector<double> samples);

}  // namespace klms::bench
