// Scheme-level measurements of one configuration: key generation (whole, and the tree alone) for
// each thread count, signing from the in-memory tree, signing plus one durable state write,
// signing through the cache file, verification, building a lower HSS tree, sizes, and peak memory.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench/study/config.h"
#include "bench/study/options.h"
#include "bench/study/rows.h"

namespace klms::bench {

// `emit` gets every row as soon as it is measured. `dir` is a private directory for key files.
void measure_scheme(const Options& options, const Config& config, const std::string& dir,
                    const std::function<void(const Row&)>& emit);

// The distinct thread counts the options ask for, as real numbers (0 = every core resolved).
std::vector<unsigned> thread_counts(const Options& options);

}  // namespace klms::bench
