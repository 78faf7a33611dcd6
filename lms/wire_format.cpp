#include "lms/wire_format.h"

#include <cstring>

namespace klms::lms {

// ---- LMS public key (§5.3) ----

Result<LmsPublicKeyView> parse_lms_public_key_prefix(ByteView in, std::size_t& consumed) noexcept {
  Reader r(in);
  std::uint32_t lms_code = 0, ots_code = 0;
  if (!r.take_u32(lms_code) || !r.take_u32(ots_code)) return Error::kMalformedPublicKey;
  const LmsParams* lms = find_lms(lms_code);
  if (lms == nullptr) return Error::kUnknownLmsType;
  const OtsParams* ots = find_ots(ots_code);
  if (ots == nullptr) return Error::kUnknownOtsType;
  if (!compatible(*lms, *ots)) return Error::kParameterMismatch;
  LmsPublicKeyView key;
  key.params = {lms, ots};
  if (!r.take(kIdentifierBytes, key.identifier) || !r.take(lms->m, key.root)) return Error::kMalformedPublicKey;
  consumed = in.size() - r.remaining();
  key.encoded = in.first(consumed);
  return key;
}

Result<LmsPublicKeyView> parse_lms_public_key(ByteView in) noexcept {
  std::size_t consumed = 0;
  auto key = parse_lms_public_key_prefix(in, consumed);
  if (key && consumed != in.size()) return Error::kMalformedPublicKey;
  return key;
}

void write_lms_public_key(const LevelParams& params, const std::uint8_t* identifier, const std::uint8_t* root,
                          std::uint8_t* out) noexcept {
  put_u32(out, params.lms->code);
  put_u32(out + 4, params.ots->code);
  std::memcpy(out + 8, identifier, kIdentifierBytes);
  std::memcpy(out + 8 + kIdentifierBytes, root, params.lms->m);
}

// ---- LMS signature (§5.4) ----

Result<LmsSignatureView> parse_lms_signature_prefix(ByteView in, std::size_t& consumed) noexcept {
  Reader r(in);
  LmsSignatureView sig;
  std::uint32_t ots_code = 0, lms_code = 0;
  if (!r.take_u32(sig.q) || !r.take_u32(ots_code)) return Error::kMalformedSignature;
  const OtsParams* ots = find_ots(ots_code);
  if (ots == nullptr) return Error::kUnknownOtsType;
  if (!r.take(ots->n, sig.randomizer) || !r.take(std::size_t{ots->p} * ots->n, sig.chains)) {
    return Error::kMalformedSignature;
  }
  if (!r.take_u32(lms_code)) return Error::kMalformedSignature;
  const LmsParams* lms = find_lms(lms_code);
  if (lms == nullptr) return Error::kUnknownLmsType;
  if (!compatible(*lms, *ots)) return Error::kParameterMismatch;
  if (sig.q >= lms->leaves()) return Error::kMalformedSignature;
  if (!r.take(std::size_t{lms->h} * lms->m, sig.path)) return Error::kMalformedSignature;
  sig.params = {lms, ots};
  consumed = in.size() - r.remaining();
  return sig;
}

LmsSignatureSlots write_lms_signature_frame(const LevelParams& params, std::uint32_t q, std::uint8_t* out) noexcept {
  const OtsParams& ots = *params.ots;
  LmsSignatureSlots slots{};
  put_u32(out, q);
  put_u32(out + 4, ots.code);
  slots.randomizer = out + 8;
  slots.chains = slots.randomizer + ots.n;
  std::uint8_t* lms_type = slots.chains + std::size_t{ots.p} * ots.n;
  put_u32(lms_type, params.lms->code);
  slots.path = lms_type + 4;
  return slots;
}

// ---- HSS public key (§6.1) ----

std::size_t hss_public_key_bytes(const LevelParams& top) noexcept { return 4 + top.public_key_bytes(); }

Result<HssPublicKeyView> parse_hss_public_key(ByteView in) noexcept {
  Reader r(in);
  std::uint32_t levels = 0;
  if (!r.take_u32(levels)) return Error::kMalformedPublicKey;
  if (levels < 1 || levels > kMaxLevels) return Error::kBadLevels;
  auto top = parse_lms_public_key(r.rest());
  if (!top) return top.error();
  return HssPublicKeyView{levels, *top};
}

Bytes encode_hss_public_key(std::uint32_t levels, const LevelParams& top, const std::uint8_t* identifier,
                            const std::uint8_t* root) {
  Bytes out(hss_public_key_bytes(top));
  put_u32(out.data(), levels);
  write_lms_public_key(top, identifier, root, out.data() + 4);
  return out;
}

// ---- HSS signature (§6.2) ----

std::size_t hss_signature_bytes(std::span<const LevelParams> levels) noexcept {
  std::size_t total = 4;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    total += levels[i].signature_bytes();
    if (i + 1 < levels.size()) total += levels[i + 1].public_key_bytes();
  }
  return total;
}

Error parse_hss_signature(ByteView public_key, ByteView signature, HssSignatureParts& out) noexcept {
  auto key = parse_hss_public_key(public_key);
  if (!key) return key.error();
  Reader r(signature);
  std::uint32_t signed_keys = 0;
  if (!r.take_u32(signed_keys)) return Error::kMalformedSignature;
  if (signed_keys + std::uint64_t{1} != key->levels) return Error::kMalformedSignature;

  // Parse everything first, so a malformed signature is reported as such whatever it holds.
  out.levels = key->levels;
  out.keys[0] = key->top;
  ByteView rest = r.rest();
  for (std::uint32_t level = 0; level < key->levels; ++level) {
    std::size_t used = 0;
    auto sig = parse_lms_signature_prefix(rest, used);
    if (!sig) return sig.error();
    out.sigs[level] = *sig;
    rest = rest.subspan(used);
    if (level + 1 < key->levels) {
      auto child = parse_lms_public_key_prefix(rest, used);
      if (!child) return child.error() == Error::kMalformedPublicKey ? Error::kMalformedSignature : child.error();
      out.keys[level + 1] = *child;
      rest = rest.subspan(used);
    }
  }
  if (!rest.empty()) return Error::kMalformedSignature;
  return Error::kOk;
}

Result<std::span<std::uint8_t>> write_hss_signature_head(std::span<const SignedPublicKey> signed_keys,
                                                         std::span<std::uint8_t> out) noexcept {
  if (out.size() < 4) return Error::kInternal;
  put_u32(out.data(), static_cast<std::uint32_t>(signed_keys.size()));
  out = out.subspan(4);
  for (const SignedPublicKey& level : signed_keys) {
    for (const ByteView part : {level.signature, level.public_key}) {
      if (out.size() < part.size()) return Error::kInternal;
      if (!part.empty()) std::memcpy(out.data(), part.data(), part.size());
      out = out.subspan(part.size());
    }
  }
  return out;
}

}  // namespace klms::lms
