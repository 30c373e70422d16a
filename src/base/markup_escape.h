// Text placed inside HTML or XML (an email's HTML part, an SVG plot): the five characters markup
// gives a meaning to are written as entities, so a metric name or an incident title cannot open
// a tag or end an attribute.
#pragma once

#include <string>
#include <string_view>

namespace dw {

// `text` with & < > " replaced by &amp; &lt; &gt; &quot;, safe in element content and in a
// double-quoted attribute value. Bytes are otherwise copied unchanged (UTF-8 passes through).
std::string EscapeMarkup(std::string_view text);

}  // namespace dw
