// People's Ed25519 keys (OpenSSL EVP): issuing them, keeping the private half out of the store,
// and signing and verifying decision statements.
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "actions/actions.h"
#include "base/base64.h"
#include "actions/identity.h"

namespace dw::actions {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(len));
}

Pkey ReadPrivate(const std::string& pem) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return nullptr;
  return Pkey(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
}

Pkey ReadPublic(const std::string& pem) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return nullptr;
  return Pkey(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
}


}  // namespace

Result<IssuedKey> IssuePersonKey(store::StateStore& store, const std::string& email,
                                 const Clock& clock, const std::string& issued_by) {
  Result<IssuedKey> key = NewPersonKey(email);
  if (!key.ok()) return key.status();
  DW_RETURN_IF_ERROR(StorePersonKey(store, *key, clock, issued_by));
  return key;
}

Result<IssuedKey> NewPersonKey(const std::string& email) {
  if (!LooksLikePersonEmail(email))
    return InvalidArgument("'" + email + "' is not a person's email address (name@domain): keys "
                           "are issued to people only, never to agents");
  std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree> ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr));
  EVP_PKEY* raw = nullptr;
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) <= 0 || EVP_PKEY_keygen(ctx.get(), &raw) <= 0)
    return Internal("OpenSSL could not generate an Ed25519 key");
  Pkey key(raw);
  std::unique_ptr<BIO, BioFree> priv(BIO_new(BIO_s_mem()));
  std::unique_ptr<BIO, BioFree> pub(BIO_new(BIO_s_mem()));
  if (!priv || !pub ||
      PEM_write_bio_PrivateKey(priv.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1 ||
      PEM_write_bio_PUBKEY(pub.get(), key.get()) != 1)
    return Internal("OpenSSL could not encode the Ed25519 key");
  return IssuedKey{email, BioText(pub.get()), BioText(priv.get())};
}

Status StorePersonKey(store::StateStore& store, const IssuedKey& key, const Clock& clock, const std::string& issued_by) {
  return store.InTransaction([&](store::StateStore& tx) -> Status {
    DW_RETURN_IF_ERROR(tx.PutPersonKey({key.email, key.public_key_pem, clock.Now()}));
    store::ActionEventRecord e;
    e.at = clock.Now();
    e.kind = "key_issued";
    e.subject = "person:" + key.email;
    e.actor = issued_by;
    e.body = {{"public_key_sha256", Sha256Hex(key.public_key_pem)}};
    return tx.AppendActionEvent(e).status();
  });
}

// The file appears whole or not at all: the key is written and synced under `path`.partial, then
// linked to `path` (link(2) never replaces an existing file). Written in place, a kill between
// creating the file and writing the key left an empty file at `path` that every later `dw keys
// issue` refused to overwrite (found by the `dw keys issue` crash writer). A `.partial` left by
// such a kill holds a key never handed out; the next write to the same path removes it.
Status WritePrivateKeyFile(const std::string& path, const std::string& private_key_pem) {
  if (std::filesystem::exists(path))
    return Status(StatusCode::kAlreadyExists, path + " already exists; a key file is never overwritten");
  const std::string partial = path + ".partial";
  ::unlink(partial.c_str());
  int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Unavailable("cannot create " + partial + ": " + std::strerror(errno));
  ::fchmod(fd, 0600);  // whatever the umask said
  size_t done = 0;
  while (done < private_key_pem.size()) {
    ssize_t n = ::write(fd, private_key_pem.data() + done, private_key_pem.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(partial.c_str());
      return Unavailable("cannot write " + partial + ": " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(partial.c_str());
    return Unavailable("cannot write " + partial);
  }
  if (::link(partial.c_str(), path.c_str()) != 0) {
    const int err = errno;
    if (err == EEXIST) {
      ::unlink(partial.c_str());
      return Status(StatusCode::kAlreadyExists, path + " already exists; a key file is never overwritten");
    }
    // A file system without hard links: rename, after the check above (a file created at `path`
    // since then would be replaced; nothing else writes there).
    if (::rename(partial.c_str(), path.c_str()) != 0) {
      const int rerr = errno;
      ::unlink(partial.c_str());
      return Unavailable("cannot create " + path + ": " + std::strerror(rerr) + " (link: " + std::strerror(err) + ")");
    }
    return Status::Ok();
  }
  ::unlink(partial.c_str());
  return Status::Ok();
}

Result<std::string> ReadPrivateKeyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read the key file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  std::string pem = text.str();
  if (!ReadPrivate(pem)) return InvalidArgument(path + " does not hold a PEM private key");
  return pem;
}

std::string NewNonce() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return "";
  return Sha256Hex(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes)).substr(0, 32);
}

Result<std::string> SignStatement(const DecisionStatement& s, const std::string& private_key_pem) {
  Pkey key = ReadPrivate(private_key_pem);
  if (!key || EVP_PKEY_id(key.get()) != EVP_PKEY_ED25519)
    return InvalidArgument("the key is not an Ed25519 private key in PEM");
  std::string msg = StatementBytes(s);
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  unsigned char sig[64];
  size_t len = sizeof sig;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), sig, &len, reinterpret_cast<const unsigned char*>(msg.data()),
                     msg.size()) != 1)
    return Internal("OpenSSL could not sign the statement");
  return Base64(std::string_view(reinterpret_cast<const char*>(sig), len));
}

bool SignatureVerifies(const std::string& statement_bytes, const std::string& signature_b64,
                       const std::string& public_key_pem) {
  Pkey key = ReadPublic(public_key_pem);
  if (!key || EVP_PKEY_id(key.get()) != EVP_PKEY_ED25519) return false;
  std::optional<std::string> sig = DecodeBase64(signature_b64);
  if (!sig || sig->size() != 64) return false;
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1)
    return false;
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig->data()),
                          sig->size(),
                          reinterpret_cast<const unsigned char*>(statement_bytes.data()),
                          statement_bytes.size()) == 1;
}

}  // namespace dw::actions
