#include "state/file_format.h"

#include <algorithm>
#include <cstring>

#include "base/endian.h"
#include "hashes/backend.h"

namespace klms::state::format {
namespace {

// The state file's integers are little-endian (docs/state.md), unlike RFC 8554's u32str: named so.
using endian::load_le32;
using endian::load_le64;
using endian::store_le32;
using endian::store_le64;

std::size_t checksummed_bytes(std::uint32_t version) noexcept {
  return version == kLegacyFormatVersion ? kLegacyChecksummedBytes : kChecksummedBytes;
}

void checksum(const std::uint8_t* slot_bytes, std::size_t len, std::uint8_t* out32) noexcept {
  hashes::sha256_digest(slot_bytes, len, out32);
}

// The on-disk witness kind of a TPM counter with a per-binding policy (state/file_format.h).
constexpr std::uint32_t kTpmPolicyKind = 3;

bool has_magic(const std::uint8_t* p) noexcept { return std::memcmp(p, kMagic.data(), kMagic.size()) == 0; }

bool is_known_version(std::uint32_t v) noexcept { return v == kFormatVersion || v == kLegacyFormatVersion; }

// Two valid slots that are not the same: what an interrupted version-2 write leaves is the newer
// one exactly one generation ahead of the last complete one, for the same key and maximum, with an
// index that did not go backwards.
Result<unsigned> newer_of_two(const Slot (&slots)[kSlotCount]) noexcept {
  const Slot& a = slots[0];
  const Slot& b = slots[1];
  if (a.key_id != b.key_id || a.max_signatures != b.max_signatures) return Error::kStateCorrupt;
  // A file is a lease, with one range, from its creation on: slots that disagree are not ours.
  // The witness bits and record may change by one write (a binding); the lease bit never does.
  if ((a.flags & kFlagLease) != (b.flags & kFlagLease) || a.lease_start != b.lease_start || a.lease_end != b.lease_end ||
      a.parent_instance_id != b.parent_instance_id || a.lease_depth != b.lease_depth) {
    return Error::kStateCorrupt;
  }
  if (a.generation == b.generation) return Error::kStateCorrupt;  // one generation is written once
  const unsigned newer = a.generation > b.generation ? 0 : 1;
  const Slot& n = slots[newer];
  const Slot& o = slots[newer ^ 1];
  if (n.next < o.next) return Error::kStateCorrupt;  // an index went backwards
  if (o.witnessed() && !n.witnessed()) return Error::kStateDamaged;  // no writer of ours unbinds a witness
  // Version 1 wrote one block per reservation, alternately: the two slots are always exactly one
  // generation apart. A larger gap is a block restored from an older copy.
  if (n.version == kLegacyFormatVersion && o.version == kLegacyFormatVersion) {
    return n.generation - o.generation == 1 ? Result<unsigned>(newer) : Result<unsigned>(Error::kStateDamaged);
  }
  // A version-2 writer never leaves a gap and never writes version 1 over version 2. Anything
  // else is a block from another time (a partial restore, a misdirected write): refuse rather
  // than guess which of the two is the truth.
  if (n.generation - o.generation != 1 || n.version != kFormatVersion) return Error::kStateDamaged;
  return newer;
}

// Two slots can be blocks of one state file only when they name the same key, kind, range and
// instance: recovery never picks a block of another file (docs/state.md "Choosing the current slot").
bool of_the_same_state_file(const Slot& a, const Slot& b) noexcept {
  // The witness bits may differ by one binding; the lease bit never does.
  return a.key_id == b.key_id && (a.flags & kFlagLease) == (b.flags & kFlagLease) && a.max_signatures == b.max_signatures &&
         a.lease_start == b.lease_start && a.lease_end == b.lease_end &&
         a.parent_instance_id == b.parent_instance_id && a.lease_depth == b.lease_depth &&
         a.instance_id == b.instance_id;
}

struct Decoded {
  Slot slots[kSlotCount];
  SlotStatus status[kSlotCount];
};

// The checks every reader makes first; fills `d` with both slots.
Error decode_file(const FileImage& image, std::uint64_t size, Decoded& d) noexcept {
  if (size == 0) return Error::kStateTruncated;
  const bool magic0 = size >= kMagic.size() && has_magic(image.data());
  const bool magic1 = size >= kBlockBytes + kMagic.size() && has_magic(image.data() + kBlockBytes);
  if (!magic0 && !magic1) return Error::kStateNotAStateFile;
  if (size < kFileBytes) return Error::kStateTruncated;
  if (size > kFileBytes) return Error::kStateCorrupt;
  for (unsigned b = 0; b < kSlotCount; ++b) {
    d.status[b] = decode_slot(std::span<const std::uint8_t, kBlockBytes>(image.data() + b * kBlockBytes, kBlockBytes),
                              d.slots[b]);
  }
  // A slot of a format this build does not know may be the current one: fail closed. When the other
  // block holds a valid slot of ours, the unknown one is either one damaged block (a flipped version
  // bit) or the first write of a newer writer — which, writing both blocks too, has handed out
  // nothing beyond our slot yet. Neither can be told from the other: refused as damaged, which
  // `klms-state adopt --advance` can recover, rather than as a newer format, which it cannot.
  const bool unknown0 = d.status[0] == SlotStatus::kUnsupportedVersion;
  const bool unknown1 = d.status[1] == SlotStatus::kUnsupportedVersion;
  if (unknown0 || unknown1) {
    const bool other_valid = unknown0 ? d.status[1] == SlotStatus::kValid : d.status[0] == SlotStatus::kValid;
    return unknown0 != unknown1 && other_valid ? Error::kStateDamaged : Error::kStateUnsupportedVersion;
  }
  return Error::kOk;
}

}  // namespace

void encode_slot(const Slot& slot, Block& block) noexcept {
  block.fill(0);
  std::uint8_t* p = block.data();
  const std::uint32_t version = slot.version == kLegacyFormatVersion ? kLegacyFormatVersion : kFormatVersion;
  std::memcpy(p, kMagic.data(), kMagic.size());
  store_le32(p + 8, version);
  if (version == kFormatVersion) store_le32(p + 12, slot.flags);
  store_le64(p + 16, slot.generation);
  store_le64(p + 24, slot.next);
  store_le64(p + 32, slot.max_signatures);
  std::memcpy(p + 40, slot.key_id.data(), slot.key_id.size());
  std::memcpy(p + 72, slot.instance_id.data(), slot.instance_id.size());
  store_le64(p + 88, slot.device);
  store_le64(p + 96, slot.inode);
  store_le32(p + 104, slot.reserving_pid);
  if (version == kFormatVersion && (slot.flags & kFlagThreshold) != 0) store_le32(p + 108, slot.threshold);
  std::memcpy(p + 112, slot.file_handle.data(), slot.file_handle.size());
  if (version == kFormatVersion) std::memcpy(p + 144, slot.levels_digest.data(), slot.levels_digest.size());
  const std::size_t len = checksummed_bytes(version);
  checksum(p, len, p + len);
  if (version == kFormatVersion && slot.is_lease()) {
    store_le64(p + 208, slot.lease_start);
    store_le64(p + 216, slot.lease_end);
    std::memcpy(p + 224, slot.parent_instance_id.data(), slot.parent_instance_id.size());
    store_le32(p + 240, slot.lease_depth);
    checksum(p, kLeaseChecksummedBytes, p + kLeaseChecksummedBytes);
  }
  if (version == kFormatVersion && (slot.witnessed() || slot.witness_required())) {
    std::uint8_t* w = p + kWitnessRecordOffset;
    store_le32(w, static_cast<std::uint32_t>(slot.witness.kind));
    if (slot.witness.kind == WitnessKind::kEtcd) {
      const FleetBinding& f = slot.witness.fleet;
      store_le32(w + 4, f.host_id);
      store_le64(w + 8, f.cluster_id);
      store_le64(w + 16, f.counter_created);
      store_le64(w + 24, f.host_created);
      store_le64(w + 32, f.revision_seen);
      store_le64(w + 40, f.block_end);
      store_le64(p + kWitnessSlotBytes, f.term_seen);
    } else {
      if (slot.witness.tpm_policy) store_le32(w, kTpmPolicyKind);
      store_le32(w + 4, slot.witness.nv_index);
      store_le64(w + 8, slot.witness.base);
      std::memcpy(w + 16, slot.witness.counter_name.data(), slot.witness.counter_name.size());
      if (slot.witness.tpm_policy) {
        store_le64(p + kWitnessSlotBytes, slot.witness.last_reservation);
        store_le32(p + kWitnessSlotBytes + 8, slot.witness.tpm_reset_count);
        store_le32(p + kWitnessSlotBytes + 12, slot.witness.tpm_restart_count);
      }
    }
    checksum(p, kWitnessChecksummedBytes, p + kWitnessChecksummedBytes);
    if (slot.witness.kind == WitnessKind::kEtcd) checksum(p, kFleetChecksummedBytes, p + kFleetChecksummedBytes);
    if (slot.witness.kind == WitnessKind::kTpm && slot.witness.tpm_policy) {
      checksum(p, kTpmPolicyChecksummedBytes, p + kTpmPolicyChecksummedBytes);
    }
  }
}

SlotStatus decode_slot(std::span<const std::uint8_t, kBlockBytes> block, Slot& out) noexcept {
  const std::uint8_t* p = block.data();
  if (!has_magic(p)) return SlotStatus::kNoMagic;
  // The version before the checksum: a newer format may checksum differently, and a slot of a newer
  // format must stop us even when damaged (it may be the current one).
  const std::uint32_t version = load_le32(p + 8);
  if (!is_known_version(version)) return SlotStatus::kUnsupportedVersion;
  const std::size_t len = checksummed_bytes(version);
  std::uint8_t expected[32];
  checksum(p, len, expected);
  // Not secret: a plain comparison is fine.
  if (std::memcmp(expected, p + len, sizeof expected) != 0) return SlotStatus::kBadChecksum;
  Slot s;
  s.version = version;
  s.flags = version == kFormatVersion ? load_le32(p + 12) : 0;
  s.generation = load_le64(p + 16);
  s.next = load_le64(p + 24);
  s.max_signatures = load_le64(p + 32);
  std::memcpy(s.key_id.data(), p + 40, s.key_id.size());
  std::memcpy(s.instance_id.data(), p + 72, s.instance_id.size());
  s.device = load_le64(p + 88);
  s.inode = load_le64(p + 96);
  s.reserving_pid = load_le32(p + 104);
  if ((s.flags & kFlagThreshold) != 0) s.threshold = load_le32(p + 108);
  std::memcpy(s.file_handle.data(), p + 112, s.file_handle.size());
  if (version == kFormatVersion) std::memcpy(s.levels_digest.data(), p + 144, s.levels_digest.size());
  // A checksummed flag this build does not know may change what the slot means: fail closed.
  if ((s.flags & ~kKnownFlags) != 0) return SlotStatus::kUnsupportedVersion;
  if (s.is_lease()) {
    checksum(p, kLeaseChecksummedBytes, expected);
    if (std::memcmp(expected, p + kLeaseChecksummedBytes, sizeof expected) != 0) return SlotStatus::kBadChecksum;
    s.lease_start = load_le64(p + 208);
    s.lease_end = load_le64(p + 216);
    std::memcpy(s.parent_instance_id.data(), p + 224, s.parent_instance_id.size());
    s.lease_depth = load_le32(p + 240);
    // A lease never signs outside the range it was cut as: its maximum is its end, and its next
    // index never went below its start.
    if (s.lease_start >= s.lease_end || s.lease_end != s.max_signatures || s.next < s.lease_start ||
        s.lease_depth == 0 || load_le32(p + 244) != 0) {
      return SlotStatus::kBadValues;
    }
  }
  if (s.witnessed() || s.witness_required()) {
    checksum(p, kWitnessChecksummedBytes, expected);
    if (std::memcmp(expected, p + kWitnessChecksummedBytes, sizeof expected) != 0) return SlotStatus::kBadChecksum;
    const std::uint8_t* w = p + kWitnessRecordOffset;
    const std::uint32_t kind = load_le32(w);
    // A kind this build does not know may mean anything: fail closed, as for an unknown flag.
    if (kind == static_cast<std::uint32_t>(WitnessKind::kEtcd)) {
      s.witness.kind = WitnessKind::kEtcd;
      FleetBinding& f = s.witness.fleet;
      f.host_id = load_le32(w + 4);
      f.cluster_id = load_le64(w + 8);
      f.counter_created = load_le64(w + 16);
      f.host_created = load_le64(w + 24);
      f.revision_seen = load_le64(w + 32);
      f.block_end = load_le64(w + 40);
      checksum(p, kFleetChecksummedBytes, expected);
      if (std::memcmp(expected, p + kFleetChecksummedBytes, sizeof expected) != 0) return SlotStatus::kBadChecksum;
      f.term_seen = load_le64(p + kWitnessSlotBytes);
      // Bound only (a fleet host is made bound by join); next never passes the host's block.
      const bool fleet_ok = s.witnessed() && !s.witness_required() && f.host_id != 0 && f.cluster_id != 0 &&
                            f.counter_created != 0 && f.host_created >= f.counter_created &&
                            f.revision_seen >= f.host_created && s.next <= f.block_end &&
                            f.block_end <= s.max_signatures && !s.is_lease();
      if (!fleet_ok) return SlotStatus::kBadValues;
      if (s.max_signatures == 0) return SlotStatus::kBadValues;
      out = s;
      return SlotStatus::kValid;
    }
    if (kind != static_cast<std::uint32_t>(WitnessKind::kTpm) && kind != kTpmPolicyKind) {
      return SlotStatus::kUnsupportedVersion;
    }
    s.witness.kind = WitnessKind::kTpm;
    s.witness.nv_index = load_le32(w + 4);
    s.witness.base = load_le64(w + 8);
    std::memcpy(s.witness.counter_name.data(), w + 16, s.witness.counter_name.size());
    if (kind == kTpmPolicyKind) {
      checksum(p, kTpmPolicyChecksummedBytes, expected);
      if (std::memcmp(expected, p + kTpmPolicyChecksummedBytes, sizeof expected) != 0) return SlotStatus::kBadChecksum;
      s.witness.tpm_policy = true;
      s.witness.last_reservation = load_le64(p + kWitnessSlotBytes);
      s.witness.tpm_reset_count = load_le32(p + kWitnessSlotBytes + 8);
      s.witness.tpm_restart_count = load_le32(p + kWitnessSlotBytes + 12);
      if (s.witness.last_reservation > s.max_signatures) return SlotStatus::kBadValues;
    }
    // Bound xor required; a bound TPM counter lies in klms's range, a required one names none yet.
    const bool bound_ok = s.witnessed() && !s.witness_required() && s.witness.nv_index >= kTpmFirstIndex &&
                          s.witness.nv_index <= kTpmLastIndex;
    const bool required_ok = s.witness_required() && !s.witnessed() && s.witness.nv_index == 0;
    if (!bound_ok && !required_ok) return SlotStatus::kBadValues;
  }
  if (s.max_signatures == 0 || s.next > s.max_signatures) return SlotStatus::kBadValues;
  out = s;
  return SlotStatus::kValid;
}

// Why a single damaged slot is safe to ignore in a version-2 file, and why a torn write can never
// damage the other slot:
//  - Every write is one pwrite() of exactly one 4 KiB block at its own 4 KiB-aligned offset,
//    followed by fsync(), under the file's exclusive lock; the next write starts only after that
//    fsync returned. A crash interrupts at most the write in flight, and it can change only the
//    bytes of its own range: the other block was last written by a write whose fsync completed,
//    so it is intact (whatever the device does inside the block being written).
//  - A reservation writes its slot into both blocks before it hands out an index. So at rest both
//    blocks hold the last reservation whose indices may have left the process, or one block holds
//    a newer, never-used one. Either way the other block of a damaged one — whatever damaged it: a
//    torn write, a flipped bit, a zeroed block, a misdirected write, a restored old block — holds
//    a next index at or beyond every index ever handed out. Using it never repeats an index.
//  - Version 1 wrote one block per reservation; a damaged newest block there leaves only the older
//    one, whose next may be behind handed-out indices. That case cannot be told from a torn write,
//    so it is refused (kStateDamaged) and left to `klms-state adopt --advance`.
Result<Current> select_current(const FileImage& image, std::uint64_t size) noexcept {
  Decoded d;
  if (Error e = decode_file(image, size, d); e != Error::kOk) return e;
  for (unsigned b = 0; b < kSlotCount; ++b) {
    // Checksummed but impossible: not a torn write of ours, so do not fall back to the other slot.
    if (d.status[b] == SlotStatus::kBadValues) return Error::kStateCorrupt;
  }
  const bool valid0 = d.status[0] == SlotStatus::kValid;
  const bool valid1 = d.status[1] == SlotStatus::kValid;
  if (!valid0 && !valid1) return Error::kStateCorrupt;
  if (valid0 != valid1) {
    const unsigned b = valid0 ? 0 : 1;
    if (d.slots[b].version != kFormatVersion) return Error::kStateDamaged;
    return Current{d.slots[b], b, false};
  }
  if (d.slots[0] == d.slots[1]) return Current{d.slots[0], 0, true};
  auto newer = newer_of_two(d.slots);
  if (!newer) return newer.error();
  return Current{d.slots[*newer], *newer, false};
}

Result<Recovered> select_for_recovery(const FileImage& image, std::uint64_t size) noexcept {
  Decoded d;
  if (Error e = decode_file(image, size, d); e != Error::kOk && e != Error::kStateDamaged) return e;
  Recovered r;
  auto chosen = select_current(image, size);
  r.refused = chosen ? Error::kOk : chosen.error();
  if (chosen) {
    r.current = *chosen;
    return r;
  }
  if (d.status[0] == SlotStatus::kValid && d.status[1] == SlotStatus::kValid &&
      !of_the_same_state_file(d.slots[0], d.slots[1])) {
    return Error::kStateMixedBlocks;
  }
  bool found = false;
  for (unsigned b = 0; b < kSlotCount; ++b) {
    if (d.status[b] != SlotStatus::kValid) continue;
    const Slot& s = d.slots[b];
    if (!found || s.next > r.current.slot.next ||
        (s.next == r.current.slot.next && s.generation > r.current.slot.generation)) {
      r.current = Current{s, b, false};
      found = true;
    }
  }
  if (!found) return Error::kStateCorrupt;
  return r;
}

bool same_file_handle(const FileHandleDigest& recorded, const FileHandleDigest* actual) noexcept {
  if (recorded == FileHandleDigest{} || actual == nullptr) return true;  // nothing to compare
  return recorded == *actual;
}

StateInfo make_info(const Slot& slot, std::uint64_t actual_device, std::uint64_t actual_inode,
                    const FileHandleDigest* actual_handle) noexcept {
  StateInfo info;
  info.key_id = slot.key_id;
  info.levels_digest = slot.levels_digest;
  info.format_version = slot.version;
  info.next = slot.next;
  info.max_signatures = slot.max_signatures;
  info.instance_id = slot.instance_id;
  info.device = slot.device;
  info.inode = slot.inode;
  info.generation = slot.generation;
  info.reserving_pid = slot.reserving_pid;
  info.actual_device = actual_device;
  info.actual_inode = actual_inode;
  info.file_handle_recorded = slot.file_handle != FileHandleDigest{};
  info.file_handle_changed = !same_file_handle(slot.file_handle, actual_handle);
  info.lease = slot.is_lease();
  info.lease_start = slot.lease_start;
  info.lease_end = slot.lease_end;
  info.parent_instance_id = slot.parent_instance_id;
  info.lease_depth = slot.lease_depth;
  info.witness.record = slot.witness;
  info.low_signatures_warning = slot.low_signatures_warning();
  info.exhaustion_acknowledged = slot.exhaustion_acknowledged();
  info.witness.state = slot.witnessed() ? WitnessState::kUnreachable
                       : slot.witness_required() ? WitnessState::kRequired : WitnessState::kNone;
  return info;
}

}  // namespace klms::state::format
