#include "base/log.h"

#include <cstdio>
#include <mutex>

#include <spdlog/sinks/base_sink.h>

namespace dw {
namespace {

// The process's one log sink: formats each record, redacts it, writes it to stderr.
class RedactingStderrSink final : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    std::string line = RedactSecrets(std::string(formatted.data(), formatted.size()));
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }
};

}  // namespace

void InitLogging(std::string_view level) {
  static std::once_flag once;
  std::call_once(once, [] {
    auto logger = std::make_shared<spdlog::logger>("dw", std::make_shared<RedactingStderrSink>());
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
    spdlog::register_logger(logger);
    spdlog::set_default_logger(logger);
  });
  auto lvl = spdlog::level::from_str(std::string(level));
  if (lvl == spdlog::level::off && level != "off") lvl = spdlog::level::info;
  spdlog::set_level(lvl);
}

}  // namespace dw
