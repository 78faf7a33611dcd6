// Shared pieces of klms-hash-bench: bench/bench_util.h, plus the long-message size.
#pragma once

#include "bench/bench_util.h"

namespace klms::bench::hash {

using bench::add;
using bench::ChainInputs;
using bench::kIdentifierBytes;
using bench::kTmpOffset;
using bench::pattern;
using bench::set_per_message;

inline constexpr std::size_t kLongMessage = 16 * 1024;

}  // namespace klms::bench::hash
