#include "base/log.h"

#include <mutex>
#include <vector>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace dw {
namespace {
std::mutex g_secrets_mu;
std::vector<std::string>& Secrets() {
  static std::vector<std::string> s;
  return s;
}
}  // namespace

void InitLogging(std::string_view level) {
  static std::once_flag once;
  std::call_once(once, [] {
    auto logger = spdlog::stderr_color_mt("dw");
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
    spdlog::set_default_logger(logger);
  });
  auto lvl = spdlog::level::from_str(std::string(level));
  if (lvl == spdlog::level::off && level != "off") lvl = spdlog::level::info;
  spdlog::set_level(lvl);
}

void RegisterSecret(std::string value) {
  if (value.size() < 4) return;
  std::lock_guard<std::mutex> lock(g_secrets_mu);
  for (const auto& s : Secrets())
    if (s == value) return;
  Secrets().push_back(std::move(value));
}

std::string RedactSecrets(std::string text) {
  std::lock_guard<std::mutex> lock(g_secrets_mu);
  for (const auto& s : Secrets()) {
    size_t pos = 0;
    while ((pos = text.find(s, pos)) != std::string::npos) {
      text.replace(pos, s.size(), "***");
      pos += 3;
    }
  }
  return text;
}

}  // namespace dw
