#include "base/json_scan.h"

namespace dw {

Json ParseJsonText(std::string_view text) {
  Json out;
  {
    nlohmann::detail::json_sax_dom_parser<Json> dom(out, /*allow_exceptions=*/false);
    if (ScanJson(text, &dom) == JsonScanResult::kOk) return out;
  }
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

}  // namespace dw
