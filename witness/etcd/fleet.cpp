#include "witness/etcd/fleet.h"

#include <sys/random.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <optional>
#include <thread>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/hex.h"

namespace klms::witness::etcd {
namespace {

using nlohmann::json;

std::uint64_t parse_decimal(const std::string& s, const std::string& what) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) {
    throw Failure{KLMS_WITNESS_NOT_OURS, what + " is not a decimal number: \"" + s.substr(0, 40) + "\""};
  }
  return v;
}

std::uint32_t random_host_id() {
  std::uint32_t id = 0;
  while (id == 0) {
    if (::getrandom(&id, sizeof id, 0) != static_cast<ssize_t>(sizeof id)) {
      throw Failure{KLMS_WITNESS_TPM_ERROR, "getrandom failed"};
    }
  }
  return id;
}

Op range(const std::string& key, const std::string& end = {}) { return Op{Op::Kind::kRange, key, end, {}}; }
Op put(const std::string& key, const std::string& value) { return Op{Op::Kind::kPut, key, {}, value}; }
Compare created_at(const std::string& key, std::uint64_t rev) { return Compare{key, Compare::Target::kCreate, rev, {}}; }
Compare modified_at(const std::string& key, std::uint64_t rev) { return Compare{key, Compare::Target::kMod, rev, {}}; }

constexpr int kMaxAttempts = 64;  // contention retries; the deadline bounds them too

// After a lost compare (another host took the counter first): a short random pause that grows
// with the attempts, so that hosts contending for the counter spread out instead of colliding again.
void back_off(int attempt) {
  std::uint32_t r = 0;
  (void)::getrandom(&r, sizeof r, GRND_NONBLOCK);
  const int cap_ms = std::min(50, 1 << std::min(attempt, 5));
  std::this_thread::sleep_for(std::chrono::microseconds(r % (static_cast<std::uint32_t>(cap_ms) * 1000u)));
}

}  // namespace

Fleet::Fleet(Client& client, const std::string& prefix, const std::string& key_id) : client_(client) {
  std::string p = prefix.empty() ? std::string("/klms") : prefix;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  root_ = p + "/" + key_id + "/";
  counter_key_ = root_ + "counter";
  key_key_ = root_ + "key";
  hosts_prefix_ = root_ + "hosts/";
  left_prefix_ = root_ + "left/";
}

std::string Fleet::host_key(std::uint32_t host_id) const {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", host_id);
  return hosts_prefix_ + hex;
}

std::string Fleet::left_key(std::uint32_t host_id) const {
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", host_id);
  return left_prefix_ + hex;
}

std::vector<Op> Fleet::key_ranges() const {
  return {range(counter_key_), range(hosts_prefix_, prefix_end(hosts_prefix_)), range(left_prefix_, prefix_end(left_prefix_))};
}

std::string Fleet::tombstone_value(std::uint64_t block_end) { return json{{"block_end", std::to_string(block_end)}}.dump(); }

std::uint64_t Fleet::parse_tombstone(const Kv& kv) {
  const json j = json::parse(kv.value, nullptr, false);
  if (!j.is_object() || j.size() != 1 || !j.contains("block_end") || !j["block_end"].is_string()) {
    throw Failure{KLMS_WITNESS_NOT_OURS, "the tombstone " + kv.key + " is not a klms tombstone"};
  }
  return parse_decimal(j["block_end"].get<std::string>(), kv.key + " block_end");
}

std::string Fleet::host_value(const HostRecord& r) {
  return json{{"block_end", std::to_string(r.block_end)}, {"next", std::to_string(r.next)}}.dump();
}

Fleet::HostRecord Fleet::parse_host(const Kv& kv) {
  const json j = json::parse(kv.value, nullptr, false);
  if (!j.is_object() || j.size() != 2 || !j.contains("block_end") || !j.contains("next") ||
      !j["block_end"].is_string() || !j["next"].is_string()) {
    throw Failure{KLMS_WITNESS_NOT_OURS, "the host record " + kv.key + " is not a klms host record"};
  }
  HostRecord r;
  r.block_end = parse_decimal(j["block_end"].get<std::string>(), kv.key + " block_end");
  r.next = parse_decimal(j["next"].get<std::string>(), kv.key + " next");
  if (r.next > r.block_end) throw Failure{KLMS_WITNESS_NOT_OURS, "the host record " + kv.key + " has next past its block"};
  return r;
}

std::uint64_t Fleet::parse_counter(const Kv& kv) { return parse_decimal(kv.value, "the key's counter " + kv.key); }

void Fleet::check_header(const Header& h, const klms_etcd_binding& in, bool allow_older) const {
  if (h.cluster_id != in.cluster_id) {
    char text[160];
    std::snprintf(text, sizeof text, "the cluster answering is %016llx, the state file joined %016llx",
                  static_cast<unsigned long long>(h.cluster_id), static_cast<unsigned long long>(in.cluster_id));
    throw Failure{KLMS_WITNESS_OTHER_CLUSTER, text};
  }
  if (!allow_older && h.revision < in.revision_seen) {
    throw Failure{KLMS_WITNESS_OLDER_REVISION,
                  "the cluster is at revision " + std::to_string(h.revision) + ", but this host has seen revision " +
                      std::to_string(in.revision_seen) + ": it was restored from a snapshot (docs/fleet.md \"Disaster restore\")"};
  }
  // A cluster restored from a snapshot starts a new raft log in a low term, and every leader
  // election since raises it. So this catches a restore only while the restored cluster's term is
  // still below the highest term this host saw: a host that wrote nothing since the snapshot (its
  // revision mark is not above it) but saw a higher term. Elections in the restored cluster (two
  // leader changes can be enough) hide it for good; nothing else here can tell. A heuristic, never
  // the protection: that is the procedure of docs/fleet.md "Disaster restore".
  if (!allow_older && h.raft_term < in.term_seen) {
    throw Failure{KLMS_WITNESS_OLDER_REVISION,
                  "the cluster is in raft term " + std::to_string(h.raft_term) + ", but this host has seen term " +
                      std::to_string(in.term_seen) + ": it was restored from a snapshot (docs/fleet.md \"Disaster restore\")"};
  }
}

Fleet::Snapshot Fleet::snapshot_of(const TxnResult& r, std::size_t counter_op, const klms_etcd_binding& in) {
  Snapshot s;
  s.header = r.header;
  const auto& counters = r.ranges.at(counter_op);
  if (counters.empty()) throw Failure{KLMS_WITNESS_MISSING, "the key has no counter in the cluster at " + counter_key_};
  s.counter = counters.front();
  if (s.counter.create_revision != in.counter_created) {
    throw Failure{KLMS_WITNESS_RECREATED, "the key's counter " + counter_key_ + " was deleted and created again (revision " +
                                              std::to_string(s.counter.create_revision) + ", the state file names " +
                                              std::to_string(in.counter_created) + ")"};
  }
  s.counter_value = parse_counter(s.counter);
  const std::string mine = host_key(in.host_id);
  bool found = false;
  for (const Kv& kv : r.ranges.at(counter_op + 2)) s.highest_block_end = std::max(s.highest_block_end, parse_tombstone(kv));
  for (const Kv& kv : r.ranges.at(counter_op + 1)) {
    const HostRecord h = parse_host(kv);
    s.highest_block_end = std::max(s.highest_block_end, h.block_end);
    ++s.hosts;
    if (kv.key == mine) {
      s.host = kv;
      s.host_record = h;
      found = true;
    }
  }
  if (!found) throw Failure{KLMS_WITNESS_MISSING, "this host's record " + mine + " is gone (it left or was removed: join again)"};
  if (s.host.create_revision != in.host_created) {
    throw Failure{KLMS_WITNESS_RECREATED, "this host's record " + mine + " was deleted and created again"};
  }
  return s;
}

Fleet::Snapshot Fleet::read_all(const klms_etcd_binding& in) {
  const TxnResult r = client_.txn({}, key_ranges());
  return snapshot_of(r, 0, in);
}

// What every answer must say before anything is handed out.
void Fleet::check_records(const Snapshot& s, const klms_etcd_binding& in, std::uint64_t local_next) const {
  const std::string at = " (counter " + std::to_string(s.counter_value) + ", host record next " +
                         std::to_string(s.host_record.next) + " block end " + std::to_string(s.host_record.block_end) +
                         ", state file next " + std::to_string(local_next) + " block end " + std::to_string(in.block_end) + ")";
  if (s.host_record.next < local_next || s.host_record.block_end < in.block_end) {
    throw Failure{KLMS_WITNESS_BACKWARDS, "this host's record in the cluster is behind its state file: it was rewritten lower or the cluster restored" + at};
  }
  if (s.counter_value < s.highest_block_end || s.counter_value < in.block_end) {
    throw Failure{KLMS_WITNESS_BACKWARDS, "the key's counter is below a block already handed out (highest block end of a host or a left host's tombstone " +
                                              std::to_string(s.highest_block_end) + "): it was rewritten lower" + at};
  }
}

klms_etcd_binding Fleet::create_key(const KeyDescription& key, std::uint64_t first_index) {
  const std::uint32_t host_id = random_host_id();
  const std::string digest = hex(key.levels_digest);
  const std::string description =
      json{{"levels_digest", digest}, {"max_signatures", std::to_string(key.max_signatures)}}.dump();
  const TxnResult r = client_.txn({created_at(counter_key_, 0), created_at(key_key_, 0)},
                                  {put(counter_key_, std::to_string(first_index)), put(key_key_, description),
                                   put(host_key(host_id), host_value({first_index, first_index}))},
                                  {range(counter_key_)});
  if (!r.succeeded) {
    throw Failure{KLMS_WITNESS_NOT_OURS, "the cluster already holds a counter for this key at " + counter_key_ +
                                             " (a key is generated once; another host joins with klms-state join)"};
  }
  klms_etcd_binding b{};
  b.cluster_id = r.header.cluster_id;
  b.counter_created = b.host_created = b.revision_seen = r.header.revision;  // one transaction, one revision
  b.term_seen = r.header.raft_term;
  b.block_end = first_index;
  b.host_id = host_id;
  return b;
}

klms_etcd_binding Fleet::join(KeyDescription& key) {
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const TxnResult seen = client_.txn({}, {range(counter_key_), range(key_key_)});
    if (seen.ranges[0].empty()) {
      throw Failure{KLMS_WITNESS_MISSING, "the key has no counter in the cluster at " + counter_key_ +
                                              " (was it generated with witness:etcd, under this etcd_prefix?)"};
    }
    const std::uint64_t counter_created = seen.ranges[0][0].create_revision;
    (void)parse_counter(seen.ranges[0][0]);
    if (seen.ranges[1].empty()) throw Failure{KLMS_WITNESS_NOT_OURS, "the key has no description at " + key_key_};
    const json d = json::parse(seen.ranges[1][0].value, nullptr, false);
    if (!d.is_object() || !d.contains("max_signatures") || !d["max_signatures"].is_string() ||
        !d.contains("levels_digest") || !d["levels_digest"].is_string() || d["levels_digest"].get<std::string>().size() != 64) {
      throw Failure{KLMS_WITNESS_NOT_OURS, "the key's description at " + key_key_ + " is not one of klms"};
    }
    key.max_signatures = parse_decimal(d["max_signatures"].get<std::string>(), key_key_ + " max_signatures");
    const std::string hex = d["levels_digest"].get<std::string>();
    for (std::size_t i = 0; i < 32; ++i) {
      unsigned v = 0;
      if (std::sscanf(hex.c_str() + 2 * i, "%2x", &v) != 1) throw Failure{KLMS_WITNESS_NOT_OURS, "the key's levels digest is not hex"};
      key.levels_digest[i] = static_cast<std::uint8_t>(v);
    }
    const std::uint32_t host_id = random_host_id();
    const std::string record = host_key(host_id);
    // An id whose tombstone exists is taken too: its tombstone keeps the block end of the host that left.
    const TxnResult r = client_.txn({created_at(counter_key_, counter_created), created_at(record, 0),
                                     created_at(left_key(host_id), 0)},
                                    {put(record, host_value({}))});
    if (!r.succeeded) {  // the counter was re-created, or the id is taken: look again
      back_off(attempt);
      continue;
    }
    klms_etcd_binding b{};
    b.cluster_id = r.header.cluster_id;
    b.counter_created = counter_created;
    b.host_created = b.revision_seen = r.header.revision;
    b.term_seen = r.header.raft_term;
    b.host_id = host_id;
    return b;
  }
  throw Failure{KLMS_WITNESS_CONTENDED, "could not create a host record (the key's records kept changing)"};
}

Grant Fleet::reserve(std::uint64_t max_signatures, const klms_etcd_binding& in, std::uint64_t local_next,
                     std::uint64_t want, std::uint64_t block, std::uint64_t gate) {
  if (want == 0) throw Failure{KLMS_WITNESS_TPM_ERROR, "a reservation of no index"};
  // The exhaustion gate (docs/state.md §5) on the indices this host would be granted, before
  // anything is committed: a host's block comes from the key's counter, so the state file's own next
  // index says nothing of how close to the key's end the grant is.
  auto check_gate = [&](std::uint64_t start, std::uint64_t count) {
    if (start + count <= gate) return;
    throw Failure{KLMS_WITNESS_UNACKNOWLEDGED,
                  "the indices the cluster would grant this host, [" + std::to_string(start) + ", " +
                      std::to_string(start + count) + "), include the key's last " + std::to_string(max_signatures - gate) +
                      " of " + std::to_string(max_signatures) + ", which wait for this host's acknowledgement"};
  };
  const std::string mine = host_key(in.host_id);
  std::optional<Snapshot> known;
  // Inside the block, with the record exactly as this state file left it: one transaction.
  if (local_next < in.block_end) {
    const std::uint64_t count = std::min(want, in.block_end - local_next);
    check_gate(local_next, count);
    std::vector<Op> otherwise = key_ranges();
    const TxnResult r = client_.txn(
        {created_at(mine, in.host_created), Compare{mine, Compare::Target::kValue, 0, host_value({in.block_end, local_next})}},
        {put(mine, host_value({in.block_end, local_next + count})), range(counter_key_)}, otherwise);
    check_header(r.header, in);
    if (r.succeeded) {
      // Our record moved; the counter, read in the same revision, must still cover our block.
      const auto& counters = r.ranges[1];
      if (counters.empty()) throw Failure{KLMS_WITNESS_MISSING, "the key has no counter in the cluster at " + counter_key_};
      if (counters[0].create_revision != in.counter_created) {
        throw Failure{KLMS_WITNESS_RECREATED, "the key's counter " + counter_key_ + " was deleted and created again"};
      }
      if (parse_counter(counters[0]) < in.block_end) {
        throw Failure{KLMS_WITNESS_BACKWARDS, "the key's counter is below this host's block: it was rewritten lower"};
      }
      Grant g;
      g.start = local_next;
      g.count = count;
      g.binding = in;
      g.binding.revision_seen = r.header.revision;
      g.binding.term_seen = r.header.raft_term;
      return g;
    }
    known = snapshot_of(r, 0, in);
  }
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    Snapshot s = known ? *known : read_all(in);
    known.reset();
    check_header(s.header, in);
    check_records(s, in, local_next);
    const HostRecord& h = s.host_record;
    Grant g;
    g.binding = in;
    TxnResult r;
    if (h.next < h.block_end) {
      // The rest of the block (the state file is behind its record: it skips what the record covers).
      g.start = h.next;
      g.count = std::min(want, h.block_end - h.next);
      g.binding.block_end = h.block_end;
      check_gate(g.start, g.count);
      r = client_.txn({modified_at(mine, s.host.mod_revision)}, {put(mine, host_value({h.block_end, h.next + g.count}))});
    } else {
      if (s.counter_value >= max_signatures) {
        throw Failure{KLMS_WITNESS_EXHAUSTED, "every index of the key has been handed out to the fleet (counter " +
                                                  std::to_string(s.counter_value) + " of " + std::to_string(max_signatures) + ")"};
      }
      const std::uint64_t size = std::min(std::max(block, want), max_signatures - s.counter_value);
      g.start = s.counter_value;
      g.count = std::min(want, size);
      g.binding.block_end = s.counter_value + size;
      check_gate(g.start, g.count);
      r = client_.txn({modified_at(counter_key_, s.counter.mod_revision), modified_at(mine, s.host.mod_revision)},
                      {put(counter_key_, std::to_string(s.counter_value + size)),
                       put(mine, host_value({s.counter_value + size, s.counter_value + g.count}))});
    }
    check_header(r.header, in);
    if (r.succeeded) {
      g.binding.revision_seen = r.header.revision;
      g.binding.term_seen = r.header.raft_term;
      return g;
    }
    back_off(attempt);
  }
  throw Failure{KLMS_WITNESS_CONTENDED, "the key's records kept changing under this host (another process with a copy of its state file?)"};
}

void Fleet::read(const klms_etcd_binding& in, std::uint64_t local_next, klms_etcd_reading& out) {
  const Snapshot s = read_all(in);
  out.counter = s.counter_value;
  out.host_next = s.host_record.next;
  out.host_block_end = s.host_record.block_end;
  out.revision = s.header.revision;
  out.hosts = s.hosts;
  check_header(s.header, in);
  check_records(s, in, local_next);
}

void Fleet::leave(const klms_etcd_binding& in) {
  const std::string mine = host_key(in.host_id);
  const std::string tombstone = left_key(in.host_id);
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const TxnResult seen = client_.txn({}, {range(mine), range(tombstone)});
    check_header(seen.header, in, /*allow_older=*/true);
    if (seen.ranges[0].empty() || seen.ranges[0][0].create_revision != in.host_created) {
      throw Failure{KLMS_WITNESS_MISSING, "this host's record " + mine + " is not there (left already?)"};
    }
    const Kv& record = seen.ranges[0][0];
    // What the cluster handed out to this host: its record's block end (never below its state
    // file's, which a leaving host has already moved to the key's end), or an earlier tombstone's.
    std::uint64_t end = parse_host(record).block_end;
    std::uint64_t tombstone_mod = 0;
    if (!seen.ranges[1].empty()) {
      end = std::max(end, parse_tombstone(seen.ranges[1][0]));
      tombstone_mod = seen.ranges[1][0].mod_revision;
    }
    // The record goes and its tombstone stays in one transaction: the key's counter stays held
    // against the block end of a host that left (docs/fleet.md "Leaving, replacing, losing a host").
    const TxnResult r = client_.txn(
        {modified_at(mine, record.mod_revision), modified_at(tombstone, tombstone_mod)},
        {Op{Op::Kind::kDeleteRange, mine, {}, {}}, put(tombstone, tombstone_value(end))});
    check_header(r.header, in, /*allow_older=*/true);
    if (r.succeeded) return;
    back_off(attempt);
  }
  throw Failure{KLMS_WITNESS_CONTENDED, "this host's record kept changing while it left"};
}

klms_etcd_binding Fleet::resync(std::uint64_t max_signatures, const klms_etcd_binding& in, std::uint64_t local_next,
                                std::uint64_t counter_at_least) {
  const std::string mine = host_key(in.host_id);
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const Snapshot s = read_all(in);
    check_header(s.header, in, /*allow_older=*/true);
    // Everything this host ever held lies below max(its block end, its next); others' blocks below
    // the counter or what the operator names. The host gives up the rest of its block: a host that
    // signed from the restored cluster before this ran may hold indices in it.
    std::uint64_t target = std::max({s.counter_value, in.block_end, local_next, s.host_record.block_end,
                                     s.highest_block_end, counter_at_least});
    target = std::min(target, max_signatures);
    const TxnResult r = client_.txn({modified_at(counter_key_, s.counter.mod_revision), modified_at(mine, s.host.mod_revision)},
                                    {put(counter_key_, std::to_string(target)), put(mine, host_value({target, target}))});
    if (!r.succeeded) continue;
    klms_etcd_binding out = in;
    out.block_end = target;
    out.revision_seen = r.header.revision;
    out.term_seen = r.header.raft_term;  // the restored cluster's, accepted
    return out;
  }
  throw Failure{KLMS_WITNESS_CONTENDED, "the key's records kept changing during resync"};
}

void Fleet::delete_key(const klms_etcd_binding& in) {
  const TxnResult r = client_.txn({created_at(counter_key_, in.counter_created)},
                                  {Op{Op::Kind::kDeleteRange, root_, prefix_end(root_), {}}});
  check_header(r.header, in, /*allow_older=*/true);
  if (!r.succeeded) throw Failure{KLMS_WITNESS_MISSING, "the key's counter " + counter_key_ + " is not the one this state file names"};
}

}  // namespace klms::witness::etcd
