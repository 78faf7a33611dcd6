// base/endian.h: the byte order of every helper against bytes written out by hand.
#include "base/endian.h"

#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

namespace klms {
namespace {

constexpr std::uint8_t kBytes[9] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09};

TEST(Endian, BigEndianLoads) {
  EXPECT_EQ(endian::load_be16(kBytes), 0x0102u);
  EXPECT_EQ(endian::load_be32(kBytes), 0x01020304u);
  EXPECT_EQ(endian::load_be64(kBytes), 0x0102030405060708u);
  EXPECT_EQ(endian::load_be32(kBytes + 1), 0x02030405u);  // unaligned
}

TEST(Endian, LittleEndianLoads) {
  EXPECT_EQ(endian::load_le32(kBytes), 0x04030201u);
  EXPECT_EQ(endian::load_le64(kBytes), 0x0807060504030201u);
  EXPECT_EQ(endian::load_le64(kBytes + 1), 0x0908070605040302u);  // unaligned
}

TEST(Endian, StoresWriteExactlyTheirBytes) {
  std::uint8_t out[10];
  auto fresh = [&] {
    for (auto& b : out) b = 0xEE;
  };
  fresh();
  endian::store_be16(out + 1, 0x0102);
  EXPECT_EQ(out[0], 0xEE);
  EXPECT_EQ(out[1], 0x01);
  EXPECT_EQ(out[2], 0x02);
  EXPECT_EQ(out[3], 0xEE);
  fresh();
  endian::store_be32(out + 1, 0x01020304u);
  EXPECT_EQ(0, std::memcmp(out + 1, kBytes, 4));
  EXPECT_EQ(out[5], 0xEE);
  fresh();
  endian::store_be64(out + 1, 0x0102030405060708u);
  EXPECT_EQ(0, std::memcmp(out + 1, kBytes, 8));
  EXPECT_EQ(out[0], 0xEE);
  EXPECT_EQ(out[9], 0xEE);
  fresh();
  endian::store_le32(out + 1, 0x04030201u);
  EXPECT_EQ(0, std::memcmp(out + 1, kBytes, 4));
  fresh();
  endian::store_le64(out + 1, 0x0807060504030201u);
  EXPECT_EQ(0, std::memcmp(out + 1, kBytes, 8));
  EXPECT_EQ(out[9], 0xEE);
}

}  // namespace
}  // namespace klms
