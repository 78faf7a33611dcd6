// Finds and opens a witness module (docs/state.md "The witness"): $KLMS_WITNESS_DIR, else the
// directory it was installed to; dlopen'ed once, on first use, and never unloaded (threads of an
// abandoned call may still run in it). Shared by the TPM and the etcd witness.
#pragma once

#include <cstdint>
#include <string>

namespace klms::state {

// The entry point's table, or null with `error` saying why (and which package to install). The
// table's first member is its ABI version, checked against `abi_version`.
const void* open_witness_module(const char* file, const char* entry, std::uint32_t abi_version, const char* what,
                                const char* package, std::string& error) noexcept;

}  // namespace klms::state
