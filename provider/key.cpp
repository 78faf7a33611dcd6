#include "provider/key.h"

#include "base/path.h"
#include "base/process_token.h"
#include "provider/names.h"
#include "provider/progress.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace klms::provider {

std::size_t KeyMaterial::max_signature_bytes() const noexcept {
  if (private_key) return lms::hss_signature_bytes(private_key->levels);
  if (levels == 1) return lms::hss_signature_bytes(std::vector<lms::LevelParams>{top});
  // Lower levels are not in the public key: bound them by the largest set of the top's hash and n.
  std::size_t lower = 0;
  for (const lms::LmsParams& l : lms::all_lms()) {
    for (const lms::OtsParams& o : lms::all_ots()) {
      if (!lms::compatible(l, o)) continue;
      const lms::LevelParams p{&l, &o};
      lower = std::max(lower, p.signature_bytes() + p.public_key_bytes());
    }
  }
  return 4 + top.signature_bytes() + (levels - 1) * lower;
}

std::shared_ptr<const KeyMaterial> make_public_material(klms::ByteView public_key, klms::Error& error) {
  auto parsed = lms::parse_hss_public_key(public_key);
  if (!parsed) {
    error = parsed.error();
    return nullptr;
  }
  auto m = std::make_shared<KeyMaterial>();
  m->public_key.assign(public_key.begin(), public_key.end());
  m->levels = parsed->levels;
  m->top = parsed->top.params;
  m->key_id = lms::key_id_of(public_key);
  error = klms::Error::kOk;
  return m;
}

std::shared_ptr<const KeyMaterial> make_private_material(lms::HssPrivateKey private_key, klms::ByteView public_key,
                                                         klms::Error& error) {
  auto pub = make_public_material(public_key, error);
  if (!pub) return nullptr;
  if (pub->levels != private_key.levels.size() || pub->top.lms != private_key.levels.front().lms ||
      pub->top.ots != private_key.levels.front().ots ||
      std::memcmp(public_key.data() + 12, private_key.identifier.data(), lms::kIdentifierBytes) != 0) {
    error = klms::Error::kMalformedPrivateKey;
    return nullptr;
  }
  auto m = std::make_shared<KeyMaterial>();
  m->public_key = pub->public_key;
  m->levels = pub->levels;
  m->top = pub->top;
  m->key_id = pub->key_id;
  m->levels_digest = lms::levels_digest_of(private_key.levels);
  m->private_key = std::move(private_key);
  return m;
}

static bool make_private_directory(const std::string& dir) {
  // mkdir -p with 0700 for the parts we create; existing parts are left as they are.
  for (std::size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    const std::string part = dir.substr(0, pos);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string default_state_directory(const ProviderContext& provider) {
  std::string dir;
  if (const char* env = std::getenv(kEnvStateDir); env != nullptr && *env != '\0') {
    dir = env;
  } else if (!provider.config.state_dir.empty()) {
    dir = provider.config.state_dir;
  } else if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg != nullptr && *xdg == '/') {
    dir = std::string(xdg) + "/klms";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
    dir = std::string(home) + "/.local/state/klms";
  } else {
    return {};
  }
  auto abs = klms::absolute_path(dir);
  if (!abs) return {};
  return make_private_directory(*abs) ? std::move(*abs) : std::string();
}

klms::Result<std::shared_ptr<lms::Signer>> shared_signer(const KeyMaterial& key, const std::string& state_file) {
  if (!key.private_key) return klms::Error::kInvalidArgument;
  const bool own = state_file == key.private_key->state_file;
  if (own) {
    std::lock_guard<std::mutex> lock(key.signer_mutex);
    if (key.own_signer && key.own_signer_owner == klms::process_token()) return key.own_signer;
  }
  // Never destroyed: signers may be in use while the process exits.
  static auto* mutex = new std::mutex;
  static auto* registry = new std::map<std::string, std::weak_ptr<lms::Signer>>;
  // The levels too: two key files with one public key but other lower levels must never share a
  // signer (the signer signs with its own key's levels; docs/state.md §16).
  std::string id(reinterpret_cast<const char*>(key.key_id.data()), key.key_id.size());
  id.append(reinterpret_cast<const char*>(key.levels_digest.data()), key.levels_digest.size());
  const std::uint64_t process = klms::process_token();  // a copy of the process never shares the original's
  id.append(reinterpret_cast<const char*>(&process), sizeof process);
  id += state_file;
  std::lock_guard<std::mutex> lock(*mutex);
  std::shared_ptr<lms::Signer> signer;
  if (auto it = registry->find(id); it != registry->end()) signer = it->second.lock();
  if (!signer) {
    lms::SignerOptions options;
    options.cache_path = state_file + ".cache";
    // A rebuild of a missing or damaged top-tree cache can take minutes (H25): said on stderr only
    // when asked for (docs/developer-kit.md "Progress"), since a library must not write there unasked.
    if (progress_requested_by_environment()) {
      options.build.progress = rebuild_progress_lines(key.private_key->levels.front(), state_file, options.cache_path);
      options.build.report_from_leaves = 0;
    }
    auto created = lms::Signer::create(*key.private_key, key.public_key, options);
    if (!created) return created.error();
    signer = *created;
    (*registry)[id] = signer;
  }
  if (own) {
    std::lock_guard<std::mutex> own_lock(key.signer_mutex);
    key.own_signer = signer;
    key.own_signer_owner = process;
  }
  return signer;
}

state::StateOptions state_options(const ProviderContext& provider) noexcept {
  state::StateOptions options;
  options.allow_network_fs = provider.config.allow_network_fs;
  options.witness_config = provider.config.witness_config;
  options.allow_no_file_handles = provider.config.allow_no_file_handles;
  options.low_signatures_warning = provider.config.low_signatures_warning;  // recorded by key generation only
  return options;
}

StateSummary summarize_state(const KeyMaterial& key, const state::StateOptions& options) {
  StateSummary s;
  if (!key.private_key) {
    s.error = klms::Error::kInvalidArgument;
    return s;
  }
  const std::string& path = key.private_key->state_file;
  // What begin_operation checks first (signature.cpp), in the same order.
  if (const klms::Error e = state::check_state_path(path); e != klms::Error::kOk) {
    s.error = e;
    return s;
  }
  auto handle = state::StateHandle::open(path, key.binding(), options);
  if (handle) {
    auto info = (*handle)->info();
    if (info) {
      s.have_info = true;
      s.info = *info;
      s.remaining = info->remaining();  // what the file has left: indices reserved in memory count as used
      if (info->looks_copied()) s.error = klms::Error::kStateCopied;
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

}  // namespace klms::provider
