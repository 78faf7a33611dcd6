#include "pkcs11/engine/engine_bridge.h"

#include <openssl/rand.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "lms/hss.h"
#include "lms/keygen.h"
#include "lms/params.h"
#include "lms/private_key.h"
#include "lms/signer.h"
#include "lms/signing_session.h"
#include "lms/verify.h"
#include "lms/wire_format.h"
#include "state/remedy.h"
#include "state/store.h"

namespace klms::pkcs11::engine {
namespace {

// The engine's levels for type codes; empty (with `why`) when a code or pair is unknown.
std::vector<lms::LevelParams> level_params(std::span<const LevelTypes> levels, std::string& why) {
  std::vector<lms::LevelParams> out;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const lms::LmsParams* l = lms::find_lms(levels[i].lms);
    const lms::OtsParams* o = lms::find_ots(levels[i].ots);
    if (l == nullptr || o == nullptr) {
      why = "level " + std::to_string(i + 1) + ": " + (l == nullptr ? "LMS type " : "LM-OTS type ") +
            std::to_string(l == nullptr ? levels[i].lms : levels[i].ots) + " is not a parameter set of this module";
      return {};
    }
    out.push_back(lms::LevelParams{l, o});
  }
  return out;
}

state::StateOptions state_options(const StatePolicy& policy) {
  state::StateOptions o;
  o.allow_network_fs = policy.allow_network_fs;
  o.allow_no_file_handles = policy.allow_no_file_handles;
  o.low_signatures_warning = policy.low_signatures_warning;
  switch (policy.witness) {
    case StatePolicy::Witness::kNone: o.witness = state::WitnessKind::kNone; break;
    case StatePolicy::Witness::kTpm: o.witness = state::WitnessKind::kTpm; break;
    case StatePolicy::Witness::kEtcd: o.witness = state::WitnessKind::kEtcd; break;
  }
  state::WitnessConfig& w = o.witness_config;
  w.tpm_tcti = policy.tpm_tcti;
  w.tpm_owner_auth.assign(policy.tpm_owner_auth.begin(), policy.tpm_owner_auth.end());
  w.etcd_endpoints = policy.etcd_endpoints;
  w.etcd_prefix = policy.etcd_prefix;
  w.etcd_cacert = policy.etcd_cacert;
  w.etcd_cert = policy.etcd_cert;
  w.etcd_key = policy.etcd_key;
  w.etcd_user = policy.etcd_user;
  w.etcd_password.assign(policy.etcd_password.begin(), policy.etcd_password.end());
  return o;
}

// Options with the witness's secrets in plain strings (state/witness.h): wiped when they go, and
// every copy made of them is one of these.
struct WipedOptions {
  explicit WipedOptions(const StatePolicy& policy) : options(state_options(policy)) {}
  ~WipedOptions() { wipe_secrets(options); }
  WipedOptions(const WipedOptions&) = delete;
  WipedOptions& operator=(const WipedOptions&) = delete;
  static void wipe_secrets(state::StateOptions& o) noexcept {
    wipe(o.witness_config.tpm_owner_auth.data(), o.witness_config.tpm_owner_auth.size());
    wipe(o.witness_config.etcd_password.data(), o.witness_config.etcd_password.size());
  }
  state::StateOptions options;
};

// Wipes the secrets of state options held elsewhere (a SessionOptions, a KeygenRequest) at scope exit.
struct WipeOnExit {
  explicit WipeOnExit(state::StateOptions& of) noexcept : of_(of) {}
  ~WipeOnExit() { WipedOptions::wipe_secrets(of_); }
  WipeOnExit(const WipeOnExit&) = delete;
  WipeOnExit& operator=(const WipeOnExit&) = delete;

 private:
  state::StateOptions& of_;
};

const char* step_name(lms::SessionStep step) noexcept {
  switch (step) {
    case lms::SessionStep::kSeededKey: return "checking the key";
    case lms::SessionStep::kStatePath: return "checking the state file's path";
    case lms::SessionStep::kOpenState: return "opening the state file";
    case lms::SessionStep::kPrepareSigner: return "preparing the signer";
    case lms::SessionStep::kLoadTree: return "loading the top tree";
    case lms::SessionStep::kReserve: return "reserving an index";
    case lms::SessionStep::kBegin: return "starting the signature";
  }
  return "signing";
}

}  // namespace

struct SigningKey::Impl {
  lms::HssPrivateKey private_key;
  Bytes public_key;
  state::KeyBinding binding;
  lms::KeptSigning kept;
  std::size_t signature_bytes = 0;

  lms::SigningKey view() {
    return lms::SigningKey{&private_key, ByteView(public_key.data(), public_key.size()), binding, &kept};
  }
};

SigningKey::SigningKey(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
SigningKey::~SigningKey() = default;

namespace {

std::unique_ptr<SigningKey::Impl> make_impl(lms::HssPrivateKey key, ByteView public_key, const std::string& state_file) {
  auto impl = std::make_unique<SigningKey::Impl>();
  key.state_file = state_file;
  impl->binding.key_id = lms::key_id_of(public_key);
  impl->binding.params = lms::levels_digest_of(key.levels);
  impl->binding.params_in_key_id = key.levels.size() == 1;
  impl->signature_bytes = lms::hss_signature_bytes(key.levels);
  impl->private_key = std::move(key);
  impl->public_key.assign(public_key.begin(), public_key.end());
  return impl;
}

}  // namespace

Result<std::unique_ptr<SigningKey>> SigningKey::load(ByteView private_key, ByteView public_key,
                                                     const std::string& state_file) {
  auto decoded = lms::decode_private_key(private_key);
  if (!decoded) return decoded.error();
  auto parsed = lms::parse_hss_public_key(public_key);
  if (!parsed) return parsed.error();
  if (parsed->levels != decoded->levels.size() || parsed->top.params.lms != decoded->levels.front().lms ||
      parsed->top.params.ots != decoded->levels.front().ots) {
    return Error::kParameterMismatch;
  }
  return std::unique_ptr<SigningKey>(new SigningKey(make_impl(std::move(*decoded), public_key, state_file)));
}

Result<Bytes> SigningKey::sign(ByteView message, const StatePolicy& policy, std::string& step) {
  lms::SessionOptions options;
  WipeOnExit wipe_copy(options.state);
  options.state = state_options(policy);
  options.reserve = 1;  // one durable reservation per signature: an index leaves only in a signature
  lms::SessionStart start = lms::SigningSession::begin(impl_->view(), impl_->private_key.state_file, options);
  if (!start.session) {
    step = step_name(start.step);
    return start.session.error();
  }
  step = "signing";
  if (const Error e = start.session->update(message); e != Error::kOk) return e;
  return start.session->finish();
}

Result<std::uint64_t> SigningKey::remaining(const StatePolicy& policy) {
  WipedOptions state(policy);
  lms::SessionStep step = lms::SessionStep::kStatePath;
  return lms::remaining_signatures(impl_->view(), impl_->private_key.state_file, state.options, step);
}

std::size_t SigningKey::signature_bytes() const noexcept { return impl_->signature_bytes; }
const std::string& SigningKey::state_file() const noexcept { return impl_->private_key.state_file; }

Error check_levels(std::span<const LevelTypes> levels, std::string& why) {
  if (levels.empty() || levels.size() > lms::kMaxLevels) {
    why = "HSS takes 1 to 8 levels, not " + std::to_string(levels.size());
    return Error::kBadLevels;
  }
  std::vector<lms::LevelParams> params = level_params(levels, why);
  if (params.empty()) return Error::kUnknownLmsType;
  if (const Error e = lms::check_generation_levels(params); e != Error::kOk) {
    why = std::string("the levels do not form one HSS key: ") + describe(e) +
          " (every level one hash family and n, each LMS type with an LM-OTS type of its hash)";
    return e;
  }
  return Error::kOk;
}

std::size_t signature_bytes(std::span<const LevelTypes> levels) noexcept {
  std::string why;
  try {
    const std::vector<lms::LevelParams> params = level_params(levels, why);
    return params.empty() ? 0 : lms::hss_signature_bytes(params);
  } catch (...) {
    return 0;
  }
}

std::uint64_t max_signatures(std::span<const LevelTypes> levels) noexcept {
  std::string why;
  try {
    const std::vector<lms::LevelParams> params = level_params(levels, why);
    return params.empty() ? 0 : lms::max_signatures(params);
  } catch (...) {
    return 0;
  }
}

bool parse_public_key(ByteView raw, std::uint32_t& levels, LevelTypes& top) noexcept {
  auto parsed = lms::parse_hss_public_key(raw);
  if (!parsed) return false;
  levels = parsed->levels;
  top.lms = parsed->top.params.lms->code;
  top.ots = parsed->top.params.ots->code;
  return true;
}

std::array<std::uint8_t, 32> key_id(ByteView raw_public_key) noexcept { return lms::key_id_of(raw_public_key); }

Result<GeneratedPair> generate(std::span<const LevelTypes> levels, const std::string& state_file,
                               const StatePolicy& policy) {
  std::string why;
  lms::KeygenRequest request;
  request.levels = level_params(levels, why);
  if (request.levels.empty()) return Error::kUnknownLmsType;
  const std::size_t m = request.levels.front().lms->m;
  if (RAND_priv_bytes(request.seed.data(), static_cast<int>(m)) != 1 ||
      RAND_bytes(request.identifier.data(), static_cast<int>(request.identifier.size())) != 1) {
    return Error::kInternal;
  }
  request.state_file = state_file;
  WipeOnExit wipe_copy(request.state_options);
  request.state_options = state_options(policy);
  auto generated = lms::generate_key(request);
  if (!generated) return generated.error();
  GeneratedPair out;
  out.private_key = lms::encode_private_key(generated->private_key);
  out.public_key = generated->public_key;
  auto impl = make_impl(std::move(generated->private_key), ByteView(out.public_key.data(), out.public_key.size()),
                        state_file);
  impl->kept.keep_own_signer(std::move(generated->signer));
  out.signing.reset(new SigningKey(std::move(impl)));
  return out;
}

Error verify(ByteView public_key, ByteView message, ByteView signature) noexcept {
  return lms::hss_verify(public_key, message, signature);
}

Error retire(const std::string& state_file, const StatePolicy& policy) {
  WipedOptions state(policy);
  auto retired = state::retire_state_file(state_file, state.options);
  // The caches are only the trees: rebuilt from the private key when needed, worthless without it.
  std::error_code ec;
  const std::filesystem::path path(state_file);
  for (const auto& entry : std::filesystem::directory_iterator(path.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(path.filename().string() + ".cache", 0) == 0) std::filesystem::remove(entry.path(), ec);
  }
  return retired ? Error::kOk : retired.error();
}

std::string explain(Error error, const std::string& state_file) {
  return std::string(describe(error)) + state::remedy_of(error, state_file);
}

}  // namespace klms::pkcs11::engine
