// klms-evp-test: signing and verification through EVP_DigestSign/Verify (one-shot and streaming,
// a large streamed message with copies of the verify context) and EVP_PKEY_sign/verify.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/pem.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test/evp/evp_fixture.h"

namespace {

using namespace klms::evptest;

// ---- Signing and verification ----

TEST_F(EvpTest, DigestSignOneShotAndStreamingVerify) {
  Pkey k = h5_key("s.state");
  ASSERT_TRUE(k);
  const Bytes msg = bytes_of("the message itself is signed, never a digest of it");
  auto one = sign(k.get(), msg);
  ASSERT_TRUE(one) << error_text();
  EXPECT_EQ(q_of(k.get(), *one), 0u);
  EXPECT_TRUE(verify(k.get(), msg, *one));
  Bytes other = msg;
  other[0] ^= 1;
  EXPECT_FALSE(verify(k.get(), other, *one));

  auto streamed = sign_streaming(k.get(), msg, 5);
  ASSERT_TRUE(streamed) << error_text();
  EXPECT_EQ(q_of(k.get(), *streamed), 1u);
  // Streaming verification.
  Md md(EVP_MD_CTX_new());
  ASSERT_EQ(EVP_DigestVerifyInit_ex(md.get(), nullptr, nullptr, libctx, nullptr, k.get(), nullptr), 1);
  for (std::size_t off = 0; off < msg.size(); off += 11) {
    ASSERT_EQ(EVP_DigestVerifyUpdate(md.get(), msg.data() + off, std::min<std::size_t>(11, msg.size() - off)), 1);
  }
  EXPECT_EQ(EVP_DigestVerifyFinal(md.get(), streamed->data(), streamed->size()), 1);
  EXPECT_EQ(remaining(k.get()), 30u);

  // An empty message, streaming with no update at all.
  Md empty = sign_init(libctx, k.get());
  ASSERT_TRUE(empty);
  auto sig_empty = final_sign(empty.get());
  ASSERT_TRUE(sig_empty) << error_text();
  EXPECT_EQ(q_of(k.get(), *sig_empty), 2u);
  EXPECT_TRUE(verify(k.get(), Bytes(), *sig_empty));
}

// Streaming verification keeps the message in chunks that copies of the context share until one
// of them is fed more (provider/message_buffer.h): a message spanning several chunks (16 KiB,
// 32 KiB, 64 KiB, then 2 MiB), a copy made mid-way that diverges, a final (which OpenSSL runs on
// a duplicate) followed by more updates on the same context, and huge single updates.
TEST_F(EvpTest, StreamingVerifyOfALargeMessageWithCopies) {
  Pkey k = h5_key("big.state");
  ASSERT_TRUE(k);
  Bytes msg(300 * 1024 + 77);
  for (std::size_t i = 0; i < msg.size(); ++i) msg[i] = static_cast<unsigned char>(i * 131 + (i >> 9));
  auto sig = sign(k.get(), msg);
  ASSERT_TRUE(sig) << error_text();
  const std::size_t half = 100 * 1024 + 3;

  Md md(EVP_MD_CTX_new());
  ASSERT_EQ(EVP_DigestVerifyInit_ex(md.get(), nullptr, nullptr, libctx, nullptr, k.get(), nullptr), 1);
  for (std::size_t off = 0; off < half; off += 4096) {
    ASSERT_EQ(EVP_DigestVerifyUpdate(md.get(), msg.data() + off, std::min<std::size_t>(4096, half - off)), 1);
  }
  Md copy(EVP_MD_CTX_new());
  ASSERT_EQ(EVP_MD_CTX_copy_ex(copy.get(), md.get()), 1) << error_text();
  // The copy goes on with altered bytes, the original with the real ones: neither sees the other's.
  Bytes altered(msg.begin() + static_cast<std::ptrdiff_t>(half), msg.end());
  altered[5] ^= 1;
  ASSERT_EQ(EVP_DigestVerifyUpdate(copy.get(), altered.data(), altered.size()), 1);
  ASSERT_EQ(EVP_DigestVerifyUpdate(md.get(), msg.data() + half, msg.size() - half), 1);
  EXPECT_EQ(EVP_DigestVerifyFinal(copy.get(), sig->data(), sig->size()), 0);
  ERR_clear_error();
  EXPECT_EQ(EVP_DigestVerifyFinal(md.get(), sig->data(), sig->size()), 1) << error_text();
  // The final left the context usable: one more byte makes it a different message.
  const unsigned char extra = 0x42;
  ASSERT_EQ(EVP_DigestVerifyUpdate(md.get(), &extra, 1), 1);
  EXPECT_EQ(EVP_DigestVerifyFinal(md.get(), sig->data(), sig->size()), 0);
  ERR_clear_error();

  // One update of the whole message, and one of more than the largest chunk (16 MiB + 1 bytes).
  EXPECT_TRUE(verify(k.get(), msg, *sig));
  Bytes huge((std::size_t{16} << 20) + 1, 0x5a);
  auto huge_sig = sign(k.get(), huge);
  ASSERT_TRUE(huge_sig) << error_text();
  Md big(EVP_MD_CTX_new());
  ASSERT_EQ(EVP_DigestVerifyInit_ex(big.get(), nullptr, nullptr, libctx, nullptr, k.get(), nullptr), 1);
  ASSERT_EQ(EVP_DigestVerifyUpdate(big.get(), huge.data(), 1000), 1);
  ASSERT_EQ(EVP_DigestVerifyUpdate(big.get(), huge.data() + 1000, huge.size() - 1000), 1);
  EXPECT_EQ(EVP_DigestVerifyFinal(big.get(), huge_sig->data(), huge_sig->size()), 1) << error_text();
}

TEST_F(EvpTest, PkeySignAndVerify) {
  Pkey k = h5_key("p.state");
  ASSERT_TRUE(k);
  const Bytes msg = bytes_of("EVP_PKEY_sign takes the message");
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(libctx, k.get(), nullptr);
  ASSERT_NE(ctx, nullptr);
  ASSERT_EQ(EVP_PKEY_sign_init(ctx), 1);
  size_t len = 0;
  ASSERT_EQ(EVP_PKEY_sign(ctx, nullptr, &len, msg.data(), msg.size()), 1);
  EXPECT_EQ(remaining(k.get()), 32u) << "a size query reserves nothing";
  Bytes sig(len);
  ASSERT_EQ(EVP_PKEY_sign(ctx, sig.data(), &len, msg.data(), msg.size()), 1) << error_text();
  sig.resize(len);
  EVP_PKEY_CTX_free(ctx);
  EXPECT_EQ(q_of(k.get(), sig), 0u);
  EXPECT_EQ(remaining(k.get()), 31u);

  ctx = EVP_PKEY_CTX_new_from_pkey(libctx, k.get(), nullptr);
  ASSERT_EQ(EVP_PKEY_verify_init(ctx), 1);
  EXPECT_EQ(EVP_PKEY_verify(ctx, sig.data(), sig.size(), msg.data(), msg.size()), 1);
  Bytes other = msg;
  other.back() ^= 0x80;
  EXPECT_NE(EVP_PKEY_verify(ctx, sig.data(), sig.size(), other.data(), other.size()), 1);
  EVP_PKEY_CTX_free(ctx);
  EXPECT_TRUE(verify(k.get(), msg, sig)) << "EVP_PKEY_sign and EVP_DigestVerify agree";
}

}  // namespace
