// Every way an LMS (or XMSS, xmss/) operation can fail, as one enum the provider maps to its own reason strings.
// The codes are distinct so that a user (and a test) can tell a copied state file from a corrupt
// one, an exhausted key from a lost write.
#pragma once

#include <cstdint>
#include <exception>
#include <type_traits>
#include <utility>
#include <variant>

namespace klms {

enum class Error : std::uint8_t {
  kOk = 0,
  // Parameters and encodings
  kUnknownLmsType,
  kUnknownOtsType,
  kParameterMismatch,   // LMS and LM-OTS hash or n differ, or levels differ where they must not
  kBadLevels,           // L outside 1..8
  kMalformedPublicKey,
  kMalformedSignature,
  kMalformedPrivateKey,
  kBadSeedLength,
  kVerifyFailed,        // well-formed, but not a valid signature
  kUnknownXmssType,     // XMSS / K-XMSS: a type code or combination no set of this library has (docs/xmss.md)
  kBackendMismatch,     // a hash backend of another family than the parameter set's
  // State file (docs/state.md "Errors")
  kStateMissing,
  kStateDirectoryMissing,  // key generation: the state file's directory does not exist
  kStateUnreadable,
  kStateTruncated,
  kStateCorrupt,
  kStateForeign,        // belongs to another key
  kStateCopied,         // device/inode or instance changed: copied, restored or moved
  kStateExists,         // key generation refuses to overwrite
  kStateInsecureDirectory,
  kStateInsecureFile,   // not a regular file, wrong owner, or writable by others
  kStateNetworkFs,
  kStateWriteFailed,    // write or fsync failed; the handle is now poisoned
  kStatePoisoned,       // an earlier write failed; reopen to go on
  kStateLockFailed,
  kExhausted,           // no signatures left
  kIndexOverflow,       // arithmetic would wrap: fail closed
  kLeaseConsumed,       // a signing operation's index was already used
  kSeededKeyRefused,    // seeded key without KLMS_ALLOW_SEEDED_KEYS=1
  kStateNotAStateFile,  // neither slot starts with the state-file magic
  kStateUnsupportedVersion,  // a checksummed slot of a format version this build does not know
  kStateDamaged,        // a slot is damaged and a crash cannot explain it: the next index is unknown
  kStateParamsMismatch, // the key's HSS parameter sets are not the ones the state file was made for
  kStateUnbound,        // a used pre-format-2 state file of a multi-level key: bind it explicitly
  kStateReadOnlyFs,     // the state file is on a read-only file system
  kStatePermissionDenied,  // the state file or its directory cannot be opened for writing by us
  kStatePathInvalid,    // empty, relative, ends in '/', or has control characters
  kStateNameTooLong,    // the state file's name leaves no room for its cache's names
  kReserveTooLarge,     // a reservation beyond what is left, or beyond the limit
  kExhaustionNotAcknowledged,  // the reservation would use one of the key's last T indices: acknowledge first
  kForeignProcess,      // signing state made by another process (a fork or clone of it) cannot be used
  kCancelled,           // the caller's progress callback asked to stop
  // The witness (docs/state.md "The witness")
  kStateBehindWitness,  // the file's next index is behind its witness: restored, copied or rolled back
  kWitnessRequired,     // the file must be bound to a witness on this host before it signs
  kWitnessUnsupported,  // the file names a witness kind this build does not know
  kWitnessUnreachable,  // the witness did not answer (no TPM, no cluster, deadline)
  kWitnessModuleMissing,  // the witness's module (klms-witness-*.so) cannot be loaded
  kWitnessMissing,      // no counter where the file says (released, another host, TPM cleared)
  kWitnessMismatch,     // a counter that is not the one the file is bound to, or ahead of the file's own write
  kWitnessAuthFailed,   // the TPM refused the counter's authorization
  kWitnessNoSpace,      // no free NV counter on the TPM
  kWitnessBudget,       // the key would write the TPM's NV more often than the budget allows
  kWitnessSecretMissing,   // the state directory has no klms-witness.secret
  kWitnessSecretInsecure,  // klms-witness.secret is unreadable, not ours, not private, or not 32 bytes
  kWitnessFailed,       // any other TPM or etcd error
  kWitnessWentBackwards,  // etcd: the key's counter or the host's record is below what was handed out
  kWitnessRecreated,    // etcd: the counter or host record was deleted and created again
  kWitnessOtherCluster, // etcd: the answer came from a cluster of another id
  kWitnessOlderRevision,  // etcd: an answer older than one this host has seen (a restored cluster)
  kWitnessDenied,       // etcd: the user may not read or write the key's records
  kWitnessLeaseUnsupported,  // etcd: a fleet key's state file is not leased (hosts join instead)
  kStateMixedBlocks,    // valid slots of different state files (key, kind, range or instance): recovery refuses
  kStateReadableByOthers,  // group or others may open the state file (and hold its lock)
  kStateNoFileHandles,  // a file system without file handles (overlayfs): copies and layers are invisible
  kStateNameIsCache,    // a new state file's name is one a tree cache uses (<state>.cache, .cache.levelN)
  // Tree cache
  kCacheUnusable,       // damaged or foreign cache; callers rebuild it
  kCacheWriteFailed,
  // Everything else
  kInvalidArgument,
  kOutOfMemory,
  kInternal,
};

// A short English description, stable enough for users and tests to match on.
const char* describe(Error e) noexcept;

// A value or an error. Small and explicit; no exceptions cross the library boundary, and none
// come from here: every accessor is noexcept. Reading the value of an error is a programming error
// that ends the process (std::terminate) rather than going on with a value that is not there.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) noexcept(std::is_nothrow_move_constructible_v<T>) : v_(std::move(value)) {}
  Result(Error e) noexcept : v_(e) {}
  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  Error error() const noexcept {
    if (ok()) return Error::kOk;
    const Error* e = std::get_if<Error>(&v_);
    return e == nullptr ? Error::kInternal : *e;  // valueless after a throwing move: not a success
  }
  T& value() & noexcept { return *checked(); }
  const T& value() const& noexcept { return *checked(); }
  T&& value() && noexcept { return std::move(*checked()); }
  T* operator->() noexcept { return checked(); }
  const T* operator->() const noexcept { return checked(); }
  T& operator*() & noexcept { return *checked(); }
  const T& operator*() const& noexcept { return *checked(); }
  T&& operator*() && noexcept { return std::move(*checked()); }

 private:
  T* checked() noexcept {
    T* p = std::get_if<T>(&v_);
    if (p == nullptr) std::terminate();
    return p;
  }
  const T* checked() const noexcept {
    const T* p = std::get_if<T>(&v_);
    if (p == nullptr) std::terminate();
    return p;
  }
  std::variant<T, Error> v_;
};

}  // namespace klms
