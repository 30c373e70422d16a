#include "base/json_lexer.h"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace dw {
namespace {

// Bytes that end a run of plain string characters: the quote, the backslash, control characters
// (which JSON forbids raw) and the first byte of every multi-byte UTF-8 sequence (validated).
constexpr std::array<bool, 256> kStringStop = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
  return t;
}();

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

JsonLexer::JsonLexer(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") p_ += 3;
}

JsonLexer::Token JsonLexer::Next() {
  while (p_ < end_ && IsSpace(*p_)) ++p_;
  if (p_ == end_) return Token::kEnd;
  switch (*p_) {
    case '{': ++p_; return Token::kBeginObject;
    case '}': ++p_; return Token::kEndObject;
    case '[': ++p_; return Token::kBeginArray;
    case ']': ++p_; return Token::kEndArray;
    case ':': ++p_; return Token::kColon;
    case ',': ++p_; return Token::kComma;
    case '"': ++p_; return ScanString();
    case 't': return ScanLiteral("true", Token::kTrue);
    case 'f': return ScanLiteral("false", Token::kFalse);
    case 'n': return ScanLiteral("null", Token::kNull);
    default:
      if (*p_ == '-' || IsDigit(*p_)) return ScanNumber();
      p_ = end_;
      return Token::kError;
  }
}

JsonLexer::Token JsonLexer::ScanLiteral(std::string_view word, Token token) {
  if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) {
    p_ = end_;
    return Token::kError;
  }
  p_ += word.size();
  return token;
}

JsonLexer::Token JsonLexer::ScanString() {
  text_.clear();
  for (;;) {
    const char* run = p_;
    while (p_ < end_ && !kStringStop[static_cast<unsigned char>(*p_)]) ++p_;
    text_.append(run, static_cast<size_t>(p_ - run));
    if (p_ == end_) return Token::kError;
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      ++p_;
      return Token::kString;
    }
    bool ok = c == '\\' ? ScanEscape() : c >= 0x80 ? ScanUtf8() : false;
    if (!ok) {
      p_ = end_;
      return Token::kError;
    }
  }
}

// At a backslash: decodes one escape, \u with its surrogate pair, into text_.
bool JsonLexer::ScanEscape() {
  ++p_;
  if (p_ == end_) return false;
  char c = *p_++;
  switch (c) {
    case '"': text_ += '"'; return true;
    case '\\': text_ += '\\'; return true;
    case '/': text_ += '/'; return true;
    case 'b': text_ += '\b'; return true;
    case 'f': text_ += '\f'; return true;
    case 'n': text_ += '\n'; return true;
    case 'r': text_ += '\r'; return true;
    case 't': text_ += '\t'; return true;
    case 'u': break;
    default: return false;
  }
  auto hex4 = [this]() -> int {
    if (end_ - p_ < 4) return -1;
    int v = 0;
    for (int i = 0; i < 4; ++i) {
      int h = HexValue(p_[i]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    p_ += 4;
    return v;
  };
  int cp = hex4();
  if (cp < 0) return false;
  if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a low surrogate without its high one
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
    p_ += 2;
    int low = hex4();
    if (low < 0xDC00 || low > 0xDFFF) return false;
    AppendUtf8(text_, 0x10000 + ((static_cast<uint32_t>(cp) - 0xD800) << 10) + (static_cast<uint32_t>(low) - 0xDC00));
    return true;
  }
  AppendUtf8(text_, static_cast<uint32_t>(cp));
  return true;
}

// At a byte >= 0x80: copies one well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF) into text_.
bool JsonLexer::ScanUtf8() {
  const auto b0 = static_cast<unsigned char>(*p_);
  int more = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    more = 1;
  } else if (b0 == 0xE0) {
    more = 2, lo = 0xA0;
  } else if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) {
    more = 2;
  } else if (b0 == 0xED) {
    more = 2, hi = 0x9F;
  } else if (b0 == 0xF0) {
    more = 3, lo = 0x90;
  } else if (b0 >= 0xF1 && b0 <= 0xF3) {
    more = 3;
  } else if (b0 == 0xF4) {
    more = 3, hi = 0x8F;
  } else {
    return false;
  }
  if (end_ - p_ <= more) return false;
  for (int i = 1; i <= more; ++i) {
    const auto b = static_cast<unsigned char>(p_[i]);
    if (i == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return false;
  }
  text_.append(p_, static_cast<size_t>(more + 1));
  p_ += more + 1;
  return true;
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, converted as nlohmann converts it.
JsonLexer::Token JsonLexer::ScanNumber() {
  const char* start = p_;
  bool negative = false, is_float = false;
  auto fail = [this] {
    p_ = end_;
    return Token::kError;
  };
  if (*p_ == '-') negative = true, ++p_;
  if (p_ == end_ || !IsDigit(*p_)) return fail();
  if (*p_ == '0') {
    ++p_;
  } else {
    while (p_ < end_ && IsDigit(*p_)) ++p_;
  }
  if (p_ < end_ && *p_ == '.') {
    is_float = true;
    ++p_;
    if (p_ == end_ || !IsDigit(*p_)) return fail();
    while (p_ < end_ && IsDigit(*p_)) ++p_;
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    is_float = true;
    ++p_;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
    if (p_ == end_ || !IsDigit(*p_)) return fail();
    while (p_ < end_ && IsDigit(*p_)) ++p_;
  }
  text_.assign(start, static_cast<size_t>(p_ - start));  // NUL-terminated for strto*
  if (!is_float) {
    errno = 0;
    if (negative) {
      long long v = std::strtoll(text_.c_str(), nullptr, 10);
      if (errno == 0) {
        integer_ = v;
        return Token::kInteger;
      }
    } else {
      unsigned long long v = std::strtoull(text_.c_str(), nullptr, 10);
      if (errno == 0) {
        unsigned_ = v;
        return Token::kUnsigned;
      }
    }
  }
  real_ = std::strtod(text_.c_str(), nullptr);
  if (!std::isfinite(real_)) return fail();
  return Token::kFloat;
}

}  // namespace dw
