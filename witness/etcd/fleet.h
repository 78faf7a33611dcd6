// The fleet protocol (docs/fleet.md "How indices are handed out"): per key, a counter in etcd (the
// next index no host holds) and a record per host (the end of its block and its next index).
//
//   <prefix>/<key id>/counter            "N"                                  decimal
//   <prefix>/<key id>/hosts/<host id>    {"block_end":"E","next":"N"}         JSON, decimals as strings
//   <prefix>/<key id>/left/<host id>     {"block_end":"E"}                    a host that left: its tombstone
//
// A host takes a block by moving the counter and its record in one transaction that compares both
// records' revisions; every reservation inside the block is one transaction that compares its
// record. The key's description (maximum, levels digest) is <prefix>/<key id>/key, for join.
// The counter is held against every block end the key's records name, a left host's tombstone
// included: a counter rewritten lower by one `put` is refused instead of handing a block out again.
// Both are committed by the cluster's quorum before the state file is written, and the
// state file is written before any index is used: a host's record is never behind what it used.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "state/witness_module_abi.h"
#include "witness/etcd/etcd_kv.h"

namespace klms::witness::etcd {

struct Grant {
  std::uint64_t start = 0;
  std::uint64_t count = 0;
  klms_etcd_binding binding{};
};

class Fleet {
 public:
  Fleet(Client& client, const std::string& prefix, const std::string& key_id);

  struct KeyDescription {
    std::uint64_t max_signatures = 0;
    std::array<std::uint8_t, 32> levels_digest{};
  };
  klms_etcd_binding create_key(const KeyDescription& key, std::uint64_t first_index);
  klms_etcd_binding join(KeyDescription& key);
  // Nothing is committed when the grant would reach past `gate` (state/witness_module_abi.h).
  Grant reserve(std::uint64_t max_signatures, const klms_etcd_binding& in, std::uint64_t local_next,
                std::uint64_t want, std::uint64_t block, std::uint64_t gate);
  // Fills `out` as far as the answer goes, then checks (so a refused reading is still shown).
  void read(const klms_etcd_binding& in, std::uint64_t local_next, klms_etcd_reading& out);
  void leave(const klms_etcd_binding& in);
  klms_etcd_binding resync(std::uint64_t max_signatures, const klms_etcd_binding& in, std::uint64_t local_next,
                           std::uint64_t counter_at_least);
  void delete_key(const klms_etcd_binding& in);

 private:
  struct HostRecord {
    std::uint64_t block_end = 0;
    std::uint64_t next = 0;
  };
  struct Snapshot {  // the key's records as one answer gave them
    Header header;
    Kv counter;
    std::uint64_t counter_value = 0;
    Kv host;
    HostRecord host_record;
    std::uint64_t highest_block_end = 0;  // over every host record and tombstone of the key
    std::uint64_t hosts = 0;              // host records (tombstones not counted)
  };

  std::string host_key(std::uint32_t host_id) const;
  std::string left_key(std::uint32_t host_id) const;
  static std::string host_value(const HostRecord& r);
  static HostRecord parse_host(const Kv& kv);
  static std::string tombstone_value(std::uint64_t block_end);
  static std::uint64_t parse_tombstone(const Kv& kv);
  static std::uint64_t parse_counter(const Kv& kv);
  void check_header(const Header& h, const klms_etcd_binding& in, bool allow_older = false) const;
  // The ranges `counter_op`, `counter_op + 1` (host records) and `counter_op + 2` (tombstones) of `r`.
  Snapshot snapshot_of(const TxnResult& r, std::size_t counter_op, const klms_etcd_binding& in);
  std::vector<Op> key_ranges() const;  // the counter, the host records, the tombstones
  Snapshot read_all(const klms_etcd_binding& in);
  void check_records(const Snapshot& s, const klms_etcd_binding& in, std::uint64_t local_next) const;

  Client& client_;
  std::string root_;  // <prefix>/<key id>/
  std::string counter_key_;
  std::string key_key_;  // <root>key: the key's description
  std::string hosts_prefix_;
  std::string left_prefix_;
};

}  // namespace klms::witness::etcd
