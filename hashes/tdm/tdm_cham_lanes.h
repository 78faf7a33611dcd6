// CHAM-128/256 key schedule and encryption on registers of lanes (one block per 32-bit lane), and the
// Tandem-DM compression built on them. Generic over the lane Ops (tdm_simd_avx2.h, tdm_simd_avx512.h);
// only included from files compiled for those instruction sets.
#pragma once

#include <cstdint>

namespace klms::hashes::tdm::simd {

template <class Ops>
struct ChamLanes {
  using Vec = typename Ops::Vec;

  static void expand_key(const Vec key[8], Vec rk[16]) noexcept {
    for (int i = 0; i < 8; ++i) {
      const Vec k = Ops::bxor(key[i], Ops::template rotl<1>(key[i]));
      rk[i] = Ops::bxor(k, Ops::template rotl<8>(key[i]));
      rk[(i + 8) ^ 1] = Ops::bxor(k, Ops::template rotl<11>(key[i]));
    }
  }

  // Round r: rotl((X0 ^ r) + (rotl(X1, a) ^ RK[r mod 16]), b), (a, b) = (1, 8) even r, (8, 1) odd r.
  template <bool kEven>
  static Vec round(Vec x0, Vec x1, Vec rk, std::uint32_t r) noexcept {
    const Vec left = Ops::bxor(x0, Ops::set1(r));
    if constexpr (kEven) {
      return Ops::template rotl<8>(Ops::add(left, Ops::bxor(Ops::template rotl<1>(x1), rk)));
    } else {
      return Ops::template rotl<1>(Ops::add(left, Ops::bxor(Ops::template rotl<8>(x1), rk)));
    }
  }

  static void encrypt(const Vec rk[16], Vec x[4]) noexcept {
    Vec x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
    for (std::uint32_t r = 0; r < 120; r += 8) {
      const Vec* k = rk + (r & 15);
      x0 = round<true>(x0, x1, k[0], r);
      x1 = round<false>(x1, x2, k[1], r + 1);
      x2 = round<true>(x2, x3, k[2], r + 2);
      x3 = round<false>(x3, x0, k[3], r + 3);
      x0 = round<true>(x0, x1, k[4], r + 4);
      x1 = round<false>(x1, x2, k[5], r + 5);
      x2 = round<true>(x2, x3, k[6], r + 6);
      x3 = round<false>(x3, x0, k[7], r + 7);
    }
    x[0] = x0;
    x[1] = x1;
    x[2] = x2;
    x[3] = x3;
  }

  static void compress(Vec g[4], Vec h[4], const Vec m[4]) noexcept {
    Vec key[8], rk[16], w[4], v[4];
    for (int i = 0; i < 4; ++i) {
      key[i] = h[i];
      key[4 + i] = m[i];
      w[i] = g[i];
    }
    expand_key(key, rk);
    encrypt(rk, w);
    for (int i = 0; i < 4; ++i) {
      key[i] = m[i];
      key[4 + i] = w[i];
      v[i] = h[i];
    }
    expand_key(key, rk);
    encrypt(rk, v);
    for (int i = 0; i < 4; ++i) {
      g[i] = Ops::bxor(g[i], w[i]);
      h[i] = Ops::bxor(h[i], v[i]);
    }
  }
};

}  // namespace klms::hashes::tdm::simd
