#include "state/witness_module.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <mutex>

#include "klms/klms.h"

#ifndef KLMS_WITNESS_INSTALL_DIR
#define KLMS_WITNESS_INSTALL_DIR "/usr/lib/klms"
#endif

namespace klms::state {
namespace {

std::mutex& settings_mutex() {
  static std::mutex m;
  return m;
}
std::string& configured_dir() {
  static std::string dir;
  return dir;
}
std::string& last_failure() {
  static std::string text;
  return text;
}

std::string real_path(const char* path) {
  char resolved[PATH_MAX];
  return path != nullptr && ::realpath(path, resolved) != nullptr ? std::string(resolved) : std::string();
}

std::string parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? std::string() : path.substr(0, slash);
}

// The file this code was loaded from: klms.so, or the program itself (whose link map has no name).
std::string own_object() {
  Dl_info info{};
  link_map* map = nullptr;
  if (::dladdr1(reinterpret_cast<void*>(&own_object), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0) {
    return {};
  }
  if (map == nullptr || map->l_name == nullptr || map->l_name[0] == '\0') return real_path("/proc/self/exe");
  return real_path(map->l_name);
}

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

void configure_witness_dir(const char* dir) noexcept {
  try {
    const std::lock_guard<std::mutex> lock(settings_mutex());
    configured_dir() = dir != nullptr ? dir : "";
  } catch (...) {
  }
}

std::vector<std::string> witness_module_paths(const char* file, bool& chosen) {
  const std::string name = std::string("/") + file;
  chosen = true;
  if (const char* env = std::getenv(KLMS_ENV_WITNESS_DIR); env != nullptr && *env != '\0') return {env + name};
  {
    const std::lock_guard<std::mutex> lock(settings_mutex());
    if (!configured_dir().empty()) return {configured_dir() + name};
  }
  chosen = false;
  std::vector<std::string> paths;
  const std::string object = own_object();
  const std::string here = parent_of(object);
  if (!here.empty()) paths.push_back(here + name);
#ifdef KLMS_BUILD_TREE_DIR
  // The build tree's modules only for an object of that build tree (build/<preset>/provider/klms.so,
  // build/<preset>/tools/klms-state).
  if (const std::string tree = real_path(KLMS_BUILD_TREE_DIR);
      !tree.empty() && object.compare(0, tree.size() + 1, tree + "/") == 0) {
    if (const std::string built = real_path(KLMS_WITNESS_BUILD_DIR); !built.empty()) paths.push_back(built + name);
  }
#endif
  paths.push_back(KLMS_WITNESS_INSTALL_DIR + name);
  return paths;
}

const void* open_witness_module(const char* file, const char* entry, std::uint32_t abi_version, const char* what,
                                const char* package, std::string& error) noexcept {
  try {
    bool chosen = false;
    const std::vector<std::string> paths = witness_module_paths(file, chosen);
    const bool by_variable = chosen && std::getenv(KLMS_ENV_WITNESS_DIR) != nullptr;
    // The first that exists; none: the last (the installed one), for dlerror()'s words.
    std::string path = paths.back();
    for (const std::string& p : paths) {
      if (is_file(p)) {
        path = p;
        break;
      }
    }
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      // dlerror() names the path itself when the file is missing or not a shared object.
      const char* said = ::dlerror();
      const std::string why = said != nullptr ? said : "?";
      error = std::string("cannot load the ") + what + " module: " +
              (why.find(path) == std::string::npos ? path + ": " + why : why);
      if (chosen) {
        error += by_variable ? " (KLMS_WITNESS_DIR names its directory)" : " (witness_dir names its directory)";
      } else {
        error += std::string(" (looked in");
        for (std::size_t i = 0; i < paths.size(); ++i) error += (i == 0 ? " " : ", ") + parent_of(paths[i]);
        error += std::string("; install the ") + package + " package, or name its directory with KLMS_WITNESS_DIR)";
      }
    } else {
      using EntryFn = const void* (*)();
      auto fn = reinterpret_cast<EntryFn>(::dlsym(handle, entry));
      const void* api = fn != nullptr ? fn() : nullptr;
      // Every module's table starts with its uint32_t ABI version (state/witness_module_abi.h).
      if (api != nullptr && *static_cast<const std::uint32_t*>(api) == abi_version) return api;
      error = path + " is not a " + what + " module of this version (no " + entry + " of ABI version " +
              std::to_string(abi_version) + ")";
    }
    const std::lock_guard<std::mutex> lock(settings_mutex());
    last_failure() = error;
    return nullptr;
  } catch (...) {
    error = std::string("out of memory loading the ") + what + " module";
    return nullptr;
  }
}

std::string last_witness_module_error() {
  const std::lock_guard<std::mutex> lock(settings_mutex());
  return last_failure();
}

}  // namespace klms::state
