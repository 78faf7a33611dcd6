// klms-state's commands around the witness: resync, retire, backup, restore (tools/witness_commands.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "state/store.h"

namespace klms::tools {

// "1 index", "2 indices": a count with its noun.
std::string count_of(std::uint64_t n, const char* one, const char* many);

// The "witness:" lines of `klms-state show`.
std::string witness_lines(const state::StateInfo& info);

int resync_command(int argc, char** argv);
int retire_command(int argc, char** argv);
int backup_command(int argc, char** argv);
int restore_command(int argc, char** argv);

}  // namespace klms::tools
