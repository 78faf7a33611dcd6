#include "stateful/state_location.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "base/path.h"
#include "klms/klms.h"

namespace klms::stateful {
namespace {

bool make_private_directory(const std::string& dir) {
  // mkdir -p with 0700 for the parts we create; existing parts are left as they are.
  for (std::size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    const std::string part = dir.substr(0, pos);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string default_state_directory(const Configuration& config) {
  std::string dir;
  if (const char* env = std::getenv(KLMS_ENV_STATE_DIR); env != nullptr && *env != '\0') {
    dir = env;
  } else if (!config.state_dir.empty()) {
    dir = config.state_dir;
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

bool names_a_file(const std::string& path) noexcept { return !path.empty() && path.back() != '/'; }

Result<std::string> requested_state_file(const std::string& requested) {
  if (!names_a_file(requested)) return Error::kStatePathInvalid;
  return klms::absolute_path(requested);
}

std::string state_file_in(const std::string& directory, ByteView identifier) {
  static const char* digits = "0123456789abcdef";
  std::string name = directory + "/";
  for (const std::uint8_t b : identifier) {
    name.push_back(digits[b >> 4]);
    name.push_back(digits[b & 15]);
  }
  return name + ".state";
}

std::optional<state::WitnessKind> witness_named(std::string_view name) noexcept {
  if (name == "tpm") return state::WitnessKind::kTpm;
  if (name == "etcd") return state::WitnessKind::kEtcd;
  if (name == "none") return state::WitnessKind::kNone;
  return std::nullopt;
}

state::StateOptions key_state_options(const Configuration& config, std::optional<state::WitnessKind> witness) {
  state::StateOptions options = state_options(config);
  options.witness = witness.value_or(config.witness);
  return options;
}

}  // namespace klms::stateful
