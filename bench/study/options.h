// Command line of klms-bench. Lists are comma-separated; every combination of the lists is run.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace klms::bench {

struct Options {
  std::vector<std::string> backends = {"all"};  // "all", table names, or the variants of variant_backends.h
  std::vector<unsigned> heights = {10};         // top-level h
  std::vector<unsigned> winternitz = {4};
  std::vector<unsigned> levels = {1};
  std::vector<unsigned> threads = {1, 0};       // key generation threads; 0 = every core
  unsigned lower_height = 0;                    // h of levels below the top; 0 = same as the top
  unsigned reps = 200;                          // timed runs of sign / verify
  unsigned keygen_reps = 7;                     // timed runs of key generation
  unsigned warmup = 3;                          // untimed runs before each timed series
  double keygen_budget_seconds = 60;            // stop repeating keygen once this much time is spent
  std::size_t message_bytes = 1024;
  std::vector<std::string> ops;                 // empty: every op but profile
  std::string csv;                              // scheme rows
  std::string profile_csv;                      // hash-call profile rows
  std::string hash_cost_csv;                    // --hash-costs rows
  std::vector<std::size_t> hash_cost_lengths;   // --hash-costs=55,54,...: one-shot cost per backend
  bool table = true;
  bool list_backends = false;
  bool xmss_compare = false;                    // --xmss-compare: K-LMS vs K-XMSS (xmss_compare.h)
  std::vector<std::string> xmss_sets;           // --xmss=SET,...: the XMSS engine on named sets (xmss_sets.h)
  // Internal: the per-configuration child that measures peak memory (peak_memory.h).
  bool child = false;
  std::string child_backend, child_dir;
  unsigned child_h = 0, child_w = 0, child_levels = 0, child_lower_h = 0, child_threads = 0;

  bool wants(const std::string& op) const;
};

// nullopt and a message in `error` on a bad option; `help` set for --help.
std::optional<Options> parse_options(int argc, char** argv, std::string& error, bool& help);
const char* usage() noexcept;

}  // namespace klms::bench
