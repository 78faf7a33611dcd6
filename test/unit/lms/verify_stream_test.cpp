// HssStreamVerifier (lms/verify_stream.h) gives hss_verify's answer for every vector, whatever the
// message is cut into: RFC 8554 Appendix F (L = 2), RFC 9858 (L = 1), Botan's valid and invalid
// signatures; altered messages and signatures fail; a malformed signature fails at begin().
#include <gtest/gtest.h>

#include <map>

#include "lms/verify.h"
#include "lms/verify_stream.h"
#include "test/support/test_data.h"

namespace klms::lms {
namespace {

using test::Bytes;
using test::from_hex;

struct Vector {
  std::string name;
  Bytes public_key, message, signature;
  bool valid = true;
};

std::vector<Vector> load_vectors() {
  std::vector<Vector> out;
  for (const char* file : {"lms/rfc8554_appendixF.txt", "lms/rfc9858/rfc9858_appendixA.txt"}) {
    Vector cur;
    bool open = false;
    for (const std::string& raw : test::read_lines(file)) {
      const std::string_view line = test::trim(raw);
      if (line.empty() || line.front() == '#') continue;
      if (line.front() == '[') {
        if (open) out.push_back(cur);
        cur = Vector{std::string(line), {}, {}, {}, true};
        open = true;
        continue;
      }
      std::string k, v;
      if (!test::split_key_value(line, k, v)) continue;
      if (k == "public_key") cur.public_key = from_hex(v);
      if (k == "message") cur.message = from_hex(v);
      if (k == "signature") cur.signature = from_hex(v);
    }
    if (open) out.push_back(cur);
  }
  Vector cur;
  int n = 0;
  for (const std::string& raw : test::read_lines("lms/botan/hss_lms_invalid.vec")) {
    std::string k, v;
    const std::string_view line = test::trim(raw);
    if (line.empty() || line.front() == '#' || !test::split_key_value(line, k, v)) continue;
    if (k == "PublicKey") cur.public_key = from_hex(v);
    if (k == "Msg") cur.message = from_hex(v);
    if (k == "Signature" || k == "InvalidSignature") {
      cur.signature = from_hex(v);
      cur.valid = k == "Signature";
      cur.name = "botan invalid " + std::to_string(++n);
      out.push_back(cur);
    }
  }
  return out;
}

// The streaming answer, the message fed in pieces of `piece` bytes (0: all at once).
Error stream_verify(const Vector& v, const Bytes& message, std::size_t piece) {
  HssStreamVerifier verifier;
  const Error begun = verifier.begin(ByteView(v.public_key.data(), v.public_key.size()),
                                     ByteView(v.signature.data(), v.signature.size()));
  if (begun != Error::kOk) return begun;
  if (piece == 0) {
    verifier.update(message.data(), message.size());
  } else {
    for (std::size_t off = 0; off < message.size(); off += piece) {
      verifier.update(message.data() + off, std::min(piece, message.size() - off));
    }
  }
  EXPECT_EQ(verifier.message_bytes(), message.size());
  return verifier.finish();
}

TEST(HssStreamVerifier, MatchesHssVerifyOnEveryVector) {
  const auto vectors = load_vectors();
  ASSERT_GE(vectors.size(), 2u + 4u + 1u);
  int valid = 0;
  for (const Vector& v : vectors) {
    const Error expected = hss_verify(ByteView(v.public_key.data(), v.public_key.size()),
                                      ByteView(v.message.data(), v.message.size()),
                                      ByteView(v.signature.data(), v.signature.size()));
    EXPECT_EQ(expected == Error::kOk, v.valid) << v.name;
    for (std::size_t piece : {0, 1, 7, 64, 1000}) {
      EXPECT_EQ(stream_verify(v, v.message, piece), expected) << v.name << ", pieces of " << piece;
    }
    if (v.valid) {
      ++valid;
      Bytes altered = v.message;
      if (altered.empty()) altered.push_back(0); else altered.back() ^= 1;
      EXPECT_EQ(stream_verify(v, altered, 3), Error::kVerifyFailed) << v.name;
      Bytes longer = v.message;
      longer.push_back(0);
      EXPECT_EQ(stream_verify(v, longer, 0), Error::kVerifyFailed) << v.name;
    }
  }
  EXPECT_GE(valid, 6);
}

TEST(HssStreamVerifier, MalformedSignatureFailsAtBegin) {
  const auto vectors = load_vectors();
  const Vector& v = vectors.front();  // RFC 8554 test case 1 (L = 2)
  HssStreamVerifier verifier;
  const Bytes cut(v.signature.begin(), v.signature.end() - 1);
  EXPECT_EQ(verifier.begin(ByteView(v.public_key.data(), v.public_key.size()), ByteView(cut.data(), cut.size())),
            Error::kMalformedSignature);
  EXPECT_FALSE(verifier.ready());
  EXPECT_EQ(verifier.finish(), Error::kInvalidArgument);
}

TEST(HssStreamVerifier, FinishOnceThenBeginAgain) {
  const auto vectors = load_vectors();
  const Vector& v = vectors.front();
  HssStreamVerifier verifier;
  ASSERT_EQ(verifier.begin(ByteView(v.public_key.data(), v.public_key.size()),
                           ByteView(v.signature.data(), v.signature.size())),
            Error::kOk);
  verifier.update(v.message.data(), v.message.size());
  EXPECT_EQ(verifier.finish(), Error::kOk);
  EXPECT_EQ(verifier.finish(), Error::kInvalidArgument);  // a second final is refused
  ASSERT_EQ(verifier.begin(ByteView(v.public_key.data(), v.public_key.size()),
                           ByteView(v.signature.data(), v.signature.size())),
            Error::kOk);
  verifier.update(v.message.data(), v.message.size());
  EXPECT_EQ(verifier.finish(), Error::kOk);
}

}  // namespace
}  // namespace klms::lms
