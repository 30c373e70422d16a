# Included by CTest after the tests gtest_discover_tests found (CMakeLists.txt appends this file to
# TEST_INCLUDE_FILES after the discovery's own), so discovered tests can get properties here.
# CTest reads it under CMake's oldest policies, so list(FIND) rather than IN_LIST.
#
# The PostgreSQL restart test crashes and restarts the one throwaway server every PostgreSQL test
# of the run shares (scripts/with-postgres.sh): run in parallel with them, it fails their
# statements in flight. RUN_SERIAL keeps it alone.
set_tests_properties(
  PostgresStoreFaultsTest.ARestartUnderLoadFailsTheWritesInFlightClearlyAndLosesNothingCommitted
  PROPERTIES RUN_SERIAL TRUE)

# Labels, so that `ctest -L KIND` runs one kind (docs/RELIABILITY.md, "Running one kind of test"):
#   unit      GoogleTest cases that need no server and take well under two seconds
#   postgres  cases that need the PostgreSQL server of scripts/with-postgres.sh (DW_TEST_PG_URL);
#             without it they skip
#   slow      cases that start many processes, kill writers or wait out faults: two seconds or
#             more each in a Release build on two cores
#   scenario  the replays of examples/scenarios/ (labelled where CMakeLists.txt adds them)
# A case run once per state-store backend carries the backend in its name; the suites below test
# PostgreSQL only or start processes, and a new one of either kind belongs in these lists.
set(dw_postgres_suites PostgresStoreFaultsTest ReplicaLeasesTest WatchReplicasTest
  StorePostgresTest StorePostgresServerTest WatchHistoryPruneTest)
set(dw_slow_suites CrashDecisionWritersTest CrashWritersTest CrashTest ReceiptCrashTest
  WatchFaultsTest DependencyFaultsTest WatchReplicasTest NotifyKillTest PostgresStoreFaultsTest
  ReplicaLeasesTest ApprovalPropertyTest ExitCodesTest)
foreach(dw_test IN LISTS dw_tests_TESTS)
  # "Prefix/Suite.Case/param  # GetParam() = ..." or "Suite.Case".
  string(REGEX REPLACE "^([^/.]*/)?([^./]+)\\..*$" "\\2" dw_suite "${dw_test}")
  set(dw_labels "")
  list(FIND dw_postgres_suites "${dw_suite}" dw_postgres_at)
  if("${dw_test}" MATCHES "[Pp]ostgre" OR dw_postgres_at GREATER -1)
    list(APPEND dw_labels postgres)
  endif()
  list(FIND dw_slow_suites "${dw_suite}" dw_slow_at)
  if(dw_slow_at GREATER -1)
    list(APPEND dw_labels slow)
  endif()
  if(NOT dw_labels)
    set(dw_labels unit)
  endif()
  set_tests_properties("${dw_test}" PROPERTIES LABELS "${dw_labels}")
endforeach()
