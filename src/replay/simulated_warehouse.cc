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

// Writes `text` to `file`, readable by its owner only (it holds a private key).
Status WritePrivate(const fs::path& file, const std::string& text) {
  std::ofstream k(file, std::ios::trunc);
  k << text;
  if (!k) return Internal("cannot write " + file.string());
  k.close();
  ::chmod(file.c_str(), 0600);
  return Status::Ok();
}

// Completes `doc` for a Snowflake warehouse: the account, the database and the user with the key's
// public half. Returns the settings of the copy: the private key's file.
Result<std::map<std::string, std::string>> CompleteSnowflake(const config::WarehouseConfig& warehouse, Json& doc,
                                                             const std::pair<std::string, std::string>& key,
                                                             const fs::path& dir) {
  doc["account"] = warehouse.account;
  doc["database"] = warehouse.database;
  doc["users"] = Json::array({{{"name", warehouse.user}, {"public_key_pem", key.second}}});
  const fs::path key_file = dir / (warehouse.name + ".p8");
  DW_RETURN_IF_ERROR(WritePrivate(key_file, key.first));
  return std::map<std::string, std::string>{{"private_key", key_file.string()}};
}

// Completes `doc` for a BigQuery warehouse: the project and location, and a service-account key
// file (Google's JSON shape) whose private key signs the product's grants and whose public half
// the simulator's token endpoint verifies them with. Returns the settings of the copy: the key
// file as `credentials` (token_url is set once the simulator's address is known).
Result<std::map<std::string, std::string>> CompleteBigQuery(const config::WarehouseConfig& warehouse, Json& doc,
                                                            const std::pair<std::string, std::string>& key,
                                                            const fs::path& dir) {
  doc["project"] = warehouse.project;
  if (!warehouse.location.empty()) doc["location"] = warehouse.location;
  const Json service_account = {{"type", "service_account"},
                                {"project_id", warehouse.project},
                                {"private_key_id", "replay-" + warehouse.name},
                                {"private_key", key.first},
                                {"client_email", "dw-replay@" + warehouse.project + ".iam.gserviceaccount.com"},
                                {"token_uri", "https://oauth2.googleapis.com/token"}};
  const fs::path key_file = dir / (warehouse.name + "-key.json");
  DW_RETURN_IF_ERROR(WritePrivate(key_file, service_account.dump(2)));
  doc["credentials"] = key_file.string();
  return std::map<std::string, std::string>{{"credentials", key_file.string()}};
}

}  // namespace

Result<SimulatedWarehouse> StartSimulatedWarehouse(const fs::path& binary, const config::WarehouseConfig& warehouse,
                                                   const fs::path& script, const fs::path& scratch) {
  if (warehouse.type != "snowflake" && warehouse.type != "bigquery")
    return InvalidArgument("warehouse '" + warehouse.name + "' is " + warehouse.type +
                           "; dw replay simulates snowflake and bigquery warehouses (SQLite ones are files in the workspace)");
  std::ifstream in(script);
  std::stringstream text;
  text << in.rdbuf();
  Json doc = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!in || !doc.is_object()) return InvalidArgument(script.string() + ": not a JSON object");
  Result<std::pair<std::string, std::string>> key = NewRsaKey();
  if (!key.ok()) return key.status();

  std::error_code ec;
  const fs::path dir = scratch / "warehouses";
  fs::create_directories(dir, ec);
  if (ec) return Internal("cannot create " + dir.string() + ": " + ec.message());
  Result<std::map<std::string, std::string>> settings = warehouse.type == "bigquery"
                                                            ? CompleteBigQuery(warehouse, doc, *key, dir)
                                                            : CompleteSnowflake(warehouse, doc, *key, dir);
  if (!settings.ok()) return settings.status();
  const fs::path script_file = dir / (warehouse.name + ".json");
  {
    std::ofstream s(script_file, std::ios::trunc);
    s << doc.dump();
    if (!s) return Internal("cannot write " + script_file.string());
  }
  auto process = SimulatorProcess::Start(binary, warehouse.type, script_file);
  if (!process.ok()) return process.status();
  SimulatedWarehouse out;
  out.settings = std::move(*settings);
  out.settings["api_url"] = (*process)->url();
  if (warehouse.type == "bigquery") out.settings["token_url"] = (*process)->url() + "/token";
  out.process = std::move(process).value();
  return out;
}

}  // namespace dw::replay
