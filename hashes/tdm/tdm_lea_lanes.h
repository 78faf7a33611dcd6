// LEA-256 (key schedule fused into the rounds) on registers of lanes, and the Tandem-DM compression
// built on it. Generic over the lane Ops; only included from files compiled for their instruction set.
#pragma once

#include <cstdint>

#include "hashes/blockcipher/lea.h"

namespace klms::hashes::tdm::simd {

template <class Ops>
struct LeaLanes {
  using Vec = typename Ops::Vec;

  // Schedule word update T = rotl(T + constant, R).
  template <int R>
  static void schedule(Vec& t, std::uint32_t constant) noexcept {
    t = Ops::template rotl<R>(Ops::add(t, Ops::set1(constant)));
  }

  static void round(Vec& x0, Vec& x1, Vec& x2, Vec& x3, Vec k0, Vec k1, Vec k2, Vec k3, Vec k4, Vec k5) noexcept {
    const Vec n0 = Ops::template rotl<9>(Ops::add(Ops::bxor(x0, k0), Ops::bxor(x1, k1)));
    const Vec n1 = Ops::template rotl<27>(Ops::add(Ops::bxor(x1, k2), Ops::bxor(x2, k3)));  // rotr 5
    const Vec n2 = Ops::template rotl<29>(Ops::add(Ops::bxor(x2, k4), Ops::bxor(x3, k5)));  // rotr 3
    x3 = x0;
    x0 = n0;
    x1 = n1;
    x2 = n2;
  }

  // Same structure as lea::encrypt256_words: four rounds per pass keep the schedule indices constant.
  static void encrypt256(const Vec key[8], Vec x[4]) noexcept {
    Vec t0 = key[0], t1 = key[1], t2 = key[2], t3 = key[3], t4 = key[4], t5 = key[5], t6 = key[6], t7 = key[7];
    Vec x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
    for (int i = 0; i < 32; i += 4) {
      const std::uint32_t* c = lea::kDelta256.data() + 6 * i;
      schedule<1>(t0, c[0]); schedule<3>(t1, c[1]); schedule<6>(t2, c[2]);
      schedule<11>(t3, c[3]); schedule<13>(t4, c[4]); schedule<17>(t5, c[5]);
      round(x0, x1, x2, x3, t0, t1, t2, t3, t4, t5);
      schedule<1>(t6, c[6]); schedule<3>(t7, c[7]); schedule<6>(t0, c[8]);
      schedule<11>(t1, c[9]); schedule<13>(t2, c[10]); schedule<17>(t3, c[11]);
      round(x0, x1, x2, x3, t6, t7, t0, t1, t2, t3);
      schedule<1>(t4, c[12]); schedule<3>(t5, c[13]); schedule<6>(t6, c[14]);
      schedule<11>(t7, c[15]); schedule<13>(t0, c[16]); schedule<17>(t1, c[17]);
      round(x0, x1, x2, x3, t4, t5, t6, t7, t0, t1);
      schedule<1>(t2, c[18]); schedule<3>(t3, c[19]); schedule<6>(t4, c[20]);
      schedule<11>(t5, c[21]); schedule<13>(t6, c[22]); schedule<17>(t7, c[23]);
      round(x0, x1, x2, x3, t2, t3, t4, t5, t6, t7);
    }
    x[0] = x0;
    x[1] = x1;
    x[2] = x2;
    x[3] = x3;
  }

  static void compress(Vec g[4], Vec h[4], const Vec m[4]) noexcept {
    Vec key[8], w[4], v[4];
    for (int i = 0; i < 4; ++i) {
      key[i] = h[i];
      key[4 + i] = m[i];
      w[i] = g[i];
    }
    encrypt256(key, w);
    for (int i = 0; i < 4; ++i) {
      key[i] = m[i];
      key[4 + i] = w[i];
      v[i] = h[i];
    }
    encrypt256(key, v);
    for (int i = 0; i < 4; ++i) {
      g[i] = Ops::bxor(g[i], w[i]);
      h[i] = Ops::bxor(h[i], v[i]);
    }
  }
};

}  // namespace klms::hashes::tdm::simd
