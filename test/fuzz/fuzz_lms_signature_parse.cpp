// parse_lms_signature_prefix on arbitrary input: never reads past it, consumes exactly one LMS
// signature of the parsed parameter sets (u32 q | LM-OTS signature | u32 type | path), with q < 2^h
// and views inside the input; parsing the consumed prefix again gives the same result, and any
// shorter prefix is refused. The input is copied into an allocation of its exact size.
#include <memory>

#include "lms/wire_format.h"
#include "test/fuzz/fuzz_util.h"

using klms::fuzz::within;
using klms::ByteView;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::unique_ptr<std::uint8_t[]> copy(size ? new std::uint8_t[size] : nullptr);
  if (size) std::memcpy(copy.get(), data, size);
  const ByteView in(copy.get(), size);

  std::size_t consumed = 0;
  auto sig = klms::lms::parse_lms_signature_prefix(in, consumed);
  if (!sig) {
    const auto e = sig.error();
    FUZZ_CHECK(e == klms::Error::kMalformedSignature || e == klms::Error::kUnknownLmsType ||
               e == klms::Error::kUnknownOtsType || e == klms::Error::kParameterMismatch);
    return 0;
  }
  FUZZ_CHECK(consumed <= size);
  const auto& lms = *sig->params.lms;
  const auto& ots = *sig->params.ots;
  FUZZ_CHECK(klms::lms::compatible(lms, ots));
  FUZZ_CHECK(consumed == sig->params.signature_bytes());
  FUZZ_CHECK(sig->q < lms.leaves());
  FUZZ_CHECK(sig->q == klms::get_u32(in.data()));
  FUZZ_CHECK(klms::get_u32(in.data() + 4) == ots.code);
  FUZZ_CHECK(klms::get_u32(in.data() + 8 + ots.n + std::size_t{ots.p} * ots.n) == lms.code);
  FUZZ_CHECK(sig->randomizer.size() == ots.n && sig->randomizer.data() == in.data() + 8);
  FUZZ_CHECK(sig->chains.size() == std::size_t{ots.p} * ots.n && sig->chains.data() == in.data() + 8 + ots.n);
  FUZZ_CHECK(sig->path.size() == std::size_t{lms.h} * lms.m);
  FUZZ_CHECK(sig->path.data() + sig->path.size() == in.data() + consumed);
  FUZZ_CHECK(within(sig->randomizer, in) && within(sig->chains, in) && within(sig->path, in));

  // The consumed prefix alone parses to the same thing.
  std::size_t again_consumed = 0;
  auto again = klms::lms::parse_lms_signature_prefix(in.first(consumed), again_consumed);
  FUZZ_CHECK(again);
  FUZZ_CHECK(again_consumed == consumed && again->q == sig->q && again->params.lms == sig->params.lms &&
             again->params.ots == sig->params.ots && again->randomizer.data() == sig->randomizer.data() &&
             again->chains.data() == sig->chains.data() && again->path.data() == sig->path.data());

  // One byte short is never a signature (strict lengths).
  std::size_t short_consumed = 0;
  FUZZ_CHECK(!klms::lms::parse_lms_signature_prefix(in.first(consumed - 1), short_consumed));
  return 0;
}
