# One line per test binary: ropecheck_test(NAME LABEL label SOURCES ... LIBS ...).
# Tests are discovered per gtest case so ctest -L / -R select them and
# GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX split a binary across machines.
function(ropecheck_test name)
  cmake_parse_arguments(T "" "LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  ropecheck_warnings(${name})
  gtest_discover_tests(${name}
    PROPERTIES LABELS "${T_LABEL}" TIMEOUT ${T_TIMEOUT}
    DISCOVERY_TIMEOUT 60)
endfunction()
