#include "test/unit/xmss/xmss_test_util.h"

#include <gtest/gtest.h>

#include "test/support/test_data.h"

namespace klms::xmss {

const std::string& Case::operator[](const std::string& k) const {
  static const std::string empty;
  auto it = fields.find(k);
  return it == fields.end() ? empty : it->second;
}

std::vector<Case> read_cases(const std::string& file) {
  std::vector<Case> cases;
  Case current;
  for (const std::string& raw : test::read_lines(file)) {
    const std::string_view line = test::trim(raw);
    if (line.empty()) {
      if (!current.fields.empty()) cases.push_back(std::move(current));
      current = Case{};
      continue;
    }
    if (line[0] == '#') continue;
    std::string k, v;
    if (test::split_key_value(line, k, v)) current.fields[k] = v;
  }
  if (!current.fields.empty()) cases.push_back(std::move(current));
  return cases;
}

std::vector<const hashes::Backend*> backends_of(HashFamily family) {
  std::vector<const hashes::Backend*> out;
  for (const hashes::Backend* b : hashes::available_backends()) {
    if (b->family == family) out.push_back(b);
  }
  return out;
}

namespace {

TestKey from_generated(Result<GeneratedKey> g, const hashes::Backend* backend) {
  TestKey out;
  EXPECT_TRUE(g.ok()) << describe(g.error());
  if (!g) return out;
  out.public_key = g->public_key;
  SignerOptions options;
  options.backend = backend;
  auto signer = Signer::create(std::move(g->key), options, std::move(g->top_tree));
  EXPECT_TRUE(signer.ok()) << describe(signer.error());
  if (signer) out.signer = std::move(*signer);
  return out;
}

}  // namespace

TestKey make_key(const Params& params, const hashes::Backend* backend, ByteView sk_seed, ByteView sk_prf,
                 ByteView pub_seed, unsigned threads) {
  BuildOptions options;
  options.threads = threads;
  return from_generated(generate_key_from_seeds(params, sk_seed, sk_prf, pub_seed, options, backend), backend);
}

TestKey random_key(const Params& params, const hashes::Backend* backend) {
  return from_generated(generate_key(params, BuildOptions{}, backend), backend);
}

}  // namespace klms::xmss
