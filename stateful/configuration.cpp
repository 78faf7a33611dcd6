#include "stateful/configuration.h"

namespace klms::stateful {

state::StateOptions state_options(const Configuration& config) noexcept {
  state::StateOptions options;
  options.allow_network_fs = config.allow_network_fs;
  options.witness_config = config.witness_config;
  options.allow_no_file_handles = config.allow_no_file_handles;
  options.low_signatures_warning = config.low_signatures_warning;  // recorded by key generation only
  return options;
}

}  // namespace klms::stateful
