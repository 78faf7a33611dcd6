// docs/state.md §14: nothing in the state store depends on time. A source scan that fails when someone
// adds a clock, a timeout or a timestamp to state/ or to base/process_token.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

// The source without // comments (they may say "time") and without blanks, so "time (" is "time(".
std::string code_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string out, line;
  while (std::getline(in, line)) {
    const auto comment = line.find("//");
    if (comment != std::string::npos) line.resize(comment);
    for (char c : line) {
      if (c != ' ' && c != '\t') out += c;
    }
    out += '\n';
  }
  return out;
}

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

struct Forbidden {
  const char* text;
  bool whole_word;  // must not be the tail of a longer identifier ("runtime(" is fine)
};

constexpr Forbidden kForbidden[] = {
    {"time(", true},      {"clock(", true},      {"clock_gettime", false}, {"chrono", false},
    {"<ctime>", false},   {"<time.h>", false},   {"gettimeofday", false},  {"sleep(", false},
    {"_for(", false},     {"_until(", false},    {"st_mtim", false},       {"st_atim", false},
    {"st_ctim", false},   {"timespec", false},   {"timeval", false},       {"alarm(", true},
    {"timerfd", false},   {"localtime", false},  {"gmtime", false},
};

std::string first_forbidden(const std::string& code) {
  for (const Forbidden& f : kForbidden) {
    for (auto pos = code.find(f.text); pos != std::string::npos; pos = code.find(f.text, pos + 1)) {
      if (!f.whole_word || pos == 0 || !identifier_char(code[pos - 1])) return f.text;
    }
  }
  return {};
}

TEST(StateNoClock, TheScannerFindsClocks) {
  EXPECT_EQ(first_forbidden("x=time(nullptr);"), "time(");
  EXPECT_EQ(first_forbidden("std::this_thread::sleep_for(1s);"), "_for(");
  EXPECT_EQ(first_forbidden("#include<chrono>"), "chrono");
  EXPECT_EQ(first_forbidden("m.try_lock_until(t);"), "_until(");
  EXPECT_EQ(first_forbidden("st.st_mtim.tv_sec"), "st_mtim");
  EXPECT_EQ(first_forbidden("runtime(x);"), "");
}

TEST(StateNoClock, StateSourcesUseNoTime) {
  int scanned = 0;
  for (const auto& entry : std::filesystem::directory_iterator(KLMS_STATE_SOURCE_DIR)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".txt")) continue;  // CMakeLists.txt
    ++scanned;
    EXPECT_EQ(first_forbidden(code_of(entry.path())), "") << name;
  }
  for (const char* name : {"process_token.h", "process_token.cpp"}) {
    const auto path = std::filesystem::path(KLMS_STATE_SOURCE_DIR).parent_path() / "base" / name;
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    ++scanned;
    EXPECT_EQ(first_forbidden(code_of(path)), "") << name;
  }
  EXPECT_GE(scanned, 13) << "the state store's sources expected in " << KLMS_STATE_SOURCE_DIR;
}

}  // namespace
