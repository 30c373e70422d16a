#include "config/yaml_documents.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string_view>

#include "base/utf8.h"

#include <yaml-cpp/eventhandler.h>

namespace dw::config {
namespace {

// Builds nothing: only remembers where the current document started.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  YAML::Mark start;
};

// The offset of the first character of the well-formed UTF-8 `text` outside YAML 1.2's printable
// set (c-printable: tab, line feed, carriage return, U+0020-U+007E, U+0085, U+00A0-U+D7FF,
// U+E000-U+FFFD, U+10000 and up), or npos. yaml-cpp does not refuse them and turns some into bytes
// that are not UTF-8 (a NUL inside a plain scalar came back followed by a stray 0xA0), which the
// JSON writers then throw on.
size_t FirstNonPrintable(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1 ? b : len == 2 ? b & 0x1Fu : len == 3 ? b & 0x0Fu : b & 0x07u;
    for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
    const bool printable = cp == 0x09 || cp == 0x0A || cp == 0x0D || (cp >= 0x20 && cp <= 0x7E) || cp == 0x85 ||
                           (cp >= 0xA0 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) || cp >= 0x10000;
    if (!printable) return i;
    i += len;
  }
  return std::string_view::npos;
}

// Throws YAML::ParserException at the line and column of offset `bad` of `text`: "the text " +
// `before` + the byte there in hex + `after`.
[[noreturn]] void RefuseAt(const std::string& text, size_t bad, const char* before, const char* after) {
  YAML::Mark at;
  at.pos = static_cast<int>(bad);
  const size_t line_start = bad == 0 ? std::string::npos : text.rfind('\n', bad - 1);
  at.line = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
  at.column = static_cast<int>(line_start == std::string::npos ? bad : bad - line_start - 1);
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
  throw YAML::ParserException(at, std::string("the text ") + before + byte + after);
}

}  // namespace

void RequireUtf8Text(const std::string& text) {
  if (const size_t bad = FirstInvalidUtf8(text); bad != std::string_view::npos)
    RefuseAt(text, bad, "is not UTF-8 (byte ", " begins no UTF-8 character); save the file as UTF-8");
  if (const size_t bad = FirstNonPrintable(text); bad != std::string_view::npos)
    RefuseAt(text, bad, "holds a control character (byte ", ") that YAML does not allow; remove it");
}

std::vector<YAML::Node> LoadYamlDocuments(const std::string& text) {
  RequireUtf8Text(text);
  {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    bool first = true;
    YAML::Mark previous;
    while (parser.HandleNextDocument(starts)) {
      // A document that begins where the one before it began consumed nothing: the loop.
      if (!first && starts.start.pos == previous.pos)
        throw YAML::ParserException(starts.start, "unexpected token outside a flow collection (a stray ','?)");
      previous = starts.start;
      first = false;
    }
  }
  return YAML::LoadAll(text);
}

}  // namespace dw::config
