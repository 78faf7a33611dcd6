// The witness (docs/state.md "The witness"): a monotonic counter kept outside the state file, so
// that a state file restored from a backup, an image or a snapshot cannot sign an index again.
//
// The rule, for a witnessed file: the counter's value minus the file's recorded base is the
// highest index ever reserved plus one (the witnessed high-water mark, `hw`). Every write that
// moves the next index first writes the file, then advances the counter by exactly as many
// indices, reads it back, and only then hands anything out. So at rest
//   hw == next   the file and its witness agree;
//   hw <  next   a process died between the file write and the increments: nothing of that write
//                was handed out; the increments are completed (it only moves the witness forward);
//   hw >  next   the file is behind its witness: it was restored, copied or rolled back (or an
//                orderly counter jumped after an unclean TPM restart): refused, and
//                `klms-state resync` moves next to hw — every index below hw may have been used,
//                none at or above it was handed out.
// The state store never learns what the witness is beyond this file: the provider and the engine
// do not know which witness a key uses.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "base/error.h"

namespace klms::state {

enum class WitnessKind : std::uint32_t { kNone = 0, kTpm = 1, kEtcd = 2 };

const char* witness_kind_name(WitnessKind kind) noexcept;  // "none", "tpm", "etcd"

using CounterNameDigest = std::array<std::uint8_t, 32>;  // SHA-256 of the counter's TPM name

// An etcd fleet host's place (docs/fleet.md "How indices are handed out"): the file's next index is the
// host's next index; its record in the cluster is never behind it.
struct FleetBinding {
  std::uint32_t host_id = 0;          // the host record's name; 0 until joined
  std::uint64_t cluster_id = 0;       // the cluster's id when the host joined
  std::uint64_t counter_created = 0;  // create revision of the key's counter
  std::uint64_t host_created = 0;     // create revision of this host's record
  std::uint64_t revision_seen = 0;    // the highest cluster revision this host has seen
  std::uint64_t block_end = 0;        // end (exclusive) of the host's current block
  std::uint64_t term_seen = 0;        // the highest raft term this host has seen
  bool operator==(const FleetBinding&) const = default;
};

// What a state file records of its witness (state/file_format.h, the witness record).
struct WitnessRecord {
  WitnessKind kind = WitnessKind::kNone;
  // kTpm:
  std::uint32_t nv_index = 0;  // 0 until bound
  std::uint64_t base = 0;      // counter value minus next at binding, mod 2^64
  CounterNameDigest counter_name{};
  // kEtcd:
  FleetBinding fleet;
  // kTpm, a counter with a per-binding policy (docs/state.md "One binding, one name"); false: a
  // counter bound before them, whose name every klms counter at its handle shares.
  bool tpm_policy = false;
  // With tpm_policy only: indices the last write moved next by before its increments (a pending
  // gap is never larger), and the TPM's reset and restart counts that write saw.
  std::uint64_t last_reservation = 0;
  std::uint32_t tpm_reset_count = 0;
  std::uint32_t tpm_restart_count = 0;
  bool operator==(const WitnessRecord&) const = default;
};

// NV index handles klms defines its counters at: 256 handles of the owner range (TCG "Registry of
// Reserved TPM 2.0 Handles and Localities": 0x01000000-0x013FFFFF is for the owner's use).
inline constexpr std::uint32_t kTpmFirstIndex = 0x01384C00;
inline constexpr std::uint32_t kTpmLastIndex = 0x01384CFF;

// Where the witness is and how long one call may take; from the provider configuration
// (tpm_tcti, tpm_timeout_ms, tpm_owner_auth_file, tpm_nv_write_budget) and the environment.
struct WitnessConfig {
  std::string tpm_tcti;            // empty: $KLMS_TPM_TCTI, else "device:/dev/tpmrm0"
  std::string tpm_owner_auth;      // the owner hierarchy's authorization; empty on a fresh TPM
  unsigned timeout_ms = 10000;     // per call, plus kTpmMillisPerIncrement per increment
  // An orderly counter writes its NV once per 256 increments (TPM2_PT_ORDERLY_COUNT 255 in the
  // reference implementation and swtpm): a key's life costs max_signatures / 256 NV writes. Keys
  // beyond this many NV writes are refused (docs/state.md "The witness", "TPM endurance").
  std::uint64_t tpm_nv_write_budget = 100000;
  // The etcd fleet (docs/fleet.md "Configuration"): etcd_* keys, else the KLMS_ETCD_* variables.
  std::string etcd_endpoints;  // comma-separated URLs
  std::string etcd_prefix;     // empty: $KLMS_ETCD_PREFIX, else "/klms"
  std::string etcd_cacert;
  std::string etcd_cert;
  std::string etcd_key;
  std::string etcd_user;
  std::string etcd_password;   // from etcd_password_file / $KLMS_ETCD_PASSWORD_FILE, never a command line
  unsigned etcd_timeout_ms = 5000;  // a whole call, failover and retries included
  std::uint64_t etcd_block = 0;     // indices a host takes from the key's counter at a time; 0: $KLMS_ETCD_BLOCK, else 256
};

// The etcd settings with the environment applied where the configuration is silent. kOk, or
// kWitnessAuthFailed when the password file cannot be read.
struct ResolvedEtcd {
  std::string endpoints, prefix, cacert, cert, key, user, password;
  unsigned timeout_ms = 5000;
  std::uint64_t block = 256;
  ~ResolvedEtcd();
};
// `with_password` false: everything but the password (no password file is read).
Error resolve_etcd(const WitnessConfig& config, ResolvedEtcd& out, std::string* why = nullptr, bool with_password = true);
inline constexpr unsigned kTpmMillisPerIncrement = 200;
inline constexpr std::uint64_t kTpmIncrementsPerNvWrite = 256;

// The TCTI the configuration names, resolved ($KLMS_TPM_TCTI, then the kernel's resource manager).
std::string resolved_tcti(const WitnessConfig& config);

// kOk, or kWitnessBudget when a key of `max_signatures` would write the TPM's NV more than the budget.
Error check_witness_budget(WitnessKind kind, std::uint64_t max_signatures, const WitnessConfig& config) noexcept;

// What the counter says now.
struct CounterReading {
  std::uint32_t nv_index = 0;
  std::uint64_t value = 0;
  CounterNameDigest name{};
  bool policy = false;  // the counter has a per-binding policy
  std::uint32_t reset_count = 0;    // the TPM's, when this process connected
  std::uint32_t restart_count = 0;
  std::array<std::uint8_t, 66> raw_name{};  // the TPM name itself (undefine checks it again)
  std::size_t raw_name_len = 0;
};

// The record of a file that must be bound on the host that signs (WITNESS_REQUIRED): its kind and
// no counter yet; a TPM one will be bound with a per-binding policy.
WitnessRecord required_record(WitnessKind kind) noexcept;

// A new TPM binding's record of `reading` at next index `next` (docs/state.md "The rule").
WitnessRecord tpm_record_of(const CounterReading& reading, std::uint64_t next) noexcept;

// What a file and its witness say together (display: pkey -text, klms-state show).
enum class WitnessState : std::uint8_t {
  kNone,          // the file has no witness
  kRequired,      // must be bound on the signing host first
  kAgrees,        // hw == next
  kPending,       // hw < next: increments to complete (nothing handed out)
  kBehind,        // hw > next: restored, copied or rolled back; resync
  kUnreachable,   // no answer (or no module): no signature
  kMissing,       // no counter at that index: released, another host, or the TPM cleared
  kDifferent,     // a counter of another name at that index
  kRefused,       // the TPM refused (authorization, another error)
  kSkips,         // etcd: the host record is ahead of the file; the next reservation skips the difference
  kNoModule,      // the witness's module cannot be loaded: no signature
};
const char* witness_state_name(WitnessState state) noexcept;

struct WitnessStatus {
  WitnessState state = WitnessState::kNone;
  WitnessRecord record;
  std::uint64_t high_water = 0;   // hw when read
  std::uint64_t difference = 0;   // |hw - next| for kPending / kBehind
  std::string message;            // what the TPM layer said, for display
  // TPM: read with the owner's authorization because the state directory has no witness secret
  // (the binding's own authorization could not be derived); said wherever it is shown.
  bool read_as_owner = false;
  // TPM: the TPM reset or restarted since the file's last write (its recorded counts differ):
  // a gap may then be a virtual TPM rolled back with a VM snapshot (docs/backup.md).
  bool tpm_restarted = false;
  // etcd: what the cluster says (when it answered)
  std::uint64_t fleet_counter = 0;     // the key's next unallocated index
  std::uint64_t fleet_host_next = 0;   // this host's next index in its record
  std::uint64_t fleet_hosts = 0;       // host records of the key
  std::uint64_t fleet_revision = 0;
};

}  // namespace klms::state
