#include "app/redacted_output.h"

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <streambuf>
#include <string>

#include "base/redaction.h"

namespace dw::app {
namespace {

// Buffers what a stream writes and hands whole lines, redacted, to the stream's own buffer. Whole
// lines, because a connection string is recognised by its shape (`password=...`) and a flush
// between `password=` and its value would otherwise let the value through.
class RedactingBuffer final : public std::streambuf {
 public:
  explicit RedactingBuffer(std::streambuf* out) : out_(out) {}

  // Writes everything still pending, a partial last line included.
  void Finish() {
    std::lock_guard<std::mutex> lock(mu_);
    Emit(pending_.size());
    out_->pubsync();
  }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(traits_type::to_char_type(c));
    if (pending_.size() >= kChunk) EmitLines();
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.append(s, static_cast<size_t>(n));
    if (pending_.size() >= kChunk) EmitLines();
    return n;
  }
  int sync() override {
    std::lock_guard<std::mutex> lock(mu_);
    size_t nl = pending_.rfind('\n');
    if (nl != std::string::npos) Emit(nl + 1);
    return out_->pubsync();
  }

 private:
  // Past this many pending bytes the complete lines are written without waiting for a flush; a
  // single line longer than kMaxLine is cut so memory stays bounded.
  static constexpr size_t kChunk = 64 * 1024;
  static constexpr size_t kMaxLine = 16 * 1024 * 1024;

  void EmitLines() {
    size_t nl = pending_.rfind('\n');
    if (nl != std::string::npos) {
      Emit(nl + 1);
    } else if (pending_.size() > kMaxLine) {
      Emit(pending_.size());
    }
  }
  void Emit(size_t n) {
    if (n == 0) return;
    std::string text = RedactSecrets(pending_.substr(0, n));
    pending_.erase(0, n);
    out_->sputn(text.data(), static_cast<std::streamsize>(text.size()));
  }

  std::streambuf* out_;
  std::mutex mu_;
  std::string pending_;
};

// Never destroyed: the standard streams outlive every static object.
RedactingBuffer* g_out = nullptr;
RedactingBuffer* g_err = nullptr;

void FinishStreams() {
  if (g_out) g_out->Finish();
  if (g_err) g_err->Finish();
}

}  // namespace

void RedactStandardStreams() {
  if (g_out != nullptr) return;
  g_out = new RedactingBuffer(std::cout.rdbuf());
  g_err = new RedactingBuffer(std::cerr.rdbuf());
  std::cout.rdbuf(g_out);
  std::cerr.rdbuf(g_err);
  // atexit handlers run before the standard streams' final flush: the last partial line goes out.
  std::atexit(FinishStreams);
}

}  // namespace dw::app
