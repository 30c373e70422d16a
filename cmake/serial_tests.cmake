# Included by CTest after the tests gtest_discover_tests found (CMakeLists.txt appends this file to
# TEST_INCLUDE_FILES after the discovery's own), so discovered tests can get properties here.
#
# The PostgreSQL restart test crashes and restarts the one throwaway server every PostgreSQL test
# of the run shares (scripts/with-postgres.sh): run in parallel with them, it fails their
# statements in flight. RUN_SERIAL keeps it alone.
set_tests_properties(
  PostgresStoreFaultsTest.ARestartUnderLoadFailsTheWritesInFlightClearlyAndLosesNothingCommitted
  PROPERTIES RUN_SERIAL TRUE)
