// A strict JSON tokenizer for hot paths (OpenLineage intake reads ~100,000 events/s on one core).
// nlohmann's own lexer reads one character at a time through an input adapter; this one scans
// runs of plain characters at once and reuses one string buffer. It accepts a subset of what
// nlohmann accepts (RFC 8259 exactly: no comments, a NUL byte is an error rather than the end of
// input), so a caller that falls back to nlohmann whenever this one refuses gets nlohmann's answer
// for every input, and the fast answer for well-formed ones.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dw {

class JsonLexer {
 public:
  enum class Token : uint8_t {
    kBeginObject, kEndObject, kBeginArray, kEndArray, kColon, kComma,
    kString, kTrue, kFalse, kNull, kInteger, kUnsigned, kFloat,
    kEnd,    // only whitespace is left
    kError,  // not JSON here; the lexer stays at kError
  };

  // Reads `text`, which must outlive the lexer; a UTF-8 byte order mark at the start is skipped.
  explicit JsonLexer(std::string_view text);

  // The next token. Strings are decoded (escapes, \u surrogate pairs) and must be valid UTF-8
  // without raw control characters; numbers follow the JSON grammar, integers that overflow 64
  // bits become floats, and a float that overflows is an error (as nlohmann rules).
  Token Next();

  // The decoded text of the last kString, or the raw text of the last number.
  std::string& text() { return text_; }
  int64_t integer() const { return integer_; }
  uint64_t unsigned_integer() const { return unsigned_; }
  double real() const { return real_; }

 private:
  Token ScanString();
  Token ScanNumber();
  Token ScanLiteral(std::string_view word, Token token);
  bool ScanEscape();
  bool ScanUtf8();

  const char* p_;
  const char* end_;
  std::string text_;
  int64_t integer_ = 0;
  uint64_t unsigned_ = 0;
  double real_ = 0;
};

}  // namespace dw
