// The three Tandem-DM cipher policies (see tdm_core.h) and their IVs from docs/tandem-dm.md "IV derivation".
// IV = LSH-256-256(label); the labels are in the spec, the values are constants here so this library
// does not depend on LSH.
#pragma once

#include <cstdint>

#include "hashes/blockcipher/aria.h"
#include "hashes/blockcipher/cham.h"
#include "hashes/blockcipher/lea.h"
#include "hashes/tdm/tdm_backend.h"

namespace klms::hashes::tdm {

// "K-LMS/TDM-CHAM-128/256/IV"
inline constexpr std::uint8_t kChamIv[32] = {
    0x49, 0x57, 0x4b, 0xcf, 0x45, 0x5c, 0x9c, 0x45, 0x81, 0x4b, 0x32, 0xdf, 0x2c, 0x99, 0x02, 0x94,
    0xc7, 0xdd, 0xe6, 0xd0, 0xf0, 0xd6, 0xfc, 0xc1, 0x23, 0x3e, 0x1b, 0xed, 0x36, 0x59, 0x7a, 0x98};
// "K-LMS/TDM-LEA-256/IV"
inline constexpr std::uint8_t kLeaIv[32] = {
    0xfc, 0x78, 0x3a, 0x07, 0xf9, 0xb9, 0x83, 0x00, 0xf1, 0xb9, 0xeb, 0xce, 0x64, 0x2e, 0x96, 0x6a,
    0x12, 0x91, 0x73, 0x53, 0x84, 0x7a, 0xcc, 0xda, 0xfc, 0x61, 0x79, 0xdf, 0x55, 0x6a, 0x81, 0x65};
// "K-LMS/TDM-ARIA-256/IV"
inline constexpr std::uint8_t kAriaIv[32] = {
    0x34, 0x4b, 0x9d, 0x32, 0xae, 0xd3, 0x26, 0xb3, 0x8c, 0x4a, 0x08, 0x15, 0xc1, 0xcb, 0xe0, 0xfc,
    0xa0, 0x87, 0xfe, 0x49, 0xe3, 0x52, 0x7b, 0x30, 0x80, 0x61, 0x57, 0x4b, 0x12, 0xd5, 0x17, 0xe3};

struct ChamCipher {
  static void encrypt(const std::uint32_t key[8], std::uint32_t x[4]) noexcept {
    std::uint32_t rk[cham::kRoundKeyWords];
    cham::expand_key_words(key, rk);
    cham::encrypt_words(rk, x);
  }
  static std::uint32_t load(const std::uint8_t* p) noexcept { return load_le32(p); }
  static void store(std::uint8_t* p, std::uint32_t v) noexcept { store_le32(p, v); }
  static constexpr ChainValue kIv = chain_from_bytes(kChamIv, false);
};

struct LeaCipher {
  static void encrypt(const std::uint32_t key[8], std::uint32_t x[4]) noexcept { lea::encrypt256_words(key, x); }
  static std::uint32_t load(const std::uint8_t* p) noexcept { return load_le32(p); }
  static void store(std::uint8_t* p, std::uint32_t v) noexcept { store_le32(p, v); }
  static constexpr ChainValue kIv = chain_from_bytes(kLeaIv, false);
};

// Several independent ARIA encryptions interleave well (hash_many), see encrypt_interleaved.
inline constexpr int kAriaInterleave = 2;

struct AriaCipher {
  static void encrypt(const std::uint32_t key[8], std::uint32_t x[4]) noexcept {
    std::uint32_t ek[aria::kMaxRounds + 1][4];
    aria::expand_key_words(key, key + 4, 16, ek);
    aria::encrypt_words(ek, 16, x);
  }
  template <int N>
  static void encrypt_interleaved(const std::uint32_t* const key[N], std::uint32_t* const x[N]) noexcept {
    aria::encrypt256_interleaved<N>(key, x);
  }
  static std::uint32_t load(const std::uint8_t* p) noexcept { return load_be32(p); }
  static void store(std::uint8_t* p, std::uint32_t v) noexcept { store_be32(p, v); }
  static constexpr ChainValue kIv = chain_from_bytes(kAriaIv, true);
};

}  // namespace klms::hashes::tdm
