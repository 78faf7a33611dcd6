#include "witness/etcd/etcd_kv.h"

#include <gnutls/gnutls.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <thread>

#include "witness/etcd/token_cache.h"

namespace klms::witness::etcd {
namespace {

using nlohmann::json;

std::string base64(const std::string& raw) {
  const gnutls_datum_t in{reinterpret_cast<unsigned char*>(const_cast<char*>(raw.data())),
                          static_cast<unsigned>(raw.size())};
  gnutls_datum_t out{nullptr, 0};
  if (gnutls_base64_encode2(&in, &out) < 0) throw Failure{KLMS_WITNESS_TPM_ERROR, "base64 encoding failed"};
  std::string s(reinterpret_cast<const char*>(out.data), out.size);
  gnutls_free(out.data);
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == '\n' || c == '\r'; }), s.end());
  return s;
}

std::string unbase64(const std::string& text) {
  if (text.empty()) return {};
  const gnutls_datum_t in{reinterpret_cast<unsigned char*>(const_cast<char*>(text.data())),
                          static_cast<unsigned>(text.size())};
  gnutls_datum_t out{nullptr, 0};
  if (gnutls_base64_decode2(&in, &out) < 0) throw Failure{KLMS_WITNESS_NOT_OURS, "the cluster answered invalid base64"};
  std::string s(reinterpret_cast<const char*>(out.data), out.size);
  gnutls_free(out.data);
  return s;
}

// etcd's gateway omits fields that hold their default (0, false, empty): absent means zero.
std::uint64_t u64_field(const json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end()) return 0;
  if (!it->is_string()) throw Failure{KLMS_WITNESS_NOT_OURS, std::string("the cluster's answer has a non-string ") + name};
  const std::string& s = it->get_ref<const std::string&>();
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) {
    throw Failure{KLMS_WITNESS_NOT_OURS, std::string("the cluster's answer has a malformed ") + name};
  }
  return v;
}

Header header_of(const json& answer) {
  auto it = answer.find("header");
  if (it == answer.end() || !it->is_object()) throw Failure{KLMS_WITNESS_NOT_OURS, "the cluster's answer has no header"};
  Header h;
  h.cluster_id = u64_field(*it, "cluster_id");
  h.revision = u64_field(*it, "revision");
  h.raft_term = u64_field(*it, "raft_term");
  if (h.cluster_id == 0 || h.revision == 0) throw Failure{KLMS_WITNESS_NOT_OURS, "the cluster's answer has no cluster id or revision"};
  return h;
}

json op_json(const Op& op) {
  switch (op.kind) {
    case Op::Kind::kRange: {
      json r = {{"key", base64(op.key)}};
      if (!op.range_end.empty()) r["range_end"] = base64(op.range_end);
      return json{{"request_range", r}};
    }
    case Op::Kind::kPut: return json{{"request_put", {{"key", base64(op.key)}, {"value", base64(op.value)}}}};
    case Op::Kind::kDeleteRange: {
      json r = {{"key", base64(op.key)}};
      if (!op.range_end.empty()) r["range_end"] = base64(op.range_end);
      return json{{"request_delete_range", r}};
    }
  }
  return json{};
}

json compare_json(const Compare& c) {
  json j = {{"key", base64(c.key)}, {"result", "EQUAL"}};
  switch (c.target) {
    case Compare::Target::kCreate:
      j["target"] = "CREATE";
      j["create_revision"] = std::to_string(c.revision);
      break;
    case Compare::Target::kMod:
      j["target"] = "MOD";
      j["mod_revision"] = std::to_string(c.revision);
      break;
    case Compare::Target::kValue:
      j["target"] = "VALUE";
      j["value"] = base64(c.value);
      break;
  }
  return j;
}

std::vector<std::string> split_endpoints(const char* text) {
  std::vector<std::string> out;
  std::string s = text != nullptr ? text : "";
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    std::string e = s.substr(pos, comma - pos);
    e.erase(0, e.find_first_not_of(" \t"));
    e.erase(e.find_last_not_of(" \t/") + 1);
    if (!e.empty()) out.push_back(e);
    pos = comma + 1;
  }
  return out;
}

// An etcd error a member gives while it cannot serve (no leader, a lost quorum, a restart): the
// next endpoint, or a later try, may answer.
bool transient(int code, const std::string& text) {
  return code == 14 || code == 4 || text.find("no leader") != std::string::npos ||
         text.find("timed out") != std::string::npos || text.find("leader changed") != std::string::npos ||
         text.find("too many requests") != std::string::npos || text.find("not capable") != std::string::npos ||
         text.find("stopped") != std::string::npos;
}

// "<what> <endpoint>: <text>", for messages.
std::string said(const std::string& what, const std::string& endpoint, const std::string& text) {
  std::string out = what;
  if (!out.empty()) out += ' ';
  out += endpoint;
  out += ": ";
  out += text;
  return out;
}

}  // namespace

std::string prefix_end(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    auto& c = reinterpret_cast<unsigned char&>(end.back());
    if (c < 0xFF) {
      ++c;
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

Client::Client(const klms_etcd_target& target, Clock::time_point deadline)
    : endpoints_(split_endpoints(target.endpoints)), deadline_(deadline) {
  if (endpoints_.empty()) {
    throw Failure{KLMS_WITNESS_UNREACHABLE,
                  "no etcd endpoints configured (etcd_endpoints in openssl.cnf or KLMS_ETCD_ENDPOINTS)"};
  }
  if (target.cacert != nullptr) transport_.cacert = target.cacert;
  if (target.cert != nullptr) transport_.cert = target.cert;
  if (target.key != nullptr) transport_.key = target.key;
  if (transport_.cert.empty() != transport_.key.empty()) {
    throw Failure{KLMS_WITNESS_TPM_ERROR, "etcd_cert and etcd_key are set together or not at all"};
  }
  if (target.user != nullptr) user_ = target.user;
  if (target.password != nullptr) password_.assign(target.password, target.password_len);
  if (!user_.empty()) {
    identity_ = token_identity(target.endpoints, user_, password_);
    token_ = kept_token(identity_);  // a token an earlier call of this process obtained, if any
  }
}

Client::~Client() {
  wipe(password_);
  wipe(token_);
}

int Client::seconds_left() const {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
  // Whole seconds (neon's unit), rounded down so that a request ends by the deadline; a last
  // part-second still gets one second, and the caller's wait (module.cpp) bounds the rest.
  return left <= 0 ? 0 : std::max<int>(1, static_cast<int>(left / 1000));
}

void Client::authenticate(const std::string& endpoint) {
  // A password over plain HTTP crosses the network in clear: only to this machine itself.
  if (endpoint.rfind("http://", 0) == 0) {
    const std::string rest = endpoint.substr(7);
    const bool loopback = rest.rfind("127.", 0) == 0 || rest.rfind("localhost", 0) == 0 || rest.rfind("[::1]", 0) == 0;
    if (!loopback) {
      throw Failure{KLMS_WITNESS_AUTH_FAILED, "etcd_user's password would cross the network in clear to " + endpoint +
                                                  ": use https:// endpoints (etcd_cacert)"};
    }
  }
  json request = {{"name", user_}, {"password", password_}};
  std::string body = request.dump();
  wipe(request["password"].get_ref<std::string&>());
  transport_.timeout_s = std::max(1, seconds_left());
  HttpAnswer answer = post_json(endpoint, "/v3/auth/authenticate", body, {}, transport_);
  wipe(body);
  if (answer.local) throw Failure{KLMS_WITNESS_TPM_ERROR, answer.error};
  if (!answer.reached) throw Failure{KLMS_WITNESS_UNREACHABLE, answer.error};
  json reply = json::parse(answer.body, nullptr, false);
  if (answer.status == 200 && reply.is_object() && reply.contains("token") && reply["token"].is_string()) {
    std::string& token = reply["token"].get_ref<std::string&>();
    wipe(token_);
    token_ = token;
    wipe(token);
    wipe(answer.body);
    keep_token(identity_, token_);  // for the later calls of this process
    return;
  }
  const std::string text = reply.is_object() && reply.contains("error") && reply["error"].is_string()
                               ? reply["error"].get<std::string>()
                               : answer.body.substr(0, 200);
  throw Failure{KLMS_WITNESS_AUTH_FAILED, "etcd user \"" + user_ + "\" could not authenticate at " + endpoint + ": " + text};
}

std::string Client::call(const std::string& path, const std::string& body) {
  std::string last_error;
  while (true) {
    for (std::size_t tried = 0; tried < endpoints_.size(); ++tried) {
      if (seconds_left() == 0) {
        throw Failure{KLMS_WITNESS_DEADLINE, "no etcd answer within the deadline" +
                                                 (last_error.empty() ? std::string() : " (last: " + last_error + ")")};
      }
      const std::string& endpoint = endpoints_[current_];
      bool reauthenticated = false;
      while (true) {
        if (!user_.empty() && token_.empty()) {
          try {
            authenticate(endpoint);
          } catch (const Failure& f) {
            if (f.status != KLMS_WITNESS_UNREACHABLE) throw;
            last_error = f.message;
            break;
          }
        }
        // A member that accepts and never answers (stopped, overloaded) costs its share of what is
        // left, so that the endpoints after it still get theirs.
        transport_.timeout_s = std::max(1, seconds_left() / static_cast<int>(endpoints_.size() - tried));
        HttpAnswer answer = post_json(endpoint, path, body, token_, transport_);
        if (answer.local) throw Failure{KLMS_WITNESS_TPM_ERROR, answer.error};
        if (!answer.reached) {
          last_error = answer.error;
          break;
        }
        json reply = json::parse(answer.body, nullptr, false);
        if (answer.status == 200) {
          if (!reply.is_object()) throw Failure{KLMS_WITNESS_NOT_OURS, endpoint + " answered something that is not JSON"};
          return answer.body;
        }
        int code = 0;
        std::string text = answer.body.substr(0, 300);
        if (reply.is_object()) {
          if (reply.contains("code") && reply["code"].is_number_integer()) code = reply["code"].get<int>();
          if (reply.contains("error") && reply["error"].is_string()) text = reply["error"].get<std::string>();
          else if (reply.contains("message") && reply["message"].is_string()) text = reply["message"].get<std::string>();
        }
        // A kept token etcd no longer takes: expired (--auth-token-ttl), forgotten by a member that
        // restarted, or issued before the auth store changed (a role revoked, a password changed):
        // once more with a fresh one, which is then judged on its own.
        const bool stale_token = code == 16 || text.find("invalid auth token") != std::string::npos ||
                                 text.find("revision of auth store is old") != std::string::npos;
        if (stale_token && !user_.empty() && !reauthenticated) {
          forget_token(identity_, token_);
          wipe(token_);
          reauthenticated = true;
          continue;
        }
        if (code == 7 || text.find("permission denied") != std::string::npos) {
          std::string who = user_.empty() ? std::string("an unauthenticated client") : "user \"" + user_ + "\"";
          throw Failure{KLMS_WITNESS_DENIED, said("etcd refused " + who + " at", endpoint, text)};
        }
        if (code == 16 || text.find("user name is empty") != std::string::npos) {
          throw Failure{KLMS_WITNESS_AUTH_FAILED,
                        said("authentication wanted (set etcd_user and etcd_password_file) by", endpoint, text)};
        }
        if (transient(code, text) || answer.status == 503) {
          last_error = said("", endpoint, text);
          break;
        }
        throw Failure{KLMS_WITNESS_TPM_ERROR, said("the request was refused by", endpoint, text)};
      }
      current_ = (current_ + 1) % endpoints_.size();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

TxnResult Client::txn(const std::vector<Compare>& compares, const std::vector<Op>& success,
                      const std::vector<Op>& failure) {
  json request = json::object();
  json c = json::array(), s = json::array(), f = json::array();
  for (const auto& x : compares) c.push_back(compare_json(x));
  for (const auto& x : success) s.push_back(op_json(x));
  for (const auto& x : failure) f.push_back(op_json(x));
  if (!c.empty()) request["compare"] = c;
  if (!s.empty()) request["success"] = s;
  if (!f.empty()) request["failure"] = f;
  const json reply = json::parse(call("/v3/kv/txn", request.dump()), nullptr, false);
  TxnResult result;
  result.header = header_of(reply);
  auto succeeded = reply.find("succeeded");
  result.succeeded = succeeded != reply.end() && succeeded->is_boolean() && succeeded->get<bool>();
  const std::vector<Op>& taken = result.succeeded ? success : failure;
  auto responses = reply.find("responses");
  const std::size_t count = responses != reply.end() && responses->is_array() ? responses->size() : 0;
  if (count != taken.size()) throw Failure{KLMS_WITNESS_NOT_OURS, "the cluster's transaction answer has the wrong number of responses"};
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<Kv> kvs;
    if (taken[i].kind == Op::Kind::kRange) {
      const json& r = (*responses)[i];
      auto range = r.find("response_range");
      if (range == r.end() || !range->is_object()) throw Failure{KLMS_WITNESS_NOT_OURS, "the cluster's answer lacks a range response"};
      auto items = range->find("kvs");
      if (items != range->end()) {
        if (!items->is_array()) throw Failure{KLMS_WITNESS_NOT_OURS, "the cluster's range answer is malformed"};
        for (const json& item : *items) {
          if (!item.is_object()) throw Failure{KLMS_WITNESS_NOT_OURS, "the cluster's range answer is malformed"};
          Kv kv;
          kv.key = unbase64(item.value("key", std::string()));
          kv.value = unbase64(item.value("value", std::string()));
          kv.create_revision = u64_field(item, "create_revision");
          kv.mod_revision = u64_field(item, "mod_revision");
          kvs.push_back(std::move(kv));
        }
      }
      // We never ask for a limit: a partial ("more") answer is not one of ours to act on.
      if (auto more = range->find("more"); more != range->end() && more->is_boolean() && more->get<bool>()) {
        throw Failure{KLMS_WITNESS_NOT_OURS, "the cluster gave a partial range answer"};
      }
    }
    result.ranges.push_back(std::move(kvs));
  }
  return result;
}

}  // namespace klms::witness::etcd
