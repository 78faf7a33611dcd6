#include "provider/keymgmt_params.h"

#include <charconv>

namespace klms::provider {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::string current;
  for (char c : text + ",") {
    if (c == ',') {
      const auto first = current.find_first_not_of(" \t");
      const auto last = current.find_last_not_of(" \t");
      items.push_back(first == std::string::npos ? std::string() : current.substr(first, last - first + 1));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  return items;
}

namespace {

bool parse_unsigned(const std::string& s, unsigned& out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end && !s.empty();
}

// One entry for every level, or `levels` entries.
bool expand(std::vector<std::string>& items, std::size_t levels) {
  if (items.size() == 1 && levels > 1) items.assign(levels, items.front());
  return items.size() == levels;
}

std::vector<lms::LevelParams> long_form(const GenerationRequest& r, std::string& error) {
  std::vector<lms::LevelParams> levels;
  std::vector<std::string> lms_names = r.lms ? split_list(*r.lms) : std::vector<std::string>{};
  std::vector<std::string> ots_names = r.ots ? split_list(*r.ots) : std::vector<std::string>{};
  const std::size_t count = r.lms ? lms_names.size() : ots_names.size();
  if (count == 0 || count > lms::kMaxLevels) {
    error = std::string(r.lms ? "lms" : "ots") + ": give 1 to 8 comma-separated parameter sets";
    return {};
  }
  for (std::size_t i = 0; i < count; ++i) {
    lms::LevelParams level;
    if (r.lms) {
      level.lms = lms::find_lms(lms_names[i]);
      if (level.lms == nullptr) {
        error = "lms: unknown LMS parameter set '" + lms_names[i] + "'";
        return {};
      }
    }
    if (r.ots) {
      if (!expand(ots_names, count)) {
        error = "ots: give one LM-OTS set for every level or one for all " + std::to_string(count) + " levels";
        return {};
      }
      level.ots = lms::find_ots(ots_names[i]);
      if (level.ots == nullptr) {
        error = "ots: unknown LM-OTS parameter set '" + ots_names[i] + "'";
        return {};
      }
    }
    // A missing half defaults to H10 or W4 of the same hash and n.
    if (level.lms == nullptr) level.lms = lms::lms_for(level.ots->hash, level.ots->n, 10);
    if (level.ots == nullptr) level.ots = lms::ots_for(level.lms->hash, level.lms->m, 4);
    if (!lms::compatible(*level.lms, *level.ots)) {
      error = "ots: " + std::string(level.ots->name) + " does not match " + std::string(level.lms->name) +
              " (same hash and n needed)";
      return {};
    }
    levels.push_back(level);
  }
  return levels;
}

std::vector<lms::LevelParams> short_form(const GenerationRequest& r, std::string& error) {
  lms::HashToken token{lms::HashFamily::kSha256, 32};
  if (r.hash) {
    auto parsed = lms::parse_hash_token(*r.hash);
    if (!parsed) {
      error = "hash: unknown hash '" + *r.hash +
              "' (SHA256, SHA256/192, SHAKE, SHAKE/192, LSH256, LSH256/192, TDMCHAM, TDMLEA, TDMARIA, or /192 of those)";
      return {};
    }
    token = *parsed;
  }
  std::vector<std::string> heights = r.height ? split_list(*r.height) : std::vector<std::string>{"10"};
  if (heights.empty() || heights.size() > lms::kMaxLevels) {
    error = "height: give 1 to 8 comma-separated heights";
    return {};
  }
  std::vector<std::string> ws = r.winternitz ? split_list(*r.winternitz) : std::vector<std::string>{"4"};
  if (!expand(ws, heights.size())) {
    error = "winternitz: give one value for every level or one for all " + std::to_string(heights.size()) + " levels";
    return {};
  }
  std::vector<lms::LevelParams> levels;
  for (std::size_t i = 0; i < heights.size(); ++i) {
    unsigned h = 0, w = 0;
    lms::LevelParams level;
    if (!parse_unsigned(heights[i], h) || (level.lms = lms::lms_for(token.hash, token.n, h)) == nullptr) {
      error = "height: '" + heights[i] + "' is not one of 5, 10, 15, 20, 25";
      return {};
    }
    if (!parse_unsigned(ws[i], w) || (level.ots = lms::ots_for(token.hash, token.n, w)) == nullptr) {
      error = "winternitz: '" + ws[i] + "' is not one of 1, 2, 4, 8";
      return {};
    }
    levels.push_back(level);
  }
  return levels;
}

}  // namespace

std::vector<lms::LevelParams> resolve_levels(const GenerationRequest& r, std::string& error) {
  const bool long_given = r.lms || r.ots;
  const bool short_given = r.hash || r.height || r.winternitz;
  if (long_given && short_given) {
    error = std::string(r.lms ? "lms" : "ots") + " and " + (r.hash ? "hash" : r.height ? "height" : "winternitz") +
            ": the long form (lms/ots) and the short form (hash/height/winternitz) cannot be mixed";
    return {};
  }
  std::vector<lms::LevelParams> levels = long_given ? long_form(r, error) : short_form(r, error);
  if (levels.empty()) return levels;
  for (const lms::LevelParams& l : levels) {
    if (l.lms->hash != levels.front().lms->hash || l.lms->m != levels.front().lms->m) {
      error = "lms: every level of a generated key uses one hash and one n (" + std::string(levels.front().lms->name) +
              " vs " + std::string(l.lms->name) + ")";
      return {};
    }
  }
  return levels;
}

}  // namespace klms::provider
