# Run after dw_tests is linked (`cmake -P`, a POST_BUILD step of CMakeLists.txt): lists the
# GoogleTest cases of TEST_EXECUTABLE and writes OUT, the CTest file that adds them, one entry per
# group of cases that run in one process.
#
# Why groups: every process of an instrumented dw_tests pays about 0.35 s before its first case
# (relocating a 350 MB binary, registering its globals with ASan, LeakSanitizer's scan at exit),
# so one entry per case spent a third of the sanitized suite starting processes. Cases that start
# many processes, kill writers or wait out faults (the slow suites below) keep an entry each, so
# the two cores share them; every other suite is one entry per suite and state-store backend.
# Each entry writes its cases' results to RESULTS_DIR/<entry>.xml, from which scripts/test.sh
# counts cases, not entries.
#
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
  ReplicaLeasesTest ApprovalPropertyTest ExitCodesTest ReplayNotifyTest)
# The PostgreSQL restart test crashes and restarts the one throwaway server every PostgreSQL test
# of the run shares (scripts/with-postgres.sh): run in parallel with them, it fails their
# statements in flight. RUN_SERIAL keeps it alone.
set(dw_serial_tests
  PostgresStoreFaultsTest.ARestartUnderLoadFailsTheWritesInFlightClearlyAndLosesNothingCommitted)

foreach(required TEST_EXECUTABLE OUT TIMEOUT RESULTS_DIR WORKING_DIRECTORY)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "test_groups.cmake: -D ${required}=... is missing")
  endif()
endforeach()

execute_process(COMMAND "${TEST_EXECUTABLE}" --gtest_list_tests
  WORKING_DIRECTORY "${WORKING_DIRECTORY}" TIMEOUT 120
  RESULT_VARIABLE listed OUTPUT_VARIABLE listing ERROR_VARIABLE listing_err)
if(NOT listed EQUAL 0)
  message(FATAL_ERROR "test_groups.cmake: ${TEST_EXECUTABLE} --gtest_list_tests failed (${listed}): "
    "${listing_err}")
endif()

# The listing: "Suite." (or "Prefix/Suite." for instantiated suites) on its own line, then each
# case indented, with "  # GetParam() = ..." after a parameterised one. Brackets in names would
# break CMake's list handling; GoogleTest names cannot hold them.
string(REPLACE ";" "," listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suite "")
set(groups "")
set(singles "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #][^ ]*)\\.$")
    set(suite "${CMAKE_MATCH_1}")
  elseif(suite AND line MATCHES "^  ([^ ]+)")
    set(case "${CMAKE_MATCH_1}")
    set(name "${suite}.${case}")
    string(REGEX REPLACE "^([^/]*/)?([^/]+)$" "\\2" bare_suite "${suite}")
    # The backend a case is instantiated for ("/sqlite", "/postgresql"), kept apart so that
    # `ctest -L postgres` and `-L unit` each get their own.
    set(backend "")
    if(case MATCHES "/(sqlite|postgres|postgresql)(_[^/]*)?$")
      set(backend "${CMAKE_MATCH_1}")
    endif()
    set(labels "")
    list(FIND dw_postgres_suites "${bare_suite}" postgres_at)
    if(backend MATCHES "^postgres" OR postgres_at GREATER -1 OR name MATCHES "Postgres")
      list(APPEND labels postgres)
    endif()
    list(FIND dw_slow_suites "${bare_suite}" slow_at)
    if(slow_at GREATER -1)
      list(APPEND labels slow)
    endif()
    if(NOT labels)
      set(labels unit)
    endif()
    list(FIND dw_serial_tests "${name}" serial_at)
    if(slow_at GREATER -1 OR serial_at GREATER -1)
      list(APPEND singles "${name}")
      set("labels_${name}" "${labels}")
    else()
      set(group "${suite}")
      if(backend)
        set(group "${suite}/${backend}")
      endif()
      if(NOT DEFINED "cases_${group}")
        list(APPEND groups "${group}")
        set("cases_${group}" "")
        set("labels_${group}" "")
      endif()
      list(APPEND "cases_${group}" "${name}")
      # One case that needs the server makes its group need it.
      list(APPEND "labels_${group}" ${labels})
      list(REMOVE_DUPLICATES "labels_${group}")
      list(FIND "labels_${group}" postgres postgres_at)
      if(postgres_at GREATER -1)
        list(REMOVE_ITEM "labels_${group}" unit)
      endif()
    endif()
  endif()
endforeach()

list(LENGTH singles singles_count)
list(LENGTH groups groups_count)
if(singles_count EQUAL 0 AND groups_count EQUAL 0)
  message(FATAL_ERROR "test_groups.cmake: ${TEST_EXECUTABLE} lists no tests")
endif()

set(script "# Written by cmake/test_groups.cmake from ${TEST_EXECUTABLE} --gtest_list_tests.\n")
# Adds one entry. The slow cases come first: without a previous run's times CTest starts entries
# in the order they were added, and a long one started last would end the suite alone.
# CTest's SKIP_REGULAR_EXPRESSION wins over the exit code, so it must never match the output of a
# run in which a case failed: an entry of one case is skipped when GoogleTest says that case was
# ("[  SKIPPED ] 1 test", which a failing run of one case never prints). An entry of several cases
# has none: one whose cases all skip (no PostgreSQL server) passes, and the test command counts
# its skipped cases from the XML.
function(dw_add_entry entry filter labels skip_regex)
  string(REGEX REPLACE "[^A-Za-z0-9_.-]" "_" xml "${entry}")
  set(skip "")
  if(skip_regex)
    set(skip " SKIP_REGULAR_EXPRESSION [==[${skip_regex}]==]")
  endif()
  string(APPEND script
    "add_test([==[${entry}]==] [==[${TEST_EXECUTABLE}]==] [==[--gtest_filter=${filter}]==] "
    "[==[--gtest_output=xml:${RESULTS_DIR}/${xml}.xml]==])\n"
    "set_tests_properties([==[${entry}]==] PROPERTIES WORKING_DIRECTORY [==[${WORKING_DIRECTORY}]==] "
    "TIMEOUT ${TIMEOUT} LABELS [==[${labels}]==]${skip})\n")
  set(script "${script}" PARENT_SCOPE)
endfunction()
foreach(name IN LISTS singles)
  dw_add_entry("${name}" "${name}" "${labels_${name}}" "\\[  SKIPPED \\] 1 test")
  list(FIND dw_serial_tests "${name}" serial_at)
  if(serial_at GREATER -1)
    string(APPEND script "set_tests_properties([==[${name}]==] PROPERTIES RUN_SERIAL TRUE)\n")
  endif()
endforeach()
# At most this many cases in one entry: a long parameterised suite (66 cases of 3 s each under
# the sanitizers) would otherwise be one process that ends the suite alone.
set(dw_group_cases 12)
foreach(group IN LISTS groups)
  list(LENGTH "cases_${group}" count)
  math(EXPR parts "(${count} + ${dw_group_cases} - 1) / ${dw_group_cases}")
  math(EXPR last_part "${parts} - 1")
  foreach(part RANGE ${last_part})
    math(EXPR first "${part} * ${dw_group_cases}")
    list(SUBLIST "cases_${group}" ${first} ${dw_group_cases} chunk)
    list(JOIN chunk ":" filter)
    set(entry "${group}")
    if(parts GREATER 1)
      math(EXPR number "${part} + 1")
      set(entry "${group}.part${number}")
    endif()
    if(NOT parts GREATER 1 AND count EQUAL 1)
      dw_add_entry("${entry}" "${filter}" "${labels_${group}}" "\\[  SKIPPED \\] 1 test")
    else()
      dw_add_entry("${entry}" "${filter}" "${labels_${group}}" "")
    endif()
  endforeach()
endforeach()
file(WRITE "${OUT}" "${script}")
