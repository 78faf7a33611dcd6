// The public-key parsers on arbitrary input: parse_lms_public_key_prefix, parse_lms_public_key and
// parse_hss_public_key. Never read past the input; the prefix parser consumes exactly
// u32 type | u32 otstype | I | T[1] of the parsed sets; the exact parsers accept exactly when the
// prefix parser consumes everything; the HSS parser takes u32(L) with 1 <= L <= 8 in front of an
// exact LMS key. Views lie inside the input; re-parsing the consumed prefix gives the same key.
#include <memory>

#include "lms/wire_format.h"
#include "test/fuzz/fuzz_util.h"

using klms::fuzz::within;
using klms::ByteView;
using klms::Error;

namespace {

bool parse_error(Error e) {
  return e == Error::kMalformedPublicKey || e == Error::kUnknownLmsType || e == Error::kUnknownOtsType ||
         e == Error::kParameterMismatch;
}

void check_lms_key(const klms::lms::LmsPublicKeyView& key, ByteView in, std::size_t consumed) {
  FUZZ_CHECK(key.params.lms != nullptr && key.params.ots != nullptr);
  FUZZ_CHECK(klms::lms::compatible(*key.params.lms, *key.params.ots));
  FUZZ_CHECK(consumed == key.params.public_key_bytes());
  FUZZ_CHECK(consumed <= in.size());
  FUZZ_CHECK(klms::get_u32(in.data()) == key.params.lms->code);
  FUZZ_CHECK(klms::get_u32(in.data() + 4) == key.params.ots->code);
  FUZZ_CHECK(key.identifier.data() == in.data() + 8 && key.identifier.size() == klms::lms::kIdentifierBytes);
  FUZZ_CHECK(key.root.data() == in.data() + 24 && key.root.size() == key.params.lms->m);
  FUZZ_CHECK(key.encoded.data() == in.data() && key.encoded.size() == consumed);
  FUZZ_CHECK(within(key.identifier, in) && within(key.root, in) && within(key.encoded, in));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::unique_ptr<std::uint8_t[]> copy(size ? new std::uint8_t[size] : nullptr);
  if (size) std::memcpy(copy.get(), data, size);
  const ByteView in(copy.get(), size);

  std::size_t consumed = 0;
  auto prefix = klms::lms::parse_lms_public_key_prefix(in, consumed);
  auto exact = klms::lms::parse_lms_public_key(in);
  if (prefix) {
    check_lms_key(*prefix, in, consumed);
    std::size_t again_consumed = 0;
    auto again = klms::lms::parse_lms_public_key_prefix(in.first(consumed), again_consumed);
    FUZZ_CHECK(again && again_consumed == consumed);
    FUZZ_CHECK(again->params.lms == prefix->params.lms && again->params.ots == prefix->params.ots &&
               again->root.data() == prefix->root.data() && again->encoded.data() == prefix->encoded.data());
    FUZZ_CHECK(klms::lms::parse_lms_public_key(in.first(consumed)));
    std::size_t short_consumed = 0;
    FUZZ_CHECK(!klms::lms::parse_lms_public_key_prefix(in.first(consumed - 1), short_consumed));
    FUZZ_CHECK(exact.ok() == (consumed == size));
  } else {
    FUZZ_CHECK(parse_error(prefix.error()));
    FUZZ_CHECK(!exact && exact.error() == prefix.error());
  }
  if (exact) check_lms_key(*exact, in, size);

  auto hss = klms::lms::parse_hss_public_key(in);
  if (hss) {
    FUZZ_CHECK(hss->levels >= 1 && hss->levels <= klms::lms::kMaxLevels);
    FUZZ_CHECK(hss->levels == klms::get_u32(in.data()));
    FUZZ_CHECK(size == klms::lms::hss_public_key_bytes(hss->top.params));
    check_lms_key(hss->top, in.subspan(4), size - 4);
  } else {
    FUZZ_CHECK(parse_error(hss.error()) || hss.error() == Error::kBadLevels);
    if (size >= 4) {
      const std::uint32_t levels = klms::get_u32(in.data());
      if (levels >= 1 && levels <= klms::lms::kMaxLevels) FUZZ_CHECK(!klms::lms::parse_lms_public_key(in.subspan(4)));
    }
  }
  return 0;
}
