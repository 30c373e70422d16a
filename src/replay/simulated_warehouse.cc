#include "replay/simulated_warehouse.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "base/json.h"

namespace dw::replay {
namespace {

namespace fs = std::filesystem;

// A new RSA key: its private half as PKCS#8 PEM and its public half as PEM.
Result<std::pair<std::string, std::string>> NewRsaKey() {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_RSA_gen(2048), EVP_PKEY_free);
  if (!key) return Internal("generating an RSA key failed");
  auto pem = [&](bool is_private) {
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
    if (is_private) PEM_write_bio_PrivateKey(bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    else PEM_write_bio_PUBKEY(bio.get(), key.get());
    char* data = nullptr;
    long n = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<size_t>(n));
  };
  return std::make_pair(pem(true), pem(false));
}

}  // namespace

Result<SimulatedWarehouse> StartSimulatedWarehouse(const fs::path& binary, const config::WarehouseConfig& warehouse,
                                                   const fs::path& script, const fs::path& scratch) {
  if (warehouse.type != "snowflake")
    return InvalidArgument("warehouse '" + warehouse.name + "' is " + warehouse.type +
                           "; dw replay simulates snowflake warehouses (SQLite ones are files in the workspace)");
  std::ifstream in(script);
  std::stringstream text;
  text << in.rdbuf();
  Json doc = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!in || !doc.is_object()) return InvalidArgument(script.string() + ": not a JSON object");
  Result<std::pair<std::string, std::string>> key = NewRsaKey();
  if (!key.ok()) return key.status();
  doc["account"] = warehouse.account;
  doc["database"] = warehouse.database;
  doc["users"] = Json::array({{{"name", warehouse.user}, {"public_key_pem", key->second}}});

  std::error_code ec;
  const fs::path dir = scratch / "warehouses";
  fs::create_directories(dir, ec);
  if (ec) return Internal("cannot create " + dir.string() + ": " + ec.message());
  const fs::path key_file = dir / (warehouse.name + ".p8"), script_file = dir / (warehouse.name + ".json");
  {
    std::ofstream k(key_file, std::ios::trunc);
    k << key->first;
    if (!k) return Internal("cannot write " + key_file.string());
  }
  ::chmod(key_file.c_str(), 0600);
  {
    std::ofstream s(script_file, std::ios::trunc);
    s << doc.dump();
    if (!s) return Internal("cannot write " + script_file.string());
  }
  auto process = SimulatorProcess::Start(binary, "snowflake", script_file);
  if (!process.ok()) return process.status();
  SimulatedWarehouse out;
  out.settings = {{"api_url", (*process)->url()}, {"private_key", key_file.string()}};
  out.process = std::move(process).value();
  return out;
}

}  // namespace dw::replay
