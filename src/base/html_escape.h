// The one HTML/XML text escaper: every page, SVG and HTML email the product writes passes the
// values it shows through it, so a table named `<script>` renders as text everywhere.
#pragma once

#include <string>
#include <string_view>

namespace dw {

// `text` with & < > " ' replaced by their character references: safe inside element content and
// inside a double- or single-quoted attribute value of HTML, SVG or XML. Bytes are otherwise kept
// as they are (UTF-8 passes through unchanged).
std::string HtmlEscape(std::string_view text);

}  // namespace dw
