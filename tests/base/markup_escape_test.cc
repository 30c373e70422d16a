// The one markup escape the email's HTML part and the SVG plot share.
#include "base/markup_escape.h"

#include <gtest/gtest.h>

namespace dw {
namespace {

TEST(EscapeMarkup, WritesTheCharactersMarkupGivesAMeaningToAsEntities) {
  EXPECT_EQ(EscapeMarkup("a < b && c > \"d\""), "a &lt; b &amp;&amp; c &gt; &quot;d&quot;");
  EXPECT_EQ(EscapeMarkup("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  // An entity already written is escaped again: the text is shown as given, never interpreted.
  EXPECT_EQ(EscapeMarkup("&amp;"), "&amp;amp;");
}

TEST(EscapeMarkup, CopiesEverythingElseUnchanged) {
  EXPECT_EQ(EscapeMarkup(""), "");
  EXPECT_EQ(EscapeMarkup("avg_active_balance 12.5 'single' quotes"), "avg_active_balance 12.5 'single' quotes");
  EXPECT_EQ(EscapeMarkup("Zürich — 東京"), "Zürich — 東京");
}

}  // namespace
}  // namespace dw
