// One HTTP/1.1 POST of a JSON body to an etcd member, through neon (libneon27-gnutls): GnuTLS for
// TLS, so the module never brings the system's libcrypto into a process that runs another OpenSSL
// (docs/fleet.md "What a signer loads").
#pragma once

#include <string>

namespace klms::witness::etcd {

// Transport settings shared by every request of a call.
struct Transport {
  std::string cacert;  // PEM: the CA of the members' certificates (https)
  std::string cert;    // PEM: the client's certificate (mutual TLS); empty: none
  std::string key;     // PEM: its private key
  int timeout_s = 10;  // connect and read timeout of one request, whole seconds (neon's unit)
};

struct HttpAnswer {
  bool reached = false;  // false: no HTTP answer at all (connection, TLS, timeout); see `error`
  int status = 0;        // HTTP status
  std::string body;
  std::string error;     // what failed, for the message
  bool local = false;    // it failed here (configuration, certificate files): no retry helps
};

// POSTs `body` to `url_base` + `path` ("/v3/kv/txn"); `token` is sent as Authorization when set.
HttpAnswer post_json(const std::string& url_base, const std::string& path, const std::string& body,
                     const std::string& token, const Transport& transport);

}  // namespace klms::witness::etcd
