// The hash-call profile of keygen, sign and verify for one configuration: every hash counted by
// total input length and path (counting_backend.h), averaged per operation, each (length, path)
// priced with the backend's measured cost for exactly that hash (hash_cost.h). The estimate
// (sum of hashes x ns per hash) next to the measured time shows where an operation's time goes.
#pragma once

#include <string>
#include <vector>

#include "bench/study/config.h"
#include "bench/study/options.h"
#include "bench/study/rows.h"

namespace klms::bench {

// `measured` are the scheme rows of the same configuration (for the measured_us_per_op column).
std::vector<ProfileRow> profile_config(const Options& options, const Config& config, const std::string& dir,
                                       const std::vector<Row>& measured);

}  // namespace klms::bench
