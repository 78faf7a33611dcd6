// The on-disk layout of a state file and the rule that picks the slot in force (docs/state.md
// "The state file format" and "Why one damaged slot never rolls the index back"), independent of any I/O.
//
// The file is exactly two 4 KiB blocks. Each block starts with one slot, little-endian:
//
//   offset  size  field
//        0     8  magic "KLMSSTAT"
//        8     4  format version: 2 (1 is read, and rewritten as 2 by the next write)
//       12     4  flags, 0 (version 1: reserved, 0)
//       16     8  generation: +1 on every reservation or adoption
//       24     8  next unused index
//       32     8  max signatures (next == max: exhausted)
//       40    32  key id: SHA-256 of the raw HSS public key
//       72    16  instance id: random, fresh at creation and adoption
//       88     8  device recorded at creation/adoption
//       96     8  inode recorded at creation/adoption
//      104     4  pid of the process that made the last reservation (informational)
//      108     4  with flag bit 4 (THRESHOLD): the key's low_signatures_warning T; else reserved, 0
//      112    32  file handle digest recorded at creation/adoption: SHA-256 of the
//                 name_to_handle_at() handle (type and bytes; it includes the inode's generation,
//                 so a new file that reuses a freed inode number differs); all zero when the file
//                 system has no handles
//   version 2:
//      144    32  parameters digest ("levels digest" for HSS): what decides the key's one-time keys
//                 beyond its public key (HSS: every level's trees, lms/signer.h levels_digest_of;
//                 other schemes: stateful/scheme.h tagged_params_digest); all zero when not yet
//                 bound (a version-1 file until its first write)
//      176    32  SHA-256 of bytes 0..175
//   version 1:
//      144    32  SHA-256 of bytes 0..143
//
// and the rest of the block is zero.
//
// Flags (version 2). A flag this build does not know fails closed (kStateUnsupportedVersion): the
// checksum above still covers bytes 0..175 only, so an older build verifies it, reads the flag and
// refuses the slot as of an unsupported format instead of calling it corrupt.
//   bit 0  LEASE: the file is an index lease (docs/state.md "Index leases"): a disjoint range
//          [lease start, lease end) of a key's indices, cut from its parent state file, which
//          moved its own next index past the range durably before this file was created. Then
//          max signatures == lease end, lease start <= next, and the block goes on:
//     208     8  lease start: the first index of the range (next at creation)
//     216     8  lease end (exclusive) == max signatures
//     224    16  the parent's instance id when the lease was cut (informational)
//     240     4  depth: 1 for a lease of a key's own state file, parent's depth + 1 for a lease of
//                a lease
//     244     4  reserved, 0
//     248    32  SHA-256 of bytes 0..247 (covers both the slot and the lease record)
//   bit 1  WITNESS: a monotonic counter outside the file witnesses its next index (docs/state.md
//          "The witness"); the counter's value minus the recorded base is the highest index
//          ever reserved, plus one. bit 2  WITNESS_REQUIRED: the file names the kind of witness it
//          must be bound to on the host that signs (a lease of a witnessed key, a restore onto a
//          new host) and signs nothing until `klms-state adopt --witness` binds it. With either
//          bit the block goes on (after the lease record, zero when the file is not a lease):
//     280     4  witness kind: 1 = a TPM 2.0 NV counter bound before per-binding policies,
//                2 = an etcd fleet (docs/fleet.md), 3 = a TPM 2.0 NV counter with a per-binding
//                policy (docs/state.md "One binding, one name"); a build that knows only kind 1
//                verifies the checksum at 328 and refuses kind 3 as unsupported (fail closed)
//   kind 1 and kind 3:
//     284     4  the counter's NV index handle (0 while WITNESS_REQUIRED)
//     288     8  base: the counter's value when next was 0 (mod 2^64)
//     296    32  SHA-256 of the counter's TPM name (its public area: index, attributes, size, and
//                for kind 3 the binding's random authPolicy)
//   kind 2 (next is the host's next index; WITNESS_REQUIRED is not used):
//     284     4  host id: the host record's name (never 0)
//     288     8  the cluster's id
//     296     8  create revision of the key's counter
//     304     8  create revision of this host's record
//     312     8  the highest cluster revision this host has seen
//     320     8  end (exclusive) of the host's current block (next <= it)
//     328    32  SHA-256 of bytes 0..327
//   and, for kind 2 only, an extension (a build that knows only kind 1 verifies the checksum above
//   and refuses the kind as unsupported, never as corrupt):
//     360     8  the highest raft term this host has seen (a cluster restored from a snapshot
//                starts a new raft log in a low term; its elections raise it again, so this
//                tells only until then: docs/fleet.md "Disaster restore")
//     368    32  SHA-256 of bytes 0..367
//   and, for kind 3 only, its extension:
//     360     8  last reservation: the indices the last write moved next by before its
//                increments; a witness behind the file by more is not this file's (refused)
//     368     4  the TPM's reset count (TPMS_CLOCK_INFO) the last write saw
//     372     4  the TPM's restart count the last write saw
//     376    32  SHA-256 of bytes 0..375
//   bit 3  EXHAUSTION_ACKNOWLEDGED: `klms-state acknowledge` recorded that this key may use its
//          last min(T, range / 10) indices (docs/state.md §5); without it a reservation that
//          would take one of them is refused (kExhaustionNotAcknowledged). Nothing else changes.
//   bit 4  THRESHOLD: bytes 108..111 hold the T recorded at key generation (state/exhaustion.h);
//          without it T is the default, 100. Only under a flag: an older build neither reads nor
//          keeps those bytes (its next write zeroes them), and a zero read back would mean "never
//          warn, never gate". With the flag an older build refuses the file instead. Set only when
//          T is not the default, so a key generated with the default stays readable by older builds.
//
// Writing (version 2): a reservation writes the same new slot into BOTH blocks, one after the
// other, each write followed by fsync, and hands out its indices only after the second fsync. So
// whenever an index has left the process, both blocks record it; a crash can interrupt only one
// write, which leaves the other block holding either the new slot or the last complete one.
// Version 1 wrote one block per reservation, alternately; there one damaged slot cannot be told
// from a torn write, and the file is refused (kStateDamaged) instead of guessed.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "base/error.h"
#include "state/store.h"
#include "state/witness.h"

namespace klms::state::format {

inline constexpr std::size_t kBlockBytes = 4096;
inline constexpr std::size_t kSlotCount = 2;
inline constexpr std::size_t kFileBytes = kBlockBytes * kSlotCount;
inline constexpr std::uint32_t kFormatVersion = 2;        // what every write produces
inline constexpr std::uint32_t kLegacyFormatVersion = 1;  // still read
inline constexpr std::array<std::uint8_t, 8> kMagic = {'K', 'L', 'M', 'S', 'S', 'T', 'A', 'T'};
inline constexpr std::size_t kChecksummedBytes = 176;        // version 2
inline constexpr std::size_t kSlotBytes = kChecksummedBytes + 32;
inline constexpr std::size_t kLegacyChecksummedBytes = 144;  // version 1
inline constexpr std::size_t kLegacySlotBytes = kLegacyChecksummedBytes + 32;
inline constexpr std::uint32_t kFlagLease = 1;              // the file is an index lease
inline constexpr std::uint32_t kFlagWitness = 2;            // a counter outside the file witnesses it
inline constexpr std::uint32_t kFlagWitnessRequired = 4;    // must be bound to a witness before signing
inline constexpr std::uint32_t kFlagExhaustionAcknowledged = 8;  // may use its last indices (§5)
inline constexpr std::uint32_t kFlagThreshold = 16;         // bytes 108..111 hold T
inline constexpr std::uint32_t kKnownFlags = kFlagLease | kFlagWitness | kFlagWitnessRequired |
                                             kFlagExhaustionAcknowledged | kFlagThreshold;  // else unsupported
inline constexpr std::size_t kLeaseChecksummedBytes = 248;  // slot + lease record
inline constexpr std::size_t kLeaseSlotBytes = kLeaseChecksummedBytes + 32;
inline constexpr std::size_t kWitnessRecordOffset = 280;
inline constexpr std::size_t kWitnessChecksummedBytes = 328;  // slot + lease record + witness record
inline constexpr std::size_t kWitnessSlotBytes = kWitnessChecksummedBytes + 32;
inline constexpr std::size_t kFleetChecksummedBytes = 368;  // ... + the fleet extension (kind 2)
inline constexpr std::size_t kTpmPolicyChecksummedBytes = 376;  // ... + the kind-3 extension

struct Slot {
  std::uint32_t version = kFormatVersion;  // decoded from the block; encode_slot writes this layout
  std::uint32_t flags = 0;
  std::uint64_t generation = 0;
  std::uint64_t next = 0;
  std::uint64_t max_signatures = 0;
  KeyId key_id{};
  InstanceId instance_id{};
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint32_t reserving_pid = 0;
  std::uint32_t threshold = 0;  // with kFlagThreshold only (zero otherwise): T (state/exhaustion.h)
  FileHandleDigest file_handle{};  // all zero: none recorded
  LevelsDigest levels_digest{};    // all zero: not bound (version 1 has none)
  // With kFlagLease only (zero otherwise):
  std::uint64_t lease_start = 0;
  std::uint64_t lease_end = 0;
  InstanceId parent_instance_id{};
  std::uint32_t lease_depth = 0;
  // With kFlagWitness or kFlagWitnessRequired only (zero otherwise):
  WitnessRecord witness;
  bool is_lease() const noexcept { return (flags & kFlagLease) != 0; }
  bool witnessed() const noexcept { return (flags & kFlagWitness) != 0; }
  bool witness_required() const noexcept { return (flags & kFlagWitnessRequired) != 0; }
  bool exhaustion_acknowledged() const noexcept { return (flags & kFlagExhaustionAcknowledged) != 0; }
  std::uint64_t low_signatures_warning() const noexcept {
    return (flags & kFlagThreshold) != 0 ? threshold : kDefaultLowSignaturesWarning;
  }
  // docs/state.md §5: a reservation of `count` (<= what is left) from a key's own file that would
  // take one of its last indices, while the file records no acknowledgement. A lease is never gated.
  bool awaits_acknowledgement(std::uint64_t count) const noexcept {
    return !is_lease() && !exhaustion_acknowledged() &&
           takes_last_indices(max_signatures - next, count, exhaustion_threshold(low_signatures_warning(), max_signatures));
  }
  // The same gate as an index: a reservation of [start, start + count) waits for the
  // acknowledgement exactly when start + count > this (max_signatures when nothing waits). A
  // fleet host tests the indices the cluster grants against it, not its own next index.
  std::uint64_t acknowledgement_gate() const noexcept {
    if (is_lease() || exhaustion_acknowledged()) return max_signatures;
    return max_signatures - exhaustion_threshold(low_signatures_warning(), max_signatures);
  }
  // Records T at key generation: only when it is not the default (see bit 4 above).
  void record_low_signatures_warning(std::uint64_t t) noexcept {
    if (t == kDefaultLowSignaturesWarning) return;
    flags |= kFlagThreshold;
    threshold = static_cast<std::uint32_t>(std::min(t, kMaxRecordedLowSignaturesWarning));
  }
  bool operator==(const Slot&) const = default;
};

enum class SlotStatus : std::uint8_t {
  kValid,
  kNoMagic,
  kUnsupportedVersion,
  kBadChecksum,
  kBadValues,  // checksum fine but next > max, max == 0, or a lease outside its range: never written by us
};

using Block = std::array<std::uint8_t, kBlockBytes>;
using FileImage = std::array<std::uint8_t, kFileBytes>;

// The block for `slot` in the layout of slot.version (1 or 2): the slot bytes, then zeros.
void encode_slot(const Slot& slot, Block& block) noexcept;
SlotStatus decode_slot(std::span<const std::uint8_t, kBlockBytes> block, Slot& out) noexcept;

// The slot a reader must use, which block holds it, and whether the other block holds the same.
struct Current {
  Slot slot;
  unsigned block = 0;
  bool both_blocks = false;  // both blocks hold this slot: no write was interrupted
};

// Chooses the current slot of a file whose first min(size, kFileBytes) bytes are in `image`:
//   size 0 or short: kStateTruncated; no magic in either block: kStateNotAStateFile;
//   longer than two blocks: kStateCorrupt; a slot of an unknown format version:
//   kStateUnsupportedVersion (fail closed: it may be the newer one); no valid slot, or a checksummed
//   slot with impossible values: kStateCorrupt;
//   two valid slots: the same slot twice, or (an interrupted write) the newer one when it is
//   exactly one generation ahead with the same key and maximum and no lower next; anything else is
//   a state no writer of ours leaves: kStateDamaged (version 1: the newer, as version 1 wrote);
//   one valid slot: it, when it is version 2 (see above); a version-1 slot whose partner is damaged
//   may be the older one: kStateDamaged.
Result<Current> select_current(const FileImage& image, std::uint64_t size) noexcept;

// For recovery only (klms-state adopt of a damaged file): of the valid slots, the one with the
// highest next index, and whether select_current would have refused the file. kStateCorrupt when
// no slot is valid; kStateMixedBlocks when both are valid but not blocks of one state file (another
// key, kind, range or instance id): the higher next may be another file's, never this one's.
struct Recovered {
  Current current;
  Error refused = Error::kOk;  // what select_current says
};
Result<Recovered> select_for_recovery(const FileImage& image, std::uint64_t size) noexcept;

// For display: the slot's fields and where the file actually is now (`actual_handle` null when the
// file system gives none).
StateInfo make_info(const Slot& slot, std::uint64_t actual_device, std::uint64_t actual_inode,
                    const FileHandleDigest* actual_handle) noexcept;

// False only when both digests are known and differ: a different file with a reused inode number.
bool same_file_handle(const FileHandleDigest& recorded, const FileHandleDigest* actual) noexcept;

// A reservation's first write goes to the block not holding the current slot (when both hold it,
// block 1), its second to the other one.
inline unsigned first_block_to_write(const Current& current) noexcept {
  return current.both_blocks ? 1u : current.block ^ 1u;
}
inline std::uint64_t block_offset(unsigned block) noexcept { return std::uint64_t{block} * kBlockBytes; }

}  // namespace klms::state::format
