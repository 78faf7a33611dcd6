// What one hash costs a backend at a given input length and path, measured in place: the numbers
// that turn a hash-call profile into "where the time goes" (calls x ns per call).
#pragma once

#include <cstddef>

#include "bench/study/counting_backend.h"
#include "hashes/backend.h"

namespace klms::bench {

// Median over a few timed rounds (thread CPU time) of ns per message: hash_one (each output feeds the next input, as
// along a chain or an authentication path), hash_many with `batch` messages per call, or a
// streamed hash of that total length. input_bytes includes the 16-byte I.
double ns_per_message(const hashes::Backend& backend, HashPath path, std::size_t input_bytes, std::size_t batch = 1);

}  // namespace klms::bench
