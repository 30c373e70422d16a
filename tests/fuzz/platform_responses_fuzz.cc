// The platform clients' response decoders (platforms/): Flink, Kestra, Kafka Connect and Schema
// Registry, each read through its real client over a fake net::HttpClient that answers every
// request with the fuzzed response. The first byte picks the client call, the second the HTTP
// status (mostly 200, sometimes 404, 409, 500 or 503); the rest is the body, handed to streamed
// calls in chunks of a size taken from the second byte. Property: every call ends in a value or in
// an error whose message names the platform, whatever the body holds.
#include "net/http_client.h"
#include "platforms/flink/flink_client.h"
#include "platforms/kafka_connect/connect_client.h"
#include "platforms/kestra/kestra_client.h"
#include "platforms/schema_registry/registry_client.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

class FuzzedHttp final : public dw::net::HttpClient {
 public:
  long status = 200;
  std::string_view body;
  size_t chunk = 1;

  dw::Result<dw::net::HttpResponse> Send(const dw::net::HttpRequest& request) override {
    dw::net::HttpResponse res;
    res.status = status;
    res.headers["content-type"] = "application/json";
    const bool ok = status >= 200 && status < 300;
    if (request.body_sink && ok) {
      for (size_t at = 0; at < body.size(); at += chunk) {
        if (res.streamed_bytes >= request.max_response_bytes) { res.truncated = true; break; }
        std::string_view piece = body.substr(at, chunk);
        res.streamed_bytes += piece.size();
        if (!request.body_sink(piece)) { res.truncated = true; break; }
      }
      return res;
    }
    if (body.size() > request.max_response_bytes)
      return dw::Status(dw::StatusCode::kResourceExhausted, "response over the cap");
    res.body = std::string(body);
    return res;
  }
};

dw::config::PlatformConfig Platform(const char* type) {
  dw::config::PlatformConfig p;
  p.name = std::string("fuzzed-") + type;
  p.type = type;
  p.url = "http://platform.invalid:1";
  return p;
}

template <typename T>
void Check(const dw::Result<T>& r, const dw::config::PlatformConfig& p) {
  if (!r.ok() && r.status().message().find(p.name) == std::string::npos)
    dw::fuzz::Broken("a platform error that does not name the platform");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static const long kStatuses[8] = {200, 200, 200, 200, 404, 409, 500, 503};
  FuzzedHttp http;
  http.status = kStatuses[data[1] & 7];
  http.chunk = 1 + (data[1] >> 3) * 61;
  http.body = dw::fuzz::AsText(data + 2, size - 2);
  static const auto flink_p = Platform("flink"), kestra_p = Platform("kestra"),
                    connect_p = Platform("kafka-connect"), registry_p = Platform("schema-registry");
  const std::string jid = "0123456789abcdef0123456789abcdef";
  dw::platforms::flink::FlinkClient flink(flink_p, http);
  dw::platforms::kestra::KestraClient kestra(kestra_p, http);
  dw::platforms::kafka_connect::ConnectClient connect(connect_p, http);
  dw::platforms::schema_registry::RegistryClient registry(registry_p, http);
  switch (data[0] % 22) {
    case 0: Check(flink.JobsOverview(), flink_p); break;
    case 1: Check(flink.Job(jid), flink_p); break;
    case 2: Check(flink.Checkpoints(jid), flink_p); break;
    case 3: Check(flink.CheckpointConfiguration(jid), flink_p); break;
    case 4: Check(flink.Exceptions(jid), flink_p); break;
    case 5: Check(flink.JobConfig(jid), flink_p); break;
    case 6: Check(flink.JobManagerConfig(jid), flink_p); break;
    case 7: Check(flink.LogFiles(), flink_p); break;
    case 8: Check(flink.ReadLog("jobmanager.log", 1 << 16, [](std::string_view) {}), flink_p); break;
    case 9: Check(flink.LogTail("jobmanager.log", 4096), flink_p); break;
    case 10: Check(kestra.SearchExecutions({}), kestra_p); break;
    case 11: Check(kestra.GetExecution("4Xk1"), kestra_p); break;
    case 12: Check(kestra.ExecutionLogs("4Xk1", 100), kestra_p); break;
    case 13: Check(kestra.SearchFlows(1, 50), kestra_p); break;
    case 14: Check(kestra.GetFlow("company.team", "load"), kestra_p); break;
    case 15: Check(kestra.FlowRevisions("company.team", "load"), kestra_p); break;
    case 16: Check(kestra.Triggers(), kestra_p); break;
    case 17: Check(kestra.GetKv("company.team", "tariff"), kestra_p); break;
    case 18: Check(connect.Connectors(), connect_p); Check(connect.Status("sink"), connect_p); break;
    case 19: Check(registry.Subjects(), registry_p); Check(registry.Versions("orders-value"), registry_p); break;
    case 20: Check(registry.Schema("orders-value", "latest"), registry_p);
             Check(registry.CompatibilityLevel("orders-value"), registry_p); break;
    case 21: Check(registry.CheckCompatibility("orders-value", "\"string\"", "AVRO"), registry_p);
             Check(registry.Register("orders-value", "\"string\"", "AVRO"), registry_p);
             Check(registry.LookUp("orders-value", "\"string\"", "AVRO"), registry_p); break;
  }
  return 0;
}
