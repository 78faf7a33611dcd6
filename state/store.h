// The signing state (docs/state.md): the authoritative next index of an HSS key, kept in an
// external state file so that no index is ever used twice — across threads, processes, forks,
// crashes and restarts. Every invariant of docs/state.md lives here; see that file for the why.
//
// File format (two 4 KiB blocks, one slot each, written alternately in place, never renamed):
//   see state/file_format.h.
//
// What is detected and what is not (docs/state.md §4, "What is not detected"): a copy, a move to another file system, or a
// restore that creates a new file (tar, rsync, `cp` to a path that does not exist, `mv` across
// file systems) has a new device/inode and is refused with kStateCopied. File systems reuse freed
// inode numbers at once (ext4 does: `rm state; cp backup state` gets the old number back), so the
// file's handle (name_to_handle_at: inode number plus generation) is recorded too and compared where
// the file system has handles (ext4, xfs, btrfs, tmpfs, ...). A rename or a hard link in the same
// file system keeps the inode and is the same file. Overwriting the existing file in place
// with an older copy (`cp backup state` while the file exists keeps its inode) is only seen by a
// process that has the file open (its generation went backwards); after a restart it cannot be seen,
// any more than a rollback of a whole virtual machine can.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/error.h"
#include "state/exhaustion.h"
#include "state/index_lease.h"
#include "state/witness.h"

namespace klms::state {

using KeyId = std::array<std::uint8_t, 32>;       // SHA-256 of the raw public key (stateful::key_id_of)
using InstanceId = std::array<std::uint8_t, 16>;  // random, fresh at creation and at adoption
using FileHandleDigest = std::array<std::uint8_t, 32>;  // SHA-256 of the file's name_to_handle_at handle
// The parameters digest: what decides a key's one-time keys and its public key does not name (an
// HSS key's lower levels, lms/hss_scheme.h; a new scheme's tagged digest, stateful/scheme.h), bound
// to the state file so that a key file with altered parameters cannot make a one-time key sign a
// second child public key. The store compares it and never reads it.
using ParamsDigest = std::array<std::uint8_t, 32>;
using LevelsDigest = ParamsDigest;  // its name where only HSS keys existed; the file field keeps it

// What a state file is bound to (docs/state.md §16): the key id, and the parameters digest.
struct KeyBinding {
  KeyId key_id{};
  ParamsDigest params{};
  // The key id already names every parameter (HSS with L = 1), so a file without a parameters
  // digest may be bound whatever it has signed. Otherwise only a never-used one is bound without the
  // user (kStateUnbound): a used one may have been used with other parameters (other lower levels).
  bool params_in_key_id = false;
};

// The longest name the tree cache adds to a state file's name (".cache.level8.tmp." and 16 hex
// digits): a state file name must leave room for it (kStateNameTooLong).
inline constexpr std::size_t kStateNameReserve = 34;

// The most indices one reservation may take (kReserveTooLarge above it): a typo in `reserve`
// must not burn a tall key.
inline constexpr std::uint64_t kMaxReserve = 65536;

// A reservation that leaves a key within twice its exhaustion threshold (docs/state.md §5): what
// signing warns of, so that a pipeline sees the stop coming. Made from the slot the reservation
// just read and wrote: no read of its own.
struct LowSignaturesNotice {
  const std::string* path = nullptr;
  std::uint64_t remaining = 0;       // indices the file has left after the reservation
  std::uint64_t threshold = 0;       // min(T, range / 10): the last indices the gate holds back
  std::uint64_t before_stop = 0;     // signatures before signing stops (the gate, or the end)
  bool waits_for_acknowledgement = false;  // the stop is the gate: a key's own file, not acknowledged
};
using LowSignaturesNoticeFn = void (*)(const LowSignaturesNotice&) noexcept;

struct StateOptions {
  bool allow_network_fs = false;  // docs/state.md §12
  // Key generation: the witness a new state file is bound to (docs/state.md "The witness").
  WitnessKind witness = WitnessKind::kNone;
  WitnessConfig witness_config;  // where a witness is, for every file that names one
  // A file system without file handles (overlayfs) is refused unless this is set (docs/state.md §18).
  bool allow_no_file_handles = false;
  // klms-state resync of a fleet host after a cluster restore: the key's counter moves at least here
  // (docs/fleet.md "Disaster restore": past blocks of hosts that cannot be consulted). Of a TPM
  // witnessed file: the operator's mark, next lands at least here (docs/backup.md "Virtual TPMs").
  std::uint64_t fleet_counter_at_least = 0;
  // klms-state resync --tpm-not-rolled-back: the operator says the TPM's state was never restored
  // (a hardware TPM, or a vTPM kept outside every VM snapshot), so a gap after a TPM restart is
  // the orderly counter's jump, not a rollback.
  bool tpm_not_rolled_back = false;
  // Key generation: the T a new state file records (state/exhaustion.h; the provider's
  // low_signatures_warning). Every later reader takes T from the file, never from here.
  std::uint64_t low_signatures_warning = kDefaultLowSignaturesWarning;
  // Called after each durable reservation within 2 x the threshold (null: nothing is said).
  LowSignaturesNoticeFn low_signatures_notice = nullptr;
};

// Max signatures (docs/state.md "Max signatures"): 2^total_height when total_height <= 63, else 2^64 - 1.
constexpr std::uint64_t max_signatures_for_total_height(unsigned total_height) noexcept {
  return total_height <= 63 ? std::uint64_t{1} << total_height : ~std::uint64_t{0};
}

// What a state file says, for display (`openssl pkey -text`, klms-state show).
struct StateInfo {
  KeyId key_id{};
  ParamsDigest levels_digest{};      // the parameters digest; all zero: not bound yet (a version-1 file)
  std::uint32_t format_version = 0;
  std::uint64_t next = 0;            // next unused index
  std::uint64_t max_signatures = 0;  // next == max_signatures means exhausted
  InstanceId instance_id{};
  std::uint64_t device = 0;          // recorded at creation (or adoption)
  std::uint64_t inode = 0;
  std::uint64_t generation = 0;      // slot write counter
  std::uint32_t reserving_pid = 0;   // process that made the last reservation (informational only)
  std::uint64_t actual_device = 0;   // what fstat says now
  std::uint64_t actual_inode = 0;
  bool file_handle_recorded = false;  // the file system gave a file handle at creation/adoption
  bool file_handle_changed = false;   // ... and now gives another: another file (maybe with the same numbers)
  Error refused = Error::kOk;         // inspect_state_file: what signing would say about the format
  // An index lease (docs/state.md "Index leases"): this file may sign [lease_start, lease_end) only
  // (lease_end == max_signatures).
  bool lease = false;
  std::uint64_t lease_start = 0;
  std::uint64_t lease_end = 0;
  InstanceId parent_instance_id{};  // the parent's instance id when the lease was cut
  std::uint32_t lease_depth = 0;    // 1: leased from the key's own state file; 2: from a lease; ...
  // The witness record and, after a display read consulted it, what it says (state/witness.h).
  WitnessStatus witness;
  // docs/state.md §5: the file's T (recorded at key generation, else the default) and whether
  // `klms-state acknowledge` lifted the gate on its last indices.
  std::uint64_t low_signatures_warning = kDefaultLowSignaturesWarning;
  bool exhaustion_acknowledged = false;
  std::uint64_t remaining() const noexcept { return next < max_signatures ? max_signatures - next : 0; }
  bool exhausted() const noexcept { return next >= max_signatures; }
  // The indices this file may use (a lease: its range).
  std::uint64_t range() const noexcept {
    const std::uint64_t start = lease ? lease_start : 0;
    return max_signatures > start ? max_signatures - start : 0;
  }
  // How many of the last indices warn (state/exhaustion.h), and whether this file is among them.
  std::uint64_t exhaustion_threshold() const noexcept {
    return state::exhaustion_threshold(low_signatures_warning, range());
  }
  bool below_exhaustion_threshold() const noexcept {
    const std::uint64_t threshold = exhaustion_threshold();
    return threshold != 0 && remaining() <= threshold;
  }
  // The next signature waits for `klms-state acknowledge`: a key's own file (never a lease: its
  // end is routine, lease again) among its last indices, not acknowledged.
  bool awaits_acknowledgement() const noexcept {
    return !lease && !exhaustion_acknowledged && !exhausted() && below_exhaustion_threshold();
  }
  bool looks_copied() const noexcept {
    return device != actual_device || inode != actual_inode || file_handle_changed;
  }
  bool params_bound() const noexcept { return levels_digest != ParamsDigest{}; }
  bool levels_bound() const noexcept { return params_bound(); }  // the name of HSS's callers
  // Never reserved from: removing the file cannot let an index be used twice.
  bool never_used() const noexcept { return next == (lease ? lease_start : 0); }
};

// A state file path we accept anywhere: absolute, naming a file (not "" or ending in '/'), without
// control characters (a path is printed by `pkey -text`: it must not be able to forge lines), and
// with a last component that leaves kStateNameReserve bytes of the file system's name limit.
Error check_state_path(const std::string& path) noexcept;

// Key generation, before any hashing: everything create_state_file will check that can be checked
// without the key — an absolute path whose directory exists (kStateDirectoryMissing), is private
// and on an allowed file system, and no file at the name yet (kStateExists).
Error check_state_file_creatable(const std::string& path, const StateOptions& options) noexcept;

// Key generation, before any hashing: the witness the options name can be had for a key of
// `max_signatures` (the TPM endurance budget; a TPM answers at the configured TCTI).
Error check_witness_ready(const StateOptions& options, std::uint64_t max_signatures) noexcept;

// Key generation only: creates `path` exclusively (O_CREAT|O_EXCL|O_NOFOLLOW, 0600), writes both
// slots with next = 0, fsyncs the file and its directory. Refuses an existing file (kStateExists),
// a group/other-writable directory, a network file system unless allowed, max_signatures == 0
// (kInvalidArgument). On a failed write the half-made file is removed again.
// `levels`, the parameters digest, when given, is bound at creation (key generation always gives it).
Error create_state_file(const std::string& path, const KeyId& key_id, std::uint64_t max_signatures,
                        const StateOptions& options, const ParamsDigest* levels = nullptr) noexcept;

// Reads and validates a state file (format only, under a shared lock) for display. kStateMissing
// when absent. A copied file is NOT an error here: the result says so (looks_copied()).
// klms-state join (docs/fleet.md "Joining a host", docs/state.md §3): a new state file at `path`
// for the etcd fleet key `key_id`, bound to a new host record of its own; it holds no index until
// its first reservation. The key's maximum and parameters digest come from the key's description in
// the cluster (a wrong one only makes signing refuse: the key file decides both).
Result<StateInfo> join_state_file(const std::string& path, const KeyId& key_id, const StateOptions& options) noexcept;

Result<StateInfo> read_state_file(const std::string& path) noexcept;
Result<StateInfo> read_state_file(const std::string& path, const StateOptions& options) noexcept;
// The same for a damaged file too (klms-state show): the valid slot with the highest next index,
// with `refused` saying what signing and read_state_file refuse it with (kStateDamaged, ...).
Result<StateInfo> inspect_state_file(const std::string& path) noexcept;
// With the witness configuration: info.witness says what the witness says (never an error).
Result<StateInfo> inspect_state_file(const std::string& path, const StateOptions& options) noexcept;

struct AdoptOptions {
  std::optional<KeyId> expected_key;  // when absent, the key id the file already holds is kept
  std::optional<ParamsDigest> levels;  // binds a file without a parameters digest (kStateParamsMismatch if it has another)
  std::uint64_t advance = 0;          // move next forward by this much (clamped to max: exhausted)
  // A damaged file (kStateDamaged) is adopted only when the caller chose an advance: its newest
  // slot may be lost, and only the user can say how far the index may have gone.
  bool advance_given = false;
  bool allow_network_fs = false;
  // Binds a new witness of this kind (docs/state.md "The witness"): `klms-state adopt --witness`.
  WitnessKind bind_witness = WitnessKind::kNone;
  WitnessConfig witness_config;
  bool allow_no_file_handles = false;  // StateOptions::allow_no_file_handles
};

// docs/state.md §4: after the user confirmed the original is destroyed, record the file's current
// device/inode and a fresh instance identifier so it is accepted again (one durable slot write,
// under the same locks as signing). Runs the same directory/file/file-system checks as opening.
// Returns what the file says afterwards. Handles already open on the file in any process see the
// new instance identifier and fail with kStateCopied until reopened.
Result<StateInfo> adopt_state_file(const std::string& path, const AdoptOptions& options) noexcept;
// The same, checking the key id (kStateForeign).
Error adopt_state_file(const std::string& path, const KeyId& key_id) noexcept;

// Removes a state file that was never reserved from (next index 0; a lease: its range start) — what a key generation that
// was killed before its key file was written leaves behind — and its tree cache files. Refuses
// (kStateExists) a file that has handed out any index, and anything that is not a valid state file.
Error discard_unused_state_file(const std::string& path, const StateOptions& options) noexcept;

// docs/state.md "Index leases": cuts the next `count` indices of `parent_path` (a key's state file
// or a lease) into a new state file `lease_path` of their own. Step 1, under the locks signing
// uses (file mutex, exclusive OFD lock) and with the parent checked as signing checks it (not
// copied, not damaged, bound to its parameters): the parent's next index moves past the range with
// one reservation-style durable write (both blocks). Step 2, only after that: `lease_path` is
// created exclusively (O_EXCL, 0600) with next = range start, max = range end, the parent's key id
// and parameters digest and the LEASE flag, and fsync'd with its directory. A crash or failure
// between or during the steps loses the range, never hands an index to both files. Errors:
// kInvalidArgument (count 0, or a parent not bound to its parameters yet), kExhausted, kReserveTooLarge
// (count beyond what is left), kStateExists, everything opening or creating a state file refuses;
// after step 1, `range_lost` says the range is gone from the parent although no lease holds it.
struct LeaseResult {
  StateInfo parent;  // after step 1
  StateInfo lease;   // the new file
};
struct LeaseOptions {
  bool allow_network_fs = false;
  WitnessConfig witness_config;
  bool allow_no_file_handles = false;  // StateOptions::allow_no_file_handles
  bool* range_lost = nullptr;  // when set: true when step 1 was done and step 2 failed
  std::uint64_t* range_start = nullptr;  // when set: the range's start once step 1 was done
};
Result<LeaseResult> lease_state_file(const std::string& parent_path, const std::string& lease_path,
                                     std::uint64_t count, const LeaseOptions& options) noexcept;

// docs/state.md "The witness": a witnessed file its counter says is behind (restored, copied or
// rolled back in place) moves its next index to the witnessed high-water mark — every index below
// it may have been used, none at or above it was handed out — by one durable write under the
// locks of signing; a pending one gets its increments completed. Returns what the file says after
// and, in `skipped`, how many indices were given up. kInvalidArgument for an unwitnessed file.
Result<StateInfo> resync_state_file(const std::string& path, const StateOptions& options,
                                    std::uint64_t* skipped = nullptr) noexcept;

// docs/state.md §5: records in a key's own state file (not a lease:
// kInvalidArgument) that it may use its last indices, by one durable write under the locks of
// signing. Moves no index and no witness counter; the file is checked as a lease's parent is
// (kStateForeign for another key id, kStateCopied, ...). Returns what the file says after.
Result<StateInfo> acknowledge_exhaustion(const std::string& path, const KeyId& key_id,
                                         const StateOptions& options) noexcept;

// Retires a key's state file: next = max (exhausted) by one durable write, then its witness's
// counter is released. The file stays, as the record that the key is finished.
// `released` (when given) gets what releasing the counter said: kOk, kWitnessMissing (gone
// already), kWitnessMismatch (another counter holds the handle now: left alone),
// kWitnessSecretMissing (bound before per-binding policies and no secret: left alone).
Result<StateInfo> retire_state_file(const std::string& path, const StateOptions& options,
                                    Error* released = nullptr) noexcept;

// docs/backup.md: copies the state file's current slot, read under its shared lock and checked as
// signing checks the format, into `out` (created exclusively, 0600, fsync'd). What it copies is a
// record for `restore_state_file`, never a file to copy back.
Error backup_state_file(const std::string& path, const std::string& out) noexcept;

// docs/backup.md: makes a NEW state file at `path` (never over an existing one: kStateExists)
// from the record at `backup`, whose next index is the highest of: the record's; for a witnessed
// record whose counter this host's TPM holds, the witnessed high-water mark (it keeps that
// counter); and `high_water` when given (an index beyond every signature the key ever made, e.g.
// one past the last signature's). A record without a reachable witness needs `high_water`
// (kWitnessMissing / kInvalidArgument otherwise); a witnessed record restored onto another host
// is written witness-required.
Result<StateInfo> restore_state_file(const std::string& backup, const std::string& path,
                                     std::optional<std::uint64_t> high_water, const StateOptions& options) noexcept;

// The process-global handle of one state file (docs/state.md §9): every key object, duplicated context
// and library context in this process that opens the same file (same device/inode) gets the same
// handle, so a reservation is never copied. Thread-safe.
class StateHandle {
 public:
  // Opens (or finds the already open handle for) `path`, checking ownership, permissions, file
  // system type, format, key identity and copy detection. Never creates the file. A poisoned handle
  // is never handed out again: the next open() after a failed write makes a fresh one.
  //
  //
  // `binding`: the key's id and parameters digest. A file bound to other parameters is refused
  // (kStateParamsMismatch); a file not bound yet (version 1) is bound by this handle's next write
  // when KeyBinding allows it (else kStateUnbound).
  static Result<std::shared_ptr<StateHandle>> open(const std::string& path, const KeyBinding& binding,
                                                   const StateOptions& options) noexcept;
  // Tests of the store itself: the key id only, no parameters digest.
  static Result<std::shared_ptr<StateHandle>> open(const std::string& path, const KeyId& expected_key,
                                                   const StateOptions& options) noexcept;

  // One index to sign with. Handed out from the in-memory reservation when this process holds one
  // (and is the process that made it); otherwise reserves `batch` indices (1..kMaxReserve, and no
  // more than are left: kReserveTooLarge) with one locked, checksummed slot written and fsync'd
  // into both blocks first. A reservation that would take one of a key's last indices while its
  // file records no acknowledgement is refused before anything is written
  // (kExhaustionNotAcknowledged, docs/state.md §5).
  // Fails closed: kExhausted, kStateWriteFailed (and poisons the handle),
  // kStatePoisoned, kStateCorrupt, kStateDamaged, kStateCopied, kInvalidArgument (batch 0), ...
  Result<IndexLease> take(std::uint64_t batch = 1) noexcept;

  // Current file contents, re-read under the lock and checked like open() does. Indices reserved in
  // memory by this process are counted as used (info().remaining() is what the file has left).
  Result<StateInfo> info() noexcept;
  // What this process can still sign: the file's remaining plus this process's unused reservation.
  Result<std::uint64_t> remaining_signatures() noexcept;
  // Indices reserved by this process and not handed out yet.
  std::uint64_t reserved_unused() const noexcept;
  bool poisoned() const noexcept;
  // The path this handle was first opened with (another path to the same inode shares the handle).
  const std::string& path() const noexcept;
  const KeyId& key_id() const noexcept;

  ~StateHandle();
  StateHandle(const StateHandle&) = delete;
  StateHandle& operator=(const StateHandle&) = delete;

  struct Impl;

 private:
  static Result<std::shared_ptr<StateHandle>> open_bound(const std::string& path, const KeyBinding& binding,
                                                         bool check_levels, const StateOptions& options) noexcept;
  explicit StateHandle(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

// Test hook for invariant 2: when set, the `writes_until_failure`-th slot write from now (1 = the
// next) fails as if write() (or, with fail_in_fsync, fsync() after a successful write) returned EIO.
// Counts every durable state write: take() reservations, adoption and creation. Process-wide; 0
// disables.
void inject_state_write_failure(unsigned writes_until_failure, bool fail_in_fsync) noexcept;

// The errno (ENOSPC, EIO, ...) of the calling thread's last state write that failed with
// kStateWriteFailed, 0 when none did; record_state_write_errno sets it for writes outside state/io.
int last_state_write_errno() noexcept;
void record_state_write_errno(int err) noexcept;

}  // namespace klms::state
