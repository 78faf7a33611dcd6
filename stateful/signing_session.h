// One signature's session with a key and its state file (docs/state.md §2, §10): the signing recipe
// the provider, and anything else that signs through a state file, runs in one fixed order —
//   seeded-key check, state path check, StateHandle::open, the shared signer, keeping the handle on
//   the key, the top tree (a key whose halves do not belong together fails before an index is
//   spent), the index reservation, the signer's begin —
// and the state summary (`pkey -text`, -check, remaining-signatures) found with the same first
// checks. A refusal names the step, so that callers can say what they were doing. Scheme-neutral
// (stateful/scheme.h): the provider and any other front door (a PKCS#11 token) sign any scheme's
// keys through it — one session reserves one index and gives its signature once; a caller that
// must answer a length query first asks the key (PrivateKey::signature_bytes), which spends nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/bytes.h"
#include "base/error.h"
#include "base/per_process.h"
#include "state/store.h"
#include "stateful/scheme.h"

namespace klms::stateful {

// What a key keeps between signatures, shared by every copy of its key object: the signer for the
// key's own state file (its in-memory trees survive between signatures) and the state handles it
// signed through (its own state file and any other one given for it): a handle holds the process's
// reservation (docs/state.md §8), and the state registry only keeps handles that somebody holds.
class KeptSigning {
 public:
  // Key generation's signer, which holds the top tree in memory, as the key's own.
  void keep_own_signer(std::shared_ptr<Signer> signer);

 private:
  friend class SigningSession;
  // Each process that signs with the key keeps its own (base/per_process.h): a copy of the process
  // must never lock the original's mutex, which another thread may have held at the copy's moment,
  // nor sign with the original's signer or handles (docs/state.md §15).
  struct Kept {
    std::mutex mutex;
    std::shared_ptr<Signer> own_signer;
    std::map<std::string, std::shared_ptr<state::StateHandle>> state_handles;
  };
  PerProcess<Kept> per_process_;
};

// A private key as a session signs with it: views of the key's parts, valid during the call.
struct SigningKey {
  const PrivateKey* private_key = nullptr;  // null (a public key) is refused: kInvalidArgument
  ByteView public_key;                      // the scheme's raw public key
  state::KeyBinding binding;                // what the state file must be bound to (docs/state.md §16)
  KeptSigning* kept = nullptr;              // never null
};

// The lines (or nothing: an empty callback) for a rebuild of the top tree (key.top_tree()) of
// `state_file` whose tree cache `cache_path` is missing or damaged; asked when a signer is made.
using RebuildProgress =
    std::function<ProgressCallback(const PrivateKey& key, const std::string& state_file, const std::string& cache_path)>;

struct SessionOptions {
  state::StateOptions state;
  std::uint64_t reserve = 1;  // indices reserved at once when the process holds none (1..kMaxReserve)
  RebuildProgress progress;   // empty: no progress
};

// The step of SigningSession::begin that refused, in the order they run.
enum class SessionStep : std::uint8_t {
  kSeededKey,      // the key itself: no private half, or seeded without KLMS_ALLOW_SEEDED_KEYS=1 (docs/state.md §13)
  kStatePath,      // state::check_state_path
  kOpenState,      // state::StateHandle::open
  kPrepareSigner,  // making (or finding) the shared signer
  kLoadTree,       // Signer::load_top_tree
  kReserve,        // StateHandle::take
  kBegin,          // Signer::begin
};

// A session, or the step that refused it (`session.error()` says why).
struct SessionStart;

class SigningSession {
 public:
  // Runs the recipe in the order above for `state_file` (the key's own or another one for it) and
  // stops at the first refusal; on success the index is reserved and the message hash started.
  // Like everything here that allocates (begin, summarize_state, remaining_signatures,
  // KeptSigning::keep_own_signer), it throws std::bad_alloc only: callers at a C boundary catch it
  // (provider/c_boundary.h).
  static SessionStart begin(const SigningKey& key, const std::string& state_file, const SessionOptions& options);

  // kOk, kLeaseConsumed after finish, kForeignProcess in another process.
  Error update(ByteView data) noexcept;
  bool owned_by_this_process() const noexcept;
  // The signature; the session is used up whatever the result.
  Result<Bytes> finish();

  // A moved-from session is used up: update and finish give kLeaseConsumed.
  SigningSession(SigningSession&& other) noexcept
      : signer_(std::move(other.signer_)), operation_(std::move(other.operation_)) {
    other.operation_.reset();
  }
  SigningSession& operator=(SigningSession&& other) noexcept {
    signer_ = std::move(other.signer_);
    operation_ = std::move(other.operation_);
    other.operation_.reset();
    return *this;
  }
  ~SigningSession() = default;

 private:
  SigningSession(std::shared_ptr<Signer> signer, std::unique_ptr<Operation> operation) noexcept;
  // The signer of a private key for a state file, shared by every key object and session in this
  // process that signs with the same key and state file (a process-wide registry).
  static Result<std::shared_ptr<Signer>> shared_signer(const SigningKey& key, const std::string& state_file,
                                                       const RebuildProgress& progress);
  std::shared_ptr<Signer> signer_;
  std::unique_ptr<Operation> operation_;
};

struct SessionStart {
  Result<SigningSession> session;
  SessionStep step = SessionStep::kBegin;  // the refusing step; meaningless on success
};

// What `openssl pkey -text`, `-check` and `remaining-signatures` report about the key's own state
// file, found with exactly the state checks SigningSession::begin runs (after the seeded-key check:
// the path check and the same StateHandle::open): `error` is kOk when signing would accept the file, else what signing would
// refuse it with. `info` is what the file says when it can be read at all (also for a refused
// file), `remaining` what the file has left.
struct StateSummary {
  Error error = Error::kOk;
  bool have_info = false;
  state::StateInfo info;
  std::uint64_t remaining = 0;
};
StateSummary summarize_state(const SigningKey& key, const state::StateOptions& options);

// What a signing context reports as remaining-signatures for `state_file` (the key's own or an
// override): the file's remaining indices after the same state checks begin runs, in the same
// order; on a refusal `step` says which check refused (kStatePath, kOpenState, or kReserve for
// reading the reservation).
Result<std::uint64_t> remaining_signatures(const SigningKey& key, const std::string& state_file,
                                           const state::StateOptions& options, SessionStep& step);

}  // namespace klms::stateful
