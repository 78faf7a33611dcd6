// Making a file name absolute, for the state store (which reopens its file by name after a fork) and
// the provider (which records a key's state file): one rule, one failure.
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"

namespace klms {

// `path` if it starts with '/', else the current directory, '/', and `path`. Purely textual: "..",
// "." and a trailing '/' stay as they are (resolving ".." by text would be wrong past a symbolic
// link; callers that refuse a trailing '/' check it themselves). The current directory may be of any
// length. Fails with kStatePathInvalid on an empty path and when a relative path has no absolute
// form because the current directory cannot be named (deleted, or not searchable): a relative name
// kept as it is would later resolve against whatever directory the process is in then.
Result<std::string> absolute_path(std::string_view path);

}  // namespace klms
