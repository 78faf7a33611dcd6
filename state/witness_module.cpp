#include "state/witness_module.h"

#include <dlfcn.h>

#include <cstdlib>

#ifndef KLMS_WITNESS_INSTALL_DIR
#define KLMS_WITNESS_INSTALL_DIR "/usr/lib/klms"
#endif

namespace klms::state {

const void* open_witness_module(const char* file, const char* entry, std::uint32_t abi_version, const char* what,
                                const char* package, std::string& error) noexcept {
  try {
    const char* dir = std::getenv("KLMS_WITNESS_DIR");
    const std::string path = std::string(dir != nullptr && *dir != '\0' ? dir : KLMS_WITNESS_INSTALL_DIR) + "/" + file;
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = ::dlerror();
      error = std::string("cannot load the ") + what + " module " + path + ": " + (why != nullptr ? why : "?") +
              " (install the " + package + " package)";
      return nullptr;
    }
    using EntryFn = const void* (*)();
    auto fn = reinterpret_cast<EntryFn>(::dlsym(handle, entry));
    const void* api = fn != nullptr ? fn() : nullptr;
    // Every module's table starts with its uint32_t ABI version (state/witness_module_abi.h).
    if (api == nullptr || *static_cast<const std::uint32_t*>(api) != abi_version) {
      error = path + " is not a " + what + " module of this version";
      return nullptr;
    }
    return api;
  } catch (...) {
    error = std::string("out of memory loading the ") + what + " module";
    return nullptr;
  }
}

}  // namespace klms::state
