// `klms-state lease` carries the parent's top-tree cache (docs/design.md "The tree cache file") to
// the new lease, so that the lease's host never rebuilds the key's top tree (minutes for H25).
// The cache holds no index and is authenticated by the key itself (its header's MAC and every
// path's root check), so a copy is as good as the original for any state file of the same key.
#pragma once

#include <string>

namespace klms::tools {

// Copies `<parent>.cache` to `<lease>.cache` (a temporary file, fsync'd, renamed into place; never
// over an existing file). Returns an empty string when done, else why not (the parent has no cache,
// a write failed): the lease works without it, its first signature builds the tree.
std::string copy_tree_cache(const std::string& parent_state, const std::string& lease_state);

}  // namespace klms::tools
