// klms-evp-test: the state file behind the keys (docs/state.md §1, §4, §5, §6, §8, §9): one handle
// per key and process across dup, decode and library contexts, reservations, exhaustion and its
// acknowledgement, threads, forks, close-on-exec descriptors, and an in-place rollback.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/pem.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test/evp/evp_fixture.h"

namespace {

using namespace klms::evptest;

// ---- One handle per key and process (§9), reservations (§8) ----

// Keys that share the state file must share the reservation: with reserve 5, alternating
// between two key objects gives consecutive indices from one batch, and the file moves by 5 once.
TEST_F(EvpTest, DupDecodeAndSecondLibraryContextShareOneHandle) {
  Pkey k = h5_key("share.state");
  ASSERT_TRUE(k);
  const std::string key_pem = pem(k.get());
  OSSL_LIB_CTX* second = load_library_context(false);  // OSSL_PROVIDER_load, not the configuration
  ASSERT_NE(second, nullptr) << error_text();
  Pkey dup(EVP_PKEY_dup(k.get()));
  Pkey decoded = decode(libctx, key_pem);
  Pkey other_ctx = decode(second, key_pem);
  ASSERT_TRUE(dup && decoded && other_ctx) << error_text();

  const Bytes msg = bytes_of("shared handle");
  const SignOptions r5{5, ""};
  struct Case {
    const char* name;
    EVP_PKEY* key;
    OSSL_LIB_CTX* ctx;
  };
  const Case cases[] = {{"EVP_PKEY_dup", dup.get(), libctx},
                        {"decoded again", decoded.get(), libctx},
                        {"another library context", other_ctx.get(), second}};
  std::uint64_t expected = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_EQ(expected % 5, 0u);
    // a, b, a, b, a: five signatures, one durable write of five.
    for (int i = 0; i < 5; ++i) {
      const bool first = i % 2 == 0;
      auto sig = sign(first ? k.get() : c.key, msg, r5, first ? libctx : c.ctx);
      ASSERT_TRUE(sig) << error_text();
      EXPECT_EQ(q_of(k.get(), *sig), expected) << "signature " << i;
      EXPECT_TRUE(verify(k.get(), msg, *sig));
      ++expected;
      EXPECT_EQ(remaining(k.get()), 32u - (expected + 4) / 5 * 5)
          << "the file moved by exactly one reservation of five";
    }
  }
  other_ctx.reset();
  OSSL_LIB_CTX_free(second);
}

// A reservation of 10 in one process: one durable write, 3 signatures from memory.
TEST_F(EvpTest, ReservationIsOneDurableWrite) {
  Pkey k = h5_key("r.state");
  ASSERT_TRUE(k);
  const Bytes msg = bytes_of("reserve");
  for (std::uint64_t i = 0; i < 3; ++i) {
    auto sig = sign(k.get(), msg, SignOptions{10, ""});
    ASSERT_TRUE(sig) << error_text();
    EXPECT_EQ(q_of(k.get(), *sig), i);
    EXPECT_EQ(remaining(k.get()), 22u) << "the file says next = 10 after the first signature";
  }
  // Streaming contexts hand out from the same batch.
  Md md = sign_init(libctx, k.get(), SignOptions{10, ""});
  ASSERT_EQ(EVP_DigestSignUpdate(md.get(), msg.data(), msg.size()), 1);
  auto sig = final_sign(md.get());
  ASSERT_TRUE(sig);
  EXPECT_EQ(q_of(k.get(), *sig), 3u);
  EXPECT_EQ(remaining(k.get()), 22u);
}

// `klms-state acknowledge --key-id ID STATE` for a key (docs/state.md §5), the key id as
// `pkey -text` prints it; the tool's exit status.
int acknowledge_exhaustion(EVP_PKEY* k, const std::string& state) {
  const char* tool = std::getenv("KLMS_STATE");
  if (tool == nullptr) return -1;
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  if (!bio) return -1;
  std::string text;
  if (EVP_PKEY_print_private(bio.get(), k, 0, nullptr) == 1) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio.get(), &data);
    text.assign(data, static_cast<std::size_t>(n));
  }
  const std::size_t at = text.find("key id: ");
  if (at == std::string::npos) return -1;
  const std::string id = text.substr(at + 8, 64);
  return std::system((std::string(tool) + " acknowledge --key-id " + id + " '" + state + "'").c_str());
}

// Exhaustion through EVP (§5): the last 3 wait for the acknowledgement, then 32 signatures in
// all and the 33rd fails; a reservation larger than what is left is refused (docs/state.md §8),
// and a smaller one signs the rest.
TEST_F(EvpTest, ExhaustionAndReservationsBeyondWhatIsLeft) {
  Pkey k = h5_key("e.state");
  ASSERT_TRUE(k);
  const Bytes msg = bytes_of("exhaust");
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 20; ++i) {
    auto sig = sign(k.get(), msg, SignOptions{10, ""});
    ASSERT_TRUE(sig) << "signature " << i << ": " << error_text();
    EXPECT_TRUE(seen.insert(q_of(k.get(), *sig)).second);
  }
  // [20, 30) would take index 29, one of the last min(100, 32 / 10) = 3.
  EXPECT_FALSE(sign(k.get(), msg, SignOptions{10, ""}));
  const std::string gated = error_text();
  EXPECT_NE(gated.find("key nearly exhausted"), std::string::npos) << gated;
  EXPECT_NE(gated.find("klms-state acknowledge " + dir.file("e.state")), std::string::npos) << gated;
  EXPECT_EQ(remaining(k.get()), 12u) << "the refusal wrote nothing";
  ASSERT_EQ(acknowledge_exhaustion(k.get(), dir.file("e.state")), 0);
  for (int i = 20; i < 30; ++i) {
    auto sig = sign(k.get(), msg, SignOptions{10, ""});
    ASSERT_TRUE(sig) << "signature " << i << ": " << error_text();
    EXPECT_TRUE(seen.insert(q_of(k.get(), *sig)).second);
  }
  EXPECT_FALSE(sign(k.get(), msg, SignOptions{10, ""}));
  EXPECT_NE(error_text().find("reservation too large"), std::string::npos);
  EXPECT_EQ(remaining(k.get()), 2u) << "the refused reservation wrote nothing";
  for (int i = 0; i < 2; ++i) {
    auto sig = sign(k.get(), msg, SignOptions{2, ""});
    ASSERT_TRUE(sig) << error_text();
    EXPECT_TRUE(seen.insert(q_of(k.get(), *sig)).second);
  }
  EXPECT_EQ(*seen.rbegin(), 31u);
  EXPECT_EQ(remaining(k.get()), 0u);
  EXPECT_FALSE(sign(k.get(), msg));
  EXPECT_NE(error_text().find("HSS/LMS key exhausted"), std::string::npos);
  Md md = sign_init(libctx, k.get());
  EXPECT_NE(EVP_DigestSignUpdate(md.get(), msg.data(), msg.size()), 1);
  EXPECT_NE(error_text().find("exhausted"), std::string::npos);
  EXPECT_EQ(remaining(k.get()), 0u);
}

// §1, §6, §9: threads with separately decoded key objects and mixed reservations.
TEST_F(EvpTest, ThreadsWithSeveralKeyObjectsNeverShareAnIndex) {
  Pkey k = generate(libctx, {{"lms", "LMS_SHA256_M32_H10"}, {"ots", kW4}, {"state-file", dir.file("t.state")}});
  ASSERT_TRUE(k) << error_text();
  const std::string key_pem = pem(k.get());
  constexpr int kThreads = 4, kEach = 12;
  std::mutex mutex;
  std::vector<std::uint64_t> all;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Pkey mine = decode(libctx, key_pem);
      if (!mine) {
        ++failures;
        return;
      }
      const Bytes msg = bytes_of("thread " + std::to_string(t));
      for (int i = 0; i < kEach; ++i) {
        auto sig = (t % 2 == 0) ? sign(mine.get(), msg, SignOptions{std::uint64_t(1 + t), ""})
                                : sign_streaming(mine.get(), msg, 2);
        if (!sig || !verify(mine.get(), msg, *sig)) {
          ++failures;
          continue;
        }
        std::uint64_t q = 0;
        signature_index(key_shape(mine.get()), sig->data(), sig->size(), q);
        std::lock_guard<std::mutex> lock(mutex);
        all.push_back(q);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kThreads * kEach));
  std::set<std::uint64_t> distinct(all.begin(), all.end());
  EXPECT_EQ(distinct.size(), all.size()) << "an index was used twice";
}

// §8: a child forked after a reservation of 10 never signs from its parent's batch; the parent
// goes on inside it.
TEST_F(EvpTest, ForkedChildNeverUsesTheParentsReservation) {
  Pkey k = generate(libctx, {{"lms", "LMS_SHA256_M32_H10"}, {"ots", kW4}, {"state-file", dir.file("fork.state")}});
  ASSERT_TRUE(k) << error_text();
  const Bytes msg = bytes_of("fork");
  const SignOptions r10{10, ""};
  auto first = sign(k.get(), msg, r10);
  ASSERT_TRUE(first) << error_text();
  ASSERT_EQ(q_of(k.get(), *first), 0u);  // the batch is [0, 10)

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    ::alarm(60);
    std::string out;
    for (int i = 0; i < 3; ++i) {
      auto sig = sign(k.get(), msg, r10);
      if (!sig || !verify(k.get(), msg, *sig)) ::_exit(3);
      std::uint64_t q = 0;
      if (!signature_index(key_shape(k.get()), sig->data(), sig->size(), q)) ::_exit(4);
      out += std::to_string(q) + "\n";
    }
    if (::write(fds[1], out.data(), out.size()) != static_cast<ssize_t>(out.size())) ::_exit(5);
    ::_exit(0);
  }
  ::close(fds[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  std::string text;
  char buf[256];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  std::vector<std::uint64_t> child;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t nl = text.find('\n', pos);
    child.push_back(std::stoull(text.substr(pos, nl - pos)));
    pos = nl + 1;
  }
  ASSERT_EQ(child.size(), 3u);
  EXPECT_EQ(child[0], 10u) << "the child reserves its own batch after the parent's";
  EXPECT_EQ(child[1], 11u);
  EXPECT_EQ(child[2], 12u);
  for (std::uint64_t expect = 1; expect <= 3; ++expect) {
    auto sig = sign(k.get(), msg, r10);
    ASSERT_TRUE(sig) << error_text();
    const std::uint64_t q = q_of(k.get(), *sig);
    EXPECT_EQ(q, expect) << "the parent goes on inside its batch";
    EXPECT_EQ(std::count(child.begin(), child.end(), q), 0);
  }
  EXPECT_EQ(remaining(k.get()), 1024u - 20u);
}

// §1, §6: forks while another thread keeps reserving. A child must neither deadlock (a file
// mutex held by a thread that does not exist in the child) nor reuse an index, and the parent's
// threads must still exclude each other after the fork.
TEST_F(EvpTest, ForkWhileOtherThreadsSign) {
#if defined(__SANITIZE_ADDRESS__)
  // GCC 12's AddressSanitizer allocator takes no lock around fork(): a child forked while another
  // thread is inside malloc can block forever in the allocator's lock at its first allocation
  // (seen 1 run in 8, the child stuck in ASan's allocator, not in klms or OpenSSL). The release
  // stage runs this test with glibc's fork-safe malloc.
  GTEST_SKIP() << "fork while threads allocate is not supported by this AddressSanitizer";
#endif
  Pkey k = generate(libctx, {{"lms", "LMS_SHA256_M32_H10"}, {"ots", kW4}, {"state-file", dir.file("ft.state")}});
  ASSERT_TRUE(k) << error_text();
  const std::string key_pem = pem(k.get());
  Pkey child_key = decode(libctx, key_pem);  // the child signs with a key object no thread uses
  ASSERT_TRUE(child_key);
  const Bytes msg = bytes_of("fork while signing");
  ASSERT_TRUE(sign(child_key.get(), msg));  // warm up every cache the child will use
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::vector<std::uint64_t> all{0};
  std::atomic<int> failures{0};
  constexpr std::size_t kThreadBudget = 850;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      Pkey mine = decode(libctx, key_pem);
      while (mine && !stop.load()) {
        {
          // The key's 1024 indices less its last 100 (docs/state.md §5) and the children's 25: on a
          // slow or loaded machine the threads would sign the key to its end before the forks are done.
          std::lock_guard<std::mutex> lock(mutex);
          if (all.size() >= kThreadBudget) break;
        }
        auto sig = sign(mine.get(), msg);
        if (!sig) {
          ++failures;
          break;
        }
        std::uint64_t q = 0;
        signature_index(key_shape(mine.get()), sig->data(), sig->size(), q);
        std::lock_guard<std::mutex> lock(mutex);
        all.push_back(q);
        if (t == 1) ::usleep(200);
      }
    });
  }
  constexpr int kForks = 25;
  int child_failures = 0;
  for (int i = 0; i < kForks; ++i) {
    ::usleep(1000 + 300 * (i % 7));
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      ::alarm(20);  // a deadlocked child dies of SIGALRM and the test says so
      auto sig = sign(child_key.get(), msg);
      if (!sig) ::_exit(3);
      std::uint64_t q = 0;
      if (!signature_index(key_shape(child_key.get()), sig->data(), sig->size(), q)) ::_exit(4);
      const std::string s = std::to_string(q);
      if (::write(fds[1], s.data(), s.size()) != static_cast<ssize_t>(s.size())) ::_exit(5);
      ::_exit(0);
    }
    ::close(fds[1]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::string text;
    char buf[64];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) {
      ++child_failures;
      ADD_FAILURE() << "child " << i << ": "
                    << (WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status)) +
                                                  (WTERMSIG(status) == SIGALRM ? " (deadlocked)" : "")
                                            : "exit " + std::to_string(WEXITSTATUS(status)));
      continue;
    }
    std::lock_guard<std::mutex> lock(mutex);
    all.push_back(std::stoull(text));
  }
  stop.store(true);
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0) << error_text();
  EXPECT_EQ(child_failures, 0);
  std::set<std::uint64_t> distinct(all.begin(), all.end());
  EXPECT_EQ(distinct.size(), all.size()) << "an index was used twice across threads and forked children";
  EXPECT_GT(all.size(), static_cast<std::size_t>(kForks));
}

// §6: state file descriptors are close-on-exec: a program we start does not hold them.
TEST_F(EvpTest, StateDescriptorsAreCloseOnExec) {
  Pkey k = h5_key("cloexec.state");
  ASSERT_TRUE(k);
  Md md = sign_init(libctx, k.get());
  ASSERT_EQ(EVP_DigestSignUpdate(md.get(), "x", 1), 1);  // an operation in progress
  auto fds_of = [](const std::string& command) {
    std::string out;
    FILE* p = ::popen(command.c_str(), "r");
    if (p == nullptr) return out;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    ::pclose(p);
    return out;
  };
  const std::string mine = fds_of("ls -l /proc/" + std::to_string(::getpid()) + "/fd");
  const std::string childs = fds_of("ls -l /proc/self/fd");
  EXPECT_EQ(childs.find("cloexec.state"), std::string::npos) << childs;
  ASSERT_TRUE(final_sign(md.get()));
  if (mine.find("cloexec.state") == std::string::npos) {
    GTEST_SKIP() << "no state file descriptor was open in this process: nothing to check";
  }
}

// docs/state.md §4 (state/store.h): a process that has the state file open sees it rolled back in
// place (an older copy written over the same inode) and refuses it.
TEST_F(EvpTest, InPlaceRollbackSeenByARunningProcess) {
  Pkey k = h5_key("rollback.state");
  ASSERT_TRUE(k);
  const Bytes msg = bytes_of("rollback");
  ASSERT_TRUE(sign(k.get(), msg));
  const std::string path = dir.file("rollback.state");
  const std::string backup = read_file(path);
  auto s1 = sign(k.get(), msg);
  auto s2 = sign(k.get(), msg);
  ASSERT_TRUE(s1 && s2);
  {  // cp backup state: same inode, older contents
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << backup;
  }
  auto again = sign(k.get(), msg);
  EXPECT_FALSE(again) << "signed at q " << q_of(k.get(), *again) << " after a rollback (used: 1, 2)";
  EXPECT_NE(error_text().find("copied, restored or moved"), std::string::npos);
}

}  // namespace
