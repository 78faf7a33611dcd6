#include "witness/etcd/http_client.h"

#include <gnutls/gnutls.h>
#include <gnutls/pkcs12.h>
#include <gnutls/x509.h>
#include <neon/ne_auth.h>
#include <neon/ne_request.h>
#include <neon/ne_session.h>
#include <neon/ne_socket.h>
#include <neon/ne_ssl.h>
#include <neon/ne_uri.h>

#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

namespace klms::witness::etcd {
namespace {

struct SessionDeleter {
  void operator()(ne_session* s) const noexcept { ne_session_destroy(s); }
};
struct RequestDeleter {
  void operator()(ne_request* r) const noexcept { ne_request_destroy(r); }
};
struct CertDeleter {
  void operator()(ne_ssl_certificate* c) const noexcept { ne_ssl_cert_free(c); }
};
struct ClientCertDeleter {
  void operator()(ne_ssl_client_cert* c) const noexcept { ne_ssl_clicert_free(c); }
};
struct UriHolder {
  ne_uri uri{};
  ~UriHolder() { ne_uri_free(&uri); }
};

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

// neon takes a client certificate only as PKCS#12; etcd's tooling (and ours) writes PEM. So the
// PEM pair is packed into an in-memory PKCS#12 with GnuTLS, never written anywhere.
std::unique_ptr<ne_ssl_client_cert, ClientCertDeleter> client_cert_of(const Transport& t, std::string& error) {
  std::string cert_pem, key_pem;
  if (!read_file(t.cert, cert_pem)) {
    error = "cannot read the client certificate " + t.cert;
    return nullptr;
  }
  if (!read_file(t.key, key_pem)) {
    error = "cannot read the client key " + t.key;
    return nullptr;
  }
  gnutls_x509_crt_t crt = nullptr;
  gnutls_x509_privkey_t key = nullptr;
  gnutls_pkcs12_t p12 = nullptr;
  gnutls_pkcs12_bag_t cert_bag = nullptr, key_bag = nullptr;
  gnutls_datum_t der{nullptr, 0};
  std::unique_ptr<ne_ssl_client_cert, ClientCertDeleter> result;
  const gnutls_datum_t cd{reinterpret_cast<unsigned char*>(cert_pem.data()), static_cast<unsigned>(cert_pem.size())};
  const gnutls_datum_t kd{reinterpret_cast<unsigned char*>(key_pem.data()), static_cast<unsigned>(key_pem.size())};
  unsigned char key_id[64];
  size_t key_id_len = sizeof key_id;
  const char* step = "parse the client certificate";
  int rc = gnutls_x509_crt_init(&crt);
  if (rc >= 0) rc = gnutls_x509_crt_import(crt, &cd, GNUTLS_X509_FMT_PEM);
  if (rc >= 0) { step = "parse the client key (PEM, unencrypted)"; rc = gnutls_x509_privkey_init(&key); }
  if (rc >= 0) rc = gnutls_x509_privkey_import(key, &kd, GNUTLS_X509_FMT_PEM);
  if (rc >= 0) { step = "pair the client certificate with its key"; rc = gnutls_x509_crt_get_key_id(crt, 0, key_id, &key_id_len); }
  const gnutls_datum_t id{key_id, static_cast<unsigned>(key_id_len)};
  int index = 0;
  if (rc >= 0) { step = "pack the client certificate"; rc = gnutls_pkcs12_bag_init(&cert_bag); }
  if (rc >= 0) rc = index = gnutls_pkcs12_bag_set_crt(cert_bag, crt);
  if (rc >= 0) rc = gnutls_pkcs12_bag_set_key_id(cert_bag, index, &id);
  // neon imports only bags encrypted under the (here empty) password, as `openssl pkcs12 -export`
  // writes them: plain bags make ne_ssl_clicert_import fail.
  if (rc >= 0) rc = gnutls_pkcs12_bag_encrypt(cert_bag, "", GNUTLS_PKCS_PBES2_AES_256);
  if (rc >= 0) rc = gnutls_pkcs12_bag_init(&key_bag);
  if (rc >= 0) rc = index = gnutls_pkcs12_bag_set_privkey(key_bag, key, "", GNUTLS_PKCS_PBES2_AES_256);
  if (rc >= 0) rc = gnutls_pkcs12_bag_set_key_id(key_bag, index, &id);
  if (rc >= 0) rc = gnutls_pkcs12_init(&p12);
  if (rc >= 0) rc = gnutls_pkcs12_set_bag(p12, cert_bag);
  if (rc >= 0) rc = gnutls_pkcs12_set_bag(p12, key_bag);
  if (rc >= 0) rc = gnutls_pkcs12_generate_mac(p12, "");
  if (rc >= 0) rc = gnutls_pkcs12_export2(p12, GNUTLS_X509_FMT_DER, &der);
  if (rc >= 0) {
    result.reset(ne_ssl_clicert_import(der.data, der.size));
    if (result && ne_ssl_clicert_encrypted(result.get()) && ne_ssl_clicert_decrypt(result.get(), "") != 0) result.reset();
    if (!result) error = "the client certificate and key could not be loaded (do they belong together?)";
  } else {
    error = std::string("cannot ") + step + " (" + t.cert + ", " + t.key + "): " + gnutls_strerror(rc);
  }
  if (der.data != nullptr) {
    gnutls_memset(der.data, 0, der.size);
    gnutls_free(der.data);
  }
  if (p12 != nullptr) gnutls_pkcs12_deinit(p12);
  if (key_bag != nullptr) gnutls_pkcs12_bag_deinit(key_bag);
  if (cert_bag != nullptr) gnutls_pkcs12_bag_deinit(cert_bag);
  if (key != nullptr) gnutls_x509_privkey_deinit(key);
  if (crt != nullptr) gnutls_x509_crt_deinit(crt);
  gnutls_memset(key_pem.data(), 0, key_pem.size());
  return result;
}

int append_body(void* userdata, const char* block, size_t len) {
  auto* out = static_cast<std::string*>(userdata);
  if (out->size() + len > (1u << 24)) return -1;  // 16 MiB: no answer of ours is near this
  out->append(block, len);
  return 0;
}

}  // namespace

HttpAnswer post_json(const std::string& url_base, const std::string& path, const std::string& body,
                     const std::string& token, const Transport& transport) {
  static std::once_flag once;
  std::call_once(once, [] { (void)ne_sock_init(); });
  HttpAnswer answer;
  UriHolder u;
  if (ne_uri_parse(url_base.c_str(), &u.uri) != 0 || u.uri.scheme == nullptr || u.uri.host == nullptr) {
    answer.error = "\"" + url_base + "\" is not a URL (http://HOST:PORT or https://HOST:PORT)";
    answer.local = true;
    return answer;
  }
  const std::string scheme = u.uri.scheme;
  if (scheme != "http" && scheme != "https") {
    answer.error = "\"" + url_base + "\": only http:// and https:// endpoints are supported";
    answer.local = true;
    return answer;
  }
  const unsigned port = u.uri.port != 0 ? u.uri.port : ne_uri_defaultport(scheme.c_str());
  std::unique_ptr<ne_session, SessionDeleter> session(ne_session_create(scheme.c_str(), u.uri.host, port));
  ne_set_connect_timeout(session.get(), transport.timeout_s);
  ne_set_read_timeout(session.get(), transport.timeout_s);
  ne_set_session_flag(session.get(), NE_SESSFLAG_PERSIST, 0);
  ne_set_useragent(session.get(), "klms-witness-etcd/1");
  if (scheme == "https") {
    if (!transport.cacert.empty()) {
      std::unique_ptr<ne_ssl_certificate, CertDeleter> ca(ne_ssl_cert_read(transport.cacert.c_str()));
      if (!ca) {
        answer.error = "cannot read the CA certificate " + transport.cacert + " (etcd_cacert, PEM)";
        answer.local = true;
        return answer;
      }
      ne_ssl_trust_cert(session.get(), ca.get());
    } else {
      ne_ssl_trust_default_ca(session.get());
    }
    if (!transport.cert.empty()) {
      auto client = client_cert_of(transport, answer.error);
      if (!client) {
        answer.local = true;  // no endpoint will do better: not worth a retry
        return answer;
      }
      ne_ssl_set_clicert(session.get(), client.get());
    }
  }
  std::unique_ptr<ne_request, RequestDeleter> request(ne_request_create(session.get(), "POST", path.c_str()));
  ne_set_request_body_buffer(request.get(), body.data(), body.size());
  ne_add_request_header(request.get(), "Content-Type", "application/json");
  if (!token.empty()) ne_add_request_header(request.get(), "Authorization", token.c_str());
  ne_add_response_body_reader(request.get(), ne_accept_always, append_body, &answer.body);
  const int rc = ne_request_dispatch(request.get());
  if (rc != NE_OK) {
    answer.error = url_base + ": " + ne_get_error(session.get());
    return answer;
  }
  answer.reached = true;
  answer.status = ne_get_status(request.get())->code;
  return answer;
}

}  // namespace klms::witness::etcd
