#include "bench/study/options.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string_view>

namespace klms::bench {
namespace {

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    const std::size_t comma = s.find(',');
    out.emplace_back(s.substr(0, comma));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

template <typename T>
bool parse_number(std::string_view s, T& out) {
  if (s == "all" || s == "max") {  // threads=all
    out = 0;
    return true;
  }
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

template <typename T>
bool parse_list(std::string_view s, std::vector<T>& out) {
  out.clear();
  for (const std::string& item : split(s)) {
    T v{};
    if (!parse_number(item, v)) return false;
    out.push_back(v);
  }
  return !out.empty();
}

}  // namespace

bool Options::wants(const std::string& op) const {
  if (ops.empty()) return op != "profile";
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

const char* usage() noexcept {
  return "usage: klms-bench [options]\n"
         "  --backend=all|NAME[,NAME]  backends (see --list-backends, which lists the study variants too)\n"
         "  --h=5,10           top-level tree heights          --w=1,2,4,8     Winternitz parameters\n"
         "  --levels=1,2       HSS levels                      --lower-h=N     h below the top (default: same)\n"
         "  --threads=1,all    key generation threads (all = every core)\n"
         "  --reps=N           timed sign/verify runs (200)    --keygen-reps=N timed key generations (7)\n"
         "  --warmup=N         untimed runs first (3)          --keygen-budget=S stop repeating keygen after S s (60)\n"
         "  --message-bytes=N  message size (1024)\n"
         "  --ops=LIST         keygen,keygen-tree,sign,sign+state,sign-cachefile,verify,prepare-lower,sizes,peak,profile\n"
         "                     (default: all but profile)\n"
         "  --profile          add the hash-call profile (same as adding profile to --ops)\n"
         "  --csv=FILE         scheme rows as CSV              --profile-csv=FILE  hash-call profile as CSV\n"
         "  --hash-costs=LENS  one-shot cost of every selected backend at these input lengths, then exit\n"
         "  --hash-cost-csv=FILE\n"
         "  --no-table         no table on stdout              --list-backends\n"
         "  --xmss-compare     LMS vs XMSS on the same backends (default lsh256-simd), --h, --w (2,4,8 = XMSS\n"
         "                     w 4,16,256), --reps, --keygen-reps; --csv / --profile-csv get its rows\n"
         "  --xmss=SETS        the XMSS engine on named sets (XMSS-SHA2_10_256,XMSSMT-SHA2_20/4_256,...): key\n"
         "                     generation per --threads, sign, verify; the fastest backend of the set's hash\n"
         "                     unless --backend names others; --csv gets its rows\n";
}

std::optional<Options> parse_options(int argc, char** argv, std::string& error, bool& help) {
  Options o;
  help = false;
  bool profile = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const std::size_t eq = arg.find('=');
    const std::string_view key = arg.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view{} : arg.substr(eq + 1);
    bool ok = true;
    if (key == "--help" || key == "-h") {
      help = true;
      return o;
    } else if (key == "--backend") {
      o.backends = split(value);
      ok = !o.backends.empty();
    } else if (key == "--h") {
      ok = parse_list(value, o.heights);
    } else if (key == "--w") {
      ok = parse_list(value, o.winternitz);
    } else if (key == "--levels") {
      ok = parse_list(value, o.levels);
    } else if (key == "--threads") {
      ok = parse_list(value, o.threads);
    } else if (key == "--lower-h") {
      ok = parse_number(value, o.lower_height);
    } else if (key == "--reps") {
      ok = parse_number(value, o.reps) && o.reps > 0;
    } else if (key == "--keygen-reps") {
      ok = parse_number(value, o.keygen_reps) && o.keygen_reps > 0;
    } else if (key == "--warmup") {
      ok = parse_number(value, o.warmup);
    } else if (key == "--keygen-budget") {
      o.keygen_budget_seconds = std::atof(std::string(value).c_str());
      ok = o.keygen_budget_seconds > 0;
    } else if (key == "--message-bytes") {
      ok = parse_number(value, o.message_bytes);
    } else if (key == "--ops") {
      o.ops = split(value);
    } else if (key == "--profile") {
      profile = true;
    } else if (key == "--csv") {
      o.csv = value;
    } else if (key == "--profile-csv") {
      o.profile_csv = value;
    } else if (key == "--hash-costs") {
      ok = parse_list(value, o.hash_cost_lengths);
    } else if (key == "--hash-cost-csv") {
      o.hash_cost_csv = value;
    } else if (key == "--no-table") {
      o.table = false;
    } else if (key == "--xmss-compare") {
      o.xmss_compare = true;
    } else if (key == "--xmss") {
      o.xmss_sets = split(value);
      ok = !o.xmss_sets.empty();
    } else if (key == "--list-backends") {
      o.list_backends = true;
    } else if (key == "--child") {
      o.child = true;
    } else if (key == "--child-backend") {
      o.child_backend = value;
    } else if (key == "--child-dir") {
      o.child_dir = value;
    } else if (key == "--child-h") {
      ok = parse_number(value, o.child_h);
    } else if (key == "--child-w") {
      ok = parse_number(value, o.child_w);
    } else if (key == "--child-levels") {
      ok = parse_number(value, o.child_levels);
    } else if (key == "--child-lower-h") {
      ok = parse_number(value, o.child_lower_h);
    } else if (key == "--child-threads") {
      ok = parse_number(value, o.child_threads);
    } else {
      error = "unknown option " + std::string(arg);
      return std::nullopt;
    }
    if (!ok) {
      error = "bad value in " + std::string(arg);
      return std::nullopt;
    }
  }
  if (profile) {
    if (o.ops.empty()) {
      o.ops = {"keygen", "keygen-tree", "sign", "sign+state", "sign-cachefile", "verify", "prepare-lower", "sizes", "peak"};
    }
    o.ops.push_back("profile");
  }
  return o;
}

}  // namespace klms::bench
