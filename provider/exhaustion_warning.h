// The one line signing writes on stderr unasked: the key is within twice its exhaustion threshold,
// and how many signatures are left before signing stops (docs/state.md §5; the README's "State
// file"), so that a pipeline sees the stop coming. low_signatures_warning = 0 turns it off with the
// stop itself.
#pragma once

#include "state/store.h"

namespace klms::provider {

// For state::StateOptions::low_signatures_notice: writes the line (one write, so that lines of two
// threads never mix).
void write_exhaustion_warning(const state::LowSignaturesNotice& notice) noexcept;

}  // namespace klms::provider
