# One line per test binary:
#   ropecheck_test(NAME LABEL label SOURCES ... LIBS ... [TIMEOUT s] [OWN_MAIN] [RAPIDCHECK])
# Tests are discovered per gtest case so ctest -L / -R select them and
# GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX split a binary across machines.
# OWN_MAIN: the sources define main() (tests registered at run time).
# RAPIDCHECK: runs with a fixed RapidCheck seed so CI is deterministic; run
# the binary with RC_PARAMS="seed=N max_success=M" to explore further.
set(ROPECHECK_RC_PARAMS "seed=20261121" CACHE STRING "RC_PARAMS for the property tests under ctest")
function(ropecheck_test name)
  cmake_parse_arguments(T "OWN_MAIN;RAPIDCHECK" "LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest)
  if(NOT T_OWN_MAIN)
    target_link_libraries(${name} PRIVATE GTest::gtest_main)
  endif()
  set(env "")
  if(T_RAPIDCHECK)
    target_link_libraries(${name} PRIVATE rapidcheck)
    set(env ENVIRONMENT "RC_PARAMS=${ROPECHECK_RC_PARAMS}")
  endif()
  ropecheck_warnings(${name})
  gtest_discover_tests(${name}
    PROPERTIES LABELS "${T_LABEL}" TIMEOUT ${T_TIMEOUT} ${env}
    DISCOVERY_TIMEOUT 60)
endfunction()
