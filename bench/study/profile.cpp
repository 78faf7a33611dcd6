#include "bench/study/profile.h"

#include <cmath>
#include <map>
#include <tuple>

#include "bench/study/bench_key.h"
#include "bench/study/counting_backend.h"
#include "bench/study/hash_cost.h"
#include "bench/study/variant_backends.h"
#include "lms/verify.h"

namespace klms::bench {
namespace {

struct OpCounts {
  std::string op;
  std::vector<LengthCount> counts;
  double operations = 1;
};

// The op's measured median. Key generation: the tree alone (keygen-tree) on one thread when it was
// measured, since the estimate is the hashing's CPU time and generate_key adds file I/O.
double measured_median(const std::vector<Row>& rows, const std::string& op) {
  for (const char* name : {"keygen-tree", "keygen"}) {
    for (const Row& r : rows) {
      const bool match = op == "keygen" ? r.op == name && r.threads == 1 : r.op == op;
      if (match && r.time_us) return r.time_us->median;
    }
    if (op != "keygen") break;
  }
  return -1;
}

}  // namespace

std::vector<ProfileRow> profile_config(const Options& o, const Config& c, const std::string& dir,
                                       const std::vector<Row>& measured) {
  std::vector<OpCounts> ops;
  {
    Config counted = c;
    counted.backend = &counting_backend(*c.backend);
    const klms::Bytes message(o.message_bytes, 0x3c);
    // Key generation on one thread: the counts do not depend on threads, the estimate is CPU time.
    reset_hash_counts();
    BenchKey key(counted, dir, "profile", 1);
    if (key.status() != klms::Error::kOk) return {};
    if (!is_study_variant(*c.backend)) ops.push_back({"keygen", hash_counts(), 1});

    // Lower HSS trees are built before counting: the profile is of a signature, not of a rebuild.
    const unsigned n = std::min<unsigned>(o.reps, 16);
    std::vector<klms::Bytes> signatures;
    {
      auto warm = key.lease(n + 1);
      if (!warm) return {};
      (void)key.signer().prepare(warm->index());
      auto first = key.signer().sign(std::move(*warm), message);
      if (!first) return {};
    }
    reset_hash_counts();
    for (unsigned i = 0; i < n; ++i) {
      auto lease = key.lease(n + 1);
      if (!lease) return {};
      auto sig = key.signer().sign(std::move(*lease), message);
      if (!sig) return {};
      signatures.push_back(std::move(*sig));
    }
    ops.push_back({"sign", hash_counts(), static_cast<double>(n)});

    reset_hash_counts();
    for (const klms::Bytes& sig : signatures) {
      if (lms::hss_verify(key.signer().public_key(), message, sig, counted.backend) != klms::Error::kOk) return {};
    }
    ops.push_back({"verify", hash_counts(), static_cast<double>(signatures.size())});
  }

  // Price every (length, path, batch) once, on the real backend.
  std::map<std::tuple<std::size_t, int, std::size_t>, double> prices;
  std::vector<ProfileRow> rows;
  for (const OpCounts& oc : ops) {
    double total_hashes = 0, total_us = 0, total_inside_us = 0;
    for (const LengthCount& lc : oc.counts) total_hashes += static_cast<double>(lc.messages);
    std::vector<ProfileRow> op_rows;
    for (const LengthCount& lc : oc.counts) {
      const std::size_t batch = lc.path == HashPath::kMany
                                    ? static_cast<std::size_t>(std::lround(static_cast<double>(lc.messages) /
                                                                           static_cast<double>(lc.calls)))
                                    : 1;
      const auto key = std::make_tuple(lc.input_bytes, static_cast<int>(lc.path), batch);
      if (!prices.count(key)) prices[key] = ns_per_message(*c.backend, lc.path, lc.input_bytes, batch);
      ProfileRow r;
      r.backend = std::string(c.backend->name);
      r.op = oc.op;
      r.lms_type = c.lms_names();
      r.ots_type = c.ots_names();
      r.levels = c.levels;
      r.threads = 1;
      r.input_bytes = lc.input_bytes;
      r.path = hash_path_name(lc.path);
      r.hashes_per_op = static_cast<double>(lc.messages) / oc.operations;
      r.calls_per_op = static_cast<double>(lc.calls) / oc.operations;
      r.share_of_hashes = static_cast<double>(lc.messages) / total_hashes;
      r.ns_per_hash = prices[key];
      r.est_us_per_op = r.hashes_per_op * r.ns_per_hash / 1000;
      r.inside_ns_per_hash = lc.inside_ns / static_cast<double>(lc.messages);
      r.inside_us_per_op = lc.inside_ns / oc.operations / 1000;
      total_us += r.est_us_per_op;
      total_inside_us += r.inside_us_per_op;
      op_rows.push_back(r);
    }
    for (ProfileRow& r : op_rows) r.share_of_est_time = total_us > 0 ? r.est_us_per_op / total_us : 0;
    ProfileRow total;
    total.backend = std::string(c.backend->name);
    total.op = oc.op;
    total.lms_type = c.lms_names();
    total.ots_type = c.ots_names();
    total.levels = c.levels;
    total.threads = 1;
    total.path = "total";
    total.hashes_per_op = total_hashes / oc.operations;
    total.share_of_hashes = 1;
    total.est_us_per_op = total_us;
    total.inside_us_per_op = total_inside_us;
    total.inside_ns_per_hash = total_hashes > 0 ? total_inside_us * 1000 * oc.operations / total_hashes : 0;
    total.share_of_est_time = 1;
    total.measured_us_per_op = measured_median(measured, oc.op);
    op_rows.push_back(total);
    rows.insert(rows.end(), op_rows.begin(), op_rows.end());
  }
  return rows;
}

}  // namespace klms::bench
