// decode_private_key on arbitrary input: never reads past it; what it accepts is a generation-valid
// parameter list (check_generation_levels), an absolute state-file path without NUL or characters
// that could forge printed lines (check_state_path), and an encoding
// that encode_private_key reproduces byte for byte (one canonical encoding per key).
#include <memory>

#include "lms/private_key.h"
#include "state/store.h"
#include "test/fuzz/fuzz_util.h"

using klms::ByteView;
using klms::Error;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::unique_ptr<std::uint8_t[]> copy(size ? new std::uint8_t[size] : nullptr);
  if (size) std::memcpy(copy.get(), data, size);
  const ByteView in(copy.get(), size);

  auto key = klms::lms::decode_private_key(in);
  if (!key) {
    const Error e = key.error();
    FUZZ_CHECK(e == Error::kMalformedPrivateKey || e == Error::kUnknownLmsType || e == Error::kUnknownOtsType ||
               e == Error::kParameterMismatch || e == Error::kBadLevels || e == Error::kStatePathInvalid);
    return 0;
  }
  FUZZ_CHECK(klms::lms::check_generation_levels(key->levels) == Error::kOk);
  FUZZ_CHECK(!key->state_file.empty() && key->state_file.front() == '/');
  FUZZ_CHECK(key->state_file.find('\0') == std::string::npos);
  // Nothing in an accepted path can start a line or reorder text when pkey -text prints it.
  FUZZ_CHECK(klms::state::check_state_path(key->state_file) != Error::kStatePathInvalid);
  FUZZ_CHECK(key->state_file.size() <= klms::lms::kMaxStatePathBytes);
  FUZZ_CHECK(key->seed_bytes() == key->levels.front().lms->m);

  const klms::lms::SecretBytes encoded = klms::lms::encode_private_key(*key);
  FUZZ_CHECK(klms::fuzz::same_bytes(ByteView(encoded.data(), encoded.size()), in));

  auto again = klms::lms::decode_private_key(ByteView(encoded.data(), encoded.size()));
  FUZZ_CHECK(again);
  FUZZ_CHECK(again->levels.size() == key->levels.size());
  for (std::size_t i = 0; i < key->levels.size(); ++i) {
    FUZZ_CHECK(again->levels[i].lms == key->levels[i].lms && again->levels[i].ots == key->levels[i].ots);
  }
  FUZZ_CHECK(std::memcmp(again->seed.data(), key->seed.data(), key->seed_bytes()) == 0);
  FUZZ_CHECK(again->identifier == key->identifier && again->seeded == key->seeded &&
             again->state_file == key->state_file);
  return 0;
}
