// Shared by the XMSS tests: vector files ("Key = value" lines, a blank line between cases), the
// backends of a family, and a key (public key + signer) made from seeds or at random.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "hashes/backend.h"
#include "xmss/keygen.h"
#include "xmss/params.h"
#include "xmss/signer.h"

namespace klms::xmss {

struct Case {
  std::map<std::string, std::string> fields;
  const std::string& operator[](const std::string& k) const;
};
std::vector<Case> read_cases(const std::string& file);

std::vector<const hashes::Backend*> backends_of(HashFamily family);

struct TestKey {
  Bytes public_key;
  std::unique_ptr<Signer> signer;
};
// Fails the current test (and returns an empty key) when key generation fails.
TestKey make_key(const Params& params, const hashes::Backend* backend, ByteView sk_seed, ByteView sk_prf,
                 ByteView pub_seed, unsigned threads = 0);
TestKey random_key(const Params& params, const hashes::Backend* backend);

}  // namespace klms::xmss
