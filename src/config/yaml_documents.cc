#include "config/yaml_documents.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

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

}  // namespace

void RequireUtf8Text(const std::string& text) {
  const size_t bad = FirstInvalidUtf8(text);
  if (bad == std::string_view::npos) return;
  YAML::Mark at;
  at.pos = static_cast<int>(bad);
  const size_t line_start = bad == 0 ? std::string::npos : text.rfind('\n', bad - 1);
  at.line = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
  at.column = static_cast<int>(line_start == std::string::npos ? bad : bad - line_start - 1);
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
  throw YAML::ParserException(at, std::string("the text is not UTF-8 (byte ") + byte +
                                      " begins no UTF-8 character); save the file as UTF-8");
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
