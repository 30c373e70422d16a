#include "net/sse.h"

namespace dw::net {

std::string FormatSseEvent(std::string_view id, std::string_view data) {
  std::string out;
  out.reserve(data.size() + id.size() + 32);
  out.append("id: ").append(id).append("\nevent: message\ndata: ");
  for (size_t i = 0; i < data.size(); ++i) {
    char c = data[i];
    if (c == '\r' || c == '\n') {
      if (c == '\r' && i + 1 < data.size() && data[i + 1] == '\n') ++i;
      out.append("\ndata: ");
    } else {
      out.push_back(c);
    }
  }
  out.append("\n\n");
  return out;
}

}  // namespace dw::net
