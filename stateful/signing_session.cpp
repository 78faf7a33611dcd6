#include "stateful/signing_session.h"

#include <utility>


namespace klms::stateful {

void KeptSigning::keep_own_signer(std::shared_ptr<Signer> signer) {
  Kept& mine = per_process_.mine();
  std::lock_guard<std::mutex> lock(mine.mutex);
  mine.own_signer = std::move(signer);
}

namespace {

// The state checks signing and the summary share, in this order: the path (also for a state file
// renamed since key generation: a name that leaves no room for the cache's names would make every
// signature rebuild the whole tree), then the file itself, bound to the key.
Result<std::shared_ptr<state::StateHandle>> open_checked_state(const SigningKey& key, const std::string& path,
                                                               const state::StateOptions& options, SessionStep& step) {
  step = SessionStep::kStatePath;
  if (const Error e = state::check_state_path(path); e != Error::kOk) return e;
  step = SessionStep::kOpenState;
  return state::StateHandle::open(path, key.binding, options);
}

}  // namespace

Result<std::shared_ptr<Signer>> SigningSession::shared_signer(const SigningKey& key, const std::string& state_file,
                                                             const RebuildProgress& progress) {
  KeptSigning::Kept& kept = key.kept->per_process_.mine();
  const bool own = state_file == key.private_key->state_file;
  if (own) {
    std::lock_guard<std::mutex> lock(kept.mutex);
    if (kept.own_signer) return kept.own_signer;
  }
  // Never destroyed: signers may be in use while the process exits. One registry per process
  // (base/per_process.h): a copy never waits on the original's lock, which a thread that does not
  // exist in the copy may hold (a signer being made, its tree cache read).
  struct Registry {
    std::mutex mutex;
    std::map<std::string, std::weak_ptr<Signer>> signers;
  };
  static auto* registries = new PerProcess<Registry>;
  Registry& registry = registries->mine();
  // The parameters too: two key files with one public key but other lower levels must never share
  // a signer (the signer signs with its own key's parameters; docs/state.md §16).
  std::string id(reinterpret_cast<const char*>(key.binding.key_id.data()), key.binding.key_id.size());
  id.append(reinterpret_cast<const char*>(key.binding.params.data()), key.binding.params.size());
  id += state_file;  // no process in the id: the registry itself is this process's own
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::shared_ptr<Signer> signer;
  if (auto it = registry.signers.find(id); it != registry.signers.end()) signer = it->second.lock();
  if (!signer) {
    BuildOptions build;
    // A rebuild of a missing or damaged top-tree cache can take minutes (H25): reported only when
    // the caller asks for it (docs/developer-kit.md "Progress").
    if (progress) {
      if (ProgressCallback lines =
              progress(*key.private_key, state_file, key.private_key->tree_cache_file(state_file, 0))) {
        build.progress = std::move(lines);
        build.report_from_leaves = 0;
      }
    }
    auto created = key.private_key->make_signer(key.public_key, state_file, build);
    if (!created) return created.error();
    signer = *created;
    registry.signers[id] = signer;
  }
  if (own) {
    std::lock_guard<std::mutex> own_lock(kept.mutex);
    kept.own_signer = signer;
  }
  return signer;
}

SigningSession::SigningSession(std::shared_ptr<Signer> signer, std::unique_ptr<Operation> operation) noexcept
    : signer_(std::move(signer)), operation_(std::move(operation)) {}

SessionStart SigningSession::begin(const SigningKey& key, const std::string& state_file, const SessionOptions& options) {
  if (key.private_key == nullptr) return {Error::kInvalidArgument, SessionStep::kSeededKey};
  if (key.private_key->seeded && !seeded_keys_allowed()) return {Error::kSeededKeyRefused, SessionStep::kSeededKey};
  SessionStep step = SessionStep::kStatePath;
  auto handle = open_checked_state(key, state_file, options.state, step);
  if (!handle) return {handle.error(), step};
  auto signer = shared_signer(key, state_file, options.progress);
  if (!signer) return {signer.error(), SessionStep::kPrepareSigner};
  {
    // Keep the handle (and the reservation it holds) for the next session with this key; a
    // poisoned one was replaced by open() above.
    KeptSigning::Kept& kept = key.kept->per_process_.mine();
    std::lock_guard<std::mutex> keep(kept.mutex);
    kept.state_handles[state_file] = *handle;
  }
  // A key whose halves do not belong together must fail before an index is spent on it.
  if (const Error e = (*signer)->load_top_tree(); e != Error::kOk) return {e, SessionStep::kLoadTree};
  auto lease = (*handle)->take(options.reserve);
  if (!lease) return {lease.error(), SessionStep::kReserve};
  auto operation = (*signer)->begin_signature(std::move(*lease));
  if (!operation) return {operation.error(), SessionStep::kBegin};
  return {SigningSession(std::move(*signer), std::move(*operation)), SessionStep::kBegin};
}

Error SigningSession::update(ByteView data) noexcept {
  if (!operation_) return Error::kLeaseConsumed;
  return operation_->update(data);
}

bool SigningSession::owned_by_this_process() const noexcept {
  return operation_ && operation_->owned_by_this_process();
}

Result<Bytes> SigningSession::finish() {
  if (!operation_ || !signer_) return Error::kLeaseConsumed;  // finished, or moved from
  return signer_->finish_signature(std::move(operation_));  // leaves operation_ empty: used up
}

Result<std::uint64_t> remaining_signatures(const SigningKey& key, const std::string& state_file,
                                           const state::StateOptions& options, SessionStep& step) {
  step = SessionStep::kSeededKey;
  if (key.private_key == nullptr) return Error::kInvalidArgument;
  auto handle = open_checked_state(key, state_file, options, step);
  if (!handle) return handle.error();
  step = SessionStep::kReserve;
  return (*handle)->remaining_signatures();
}

StateSummary summarize_state(const SigningKey& key, const state::StateOptions& options) {
  StateSummary s;
  if (key.private_key == nullptr) {
    s.error = Error::kInvalidArgument;
    return s;
  }
  const std::string& path = key.private_key->state_file;
  SessionStep step = SessionStep::kStatePath;
  auto handle = open_checked_state(key, path, options, step);
  if (!handle && step == SessionStep::kStatePath) {
    s.error = handle.error();  // not even inspected: the path itself is refused
    return s;
  }
  if (handle) {
    auto info = (*handle)->info();
    if (info) {
      s.have_info = true;
      s.info = *info;
      s.remaining = info->remaining();  // what the file has left: indices reserved in memory count as used
      if (info->looks_copied()) s.error = Error::kStateCopied;
      // What the witness says, for display (a display read consults it, docs/state.md "The witness").
      if (info->witness.record.kind != state::WitnessKind::kNone) {
        if (auto inspected = state::inspect_state_file(path, options)) s.info.witness = inspected->witness;
      }
      return s;
    }
    s.error = info.error();
  } else {
    s.error = handle.error();
  }
  // Refused: still show what the file says, when it can be read.
  if (auto inspected = state::inspect_state_file(path, options)) {
    s.have_info = true;
    s.info = *inspected;
    s.remaining = inspected->remaining();
  }
  return s;
}

}  // namespace klms::stateful
