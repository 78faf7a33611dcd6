// No piece of SEED is left in a vector register after the engine copied SEED into a tree key or
// hashed it (hashes::wipe_vector_registers; docs/threat-model.md "Secrets in memory"). The whole
// register file is read with XSAVE — the image the lazy-binding resolver or a signal frame writes to
// a stack — and searched for any 16-byte piece.
// (In the asan build memcpy is glibc's, which leaves SEED in registers; in the release build the
// compiler copies a tree key's SEED with rep movs, and the PRF cases are the ones that can fail.)
#include <gtest/gtest.h>

#include <cstring>

#include "lms/tree_key.h"
#include "test/unit/lms/lms_test_util.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace klms::lms {
namespace {

#if defined(__x86_64__)
constexpr std::size_t kPiece = 16;
alignas(64) std::uint8_t g_area[64 * 1024];  // an XSAVE image (a few KiB with AVX-512)

bool xsave_usable() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & bit_OSXSAVE) == 0) return false;
  return __get_cpuid_count(0xD, 0, &a, &b, &c, &d) != 0 && b <= sizeof g_area;  // b: bytes for XCR0's state
}

[[gnu::noinline]] void xsave_now() {
  asm volatile("xsave (%0)" : : "r"(g_area), "a"(0xffffffffu), "d"(0xffffffffu) : "memory");
}

// Pieces of seed[0..m) (at every 8th offset) anywhere in the image.
std::size_t pieces_in_registers(const std::uint8_t* seed, std::size_t m) {
  std::size_t found = 0;
  for (std::size_t i = 0; i + kPiece <= sizeof g_area; ++i) {
    for (std::size_t off = 0; off + kPiece <= m; off += 8) {
      if (std::memcmp(g_area + i, seed + off, kPiece) == 0) ++found;
    }
  }
  return found;
}

// SEED as the tests hold it: never copied with memcpy, so only the code under test puts it in a register.
struct Seed {
  std::uint8_t bytes[32];
  Seed() {
    for (unsigned i = 0; i < 32; ++i) {
      std::uint8_t b = static_cast<std::uint8_t>(0x5e ^ (i * 37 + 11));
      asm volatile("" : "+r"(b));
      bytes[i] = b;
    }
  }
};

// (The key is made in place and copied only after the image is taken.)
[[gnu::noinline]] TreeKey make_key_then_xsave(const LevelParams& level, const std::uint8_t* seed) {
  TreeKey key = make_tree_key(level, Identifier{}, seed, nullptr);
  xsave_now();
  return key;
}

[[gnu::noinline]] void prf_then_xsave(const TreeKey& key, std::uint8_t* out32) {
  key.prf(7, 3, out32);
  xsave_now();
}

class SeedRegisters : public ::testing::TestWithParam<std::pair<std::uint32_t, std::uint32_t>> {
 protected:
  void SetUp() override {
    if (!xsave_usable()) GTEST_SKIP() << "no XSAVE enabled by the OS";
  }
};

TEST_P(SeedRegisters, NoneAfterTreeKeyOrPrf) {
  const auto levels = test::levels_from_codes({GetParam()});
  const std::size_t m = levels[0].lms->m;
  const Seed seed;
  std::memset(g_area, 0, sizeof g_area);
  const TreeKey key = make_key_then_xsave(levels[0], seed.bytes);
  EXPECT_EQ(pieces_in_registers(seed.bytes, m), 0u) << "after make_tree_key (memcpy of SEED)";
  std::memset(g_area, 0, sizeof g_area);
  std::uint8_t x[32];
  prf_then_xsave(key, x);
  EXPECT_EQ(pieces_in_registers(seed.bytes, m), 0u) << "after a PRF over SEED";
}

// One set per hash family and both n (each family has its own backend and copies).
INSTANTIATE_TEST_SUITE_P(Families, SeedRegisters,
                         ::testing::Values(std::pair{0x05u, 0x03u}, std::pair{0x0Au, 0x07u}, std::pair{0x0Fu, 0x0Bu},
                                           std::pair{0xE0000100u, 0xE0000102u}, std::pair{0xE0000110u, 0xE0000112u},
                                           std::pair{0xE0000200u, 0xE0000202u}, std::pair{0xE0000300u, 0xE0000302u},
                                           std::pair{0xE0000400u, 0xE0000402u}));

// The probe must be able to fail: a SEED copied by memcpy and left alone is found in the registers.
[[gnu::noinline]] void memcpy_then_xsave(std::uint8_t* to, const std::uint8_t* from, std::size_t n) {
  std::memcpy(to, from, n);
  xsave_now();
}

TEST(SeedRegistersProbe, FindsSeedLeftByMemcpy) {
  if (!xsave_usable()) GTEST_SKIP() << "no XSAVE enabled by the OS";
  const Seed seed;
  std::uint8_t copy[32];
  std::memset(g_area, 0, sizeof g_area);
  volatile std::size_t n = 32;  // a length the compiler does not know: glibc's memcpy does the copy
  memcpy_then_xsave(copy, seed.bytes, n);
  EXPECT_GE(pieces_in_registers(seed.bytes, 32), 1u);
  explicit_bzero(copy, sizeof copy);
  hashes::wipe_vector_registers();
}
#endif

}  // namespace
}  // namespace klms::lms
