#include "config/state_location.h"

#include <gtest/gtest.h>

namespace dw::config {
namespace {

TEST(ConfigStateLocationTest, TellsFilesFromDatabasesFromMistakes) {
  EXPECT_EQ(ClassifyStateLocation(".dw/state.db"), StateLocationForm::kSqlitePath);
  EXPECT_EQ(ClassifyStateLocation("/var/lib/dw/state.db"), StateLocationForm::kSqlitePath);
  EXPECT_EQ(ClassifyStateLocation("my=state.db"), StateLocationForm::kSqlitePath);
  EXPECT_EQ(ClassifyStateLocation("postgresql://dw@db/dw"), StateLocationForm::kPostgresUrl);
  EXPECT_EQ(ClassifyStateLocation("postgres://dw@db/dw"), StateLocationForm::kPostgresUrl);
  EXPECT_EQ(ClassifyStateLocation("host=db dbname=dw password=x"), StateLocationForm::kPostgresKeywords);
  EXPECT_EQ(ClassifyStateLocation("dbname = dw"), StateLocationForm::kPostgresKeywords);
  EXPECT_EQ(ClassifyStateLocation("postgresq://bob:pw@db/dw"), StateLocationForm::kUnknownScheme);
  EXPECT_EQ(ClassifyStateLocation("mysql://bob:pw@db/dw"), StateLocationForm::kUnknownScheme);
  EXPECT_EQ(ClassifyStateLocation("sqlite://x"), StateLocationForm::kUnknownScheme);
  EXPECT_EQ(LocationScheme("mysql://bob:pw@db/dw"), "mysql");
}

}  // namespace
}  // namespace dw::config
