// Finds and opens a witness module (docs/install.md "Witness modules"); dlopen'ed once, on first
// use, and never unloaded (threads of an abandoned call may still run in it). Shared by the TPM and
// the etcd witness.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace klms::state {

// The `witness_dir` configuration key (the provider's): where modules are when $KLMS_WITNESS_DIR
// is not set. Process-wide, like the modules themselves; an empty `dir` unsets it.
void configure_witness_dir(const char* dir) noexcept;

// Where `file` is looked for, in order (docs/install.md "Witness modules"):
//   $KLMS_WITNESS_DIR, else the `witness_dir` key: that directory alone (the user chose it);
//   else the directory of the object this code is linked into (klms.so, or the klms-state program),
//   then the build tree's witness/ directory when that object lies in the build tree it was built
//   in (never otherwise: a directory named at build time may not exist, or not be safe, on the
//   host that runs the module), then the directory it is installed to.
// `chosen` tells whether the first entry was named by the user.
std::vector<std::string> witness_module_paths(const char* file, bool& chosen);

// The entry point's table, or null with `error` saying why: the path tried and dlerror()'s words
// (and which package to install). The table's first member is its ABI version, checked against
// `abi_version`. A failure is also kept for last_witness_module_error().
const void* open_witness_module(const char* file, const char* entry, std::uint32_t abi_version, const char* what,
                                const char* package, std::string& error) noexcept;

// Why the last module that failed to load did not (empty when none failed): what the errors about
// kWitnessModuleMissing carry (state/remedy.h).
std::string last_witness_module_error();

}  // namespace klms::state
