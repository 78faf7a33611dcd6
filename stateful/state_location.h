// Where a new key's state file goes (docs/state.md "Where the state lives") and which witness it
// gets: the policy key generation follows for every scheme and every front door.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/bytes.h"
#include "base/error.h"
#include "state/store.h"
#include "state/witness.h"
#include "stateful/configuration.h"

namespace klms::stateful {

// The state directory from KLMS_STATE_DIR, the configuration's state_dir, $XDG_STATE_HOME/klms or
// ~/.local/state/klms, made absolute; created 0700 when missing. Empty when none works.
std::string default_state_directory(const Configuration& config);

// False for "" and a path ending in '/': no file name in it.
bool names_a_file(const std::string& path) noexcept;

// A state file named by the user (-pkeyopt state-file, a token's key path), made absolute:
// kStatePathInvalid when it names no file (names_a_file), else what absolute_path says.
Result<std::string> requested_state_file(const std::string& requested);

// `<directory>/<identifier in hex>.state`: a new key's state file when none is named.
std::string state_file_in(const std::string& directory, ByteView identifier);

// "tpm", "etcd", "none": the witness a key generation asks for; nullopt for any other name.
std::optional<state::WitnessKind> witness_named(std::string_view name) noexcept;

// The options a new key's state file is created with: the configuration's, with its default
// witness unless `witness` chooses one.
state::StateOptions key_state_options(const Configuration& config, std::optional<state::WitnessKind> witness);

}  // namespace klms::stateful
