#include "provider/key.h"

#include "base/path.h"
#include "provider/exhaustion_warning.h"
#include "provider/names.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

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

state::StateOptions state_options(const ProviderContext& provider) noexcept {
  state::StateOptions options;
  options.allow_network_fs = provider.config.allow_network_fs;
  options.witness_config = provider.config.witness_config;
  options.allow_no_file_handles = provider.config.allow_no_file_handles;
  options.low_signatures_warning = provider.config.low_signatures_warning;  // recorded by key generation only
  options.low_signatures_notice = &write_exhaustion_warning;
  return options;
}

}  // namespace klms::provider
