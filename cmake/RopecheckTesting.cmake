# SPDX-License-Identifier: MIT
# One line per test binary:
#   ropecheck_test(NAME LABEL label SOURCES ... LIBS ... [TIMEOUT s] [OWN_MAIN] [RAPIDCHECK] [WHOLE [COST s]])
# Tests are discovered per gtest case so ctest -L / -R select them and
# GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX split a binary across machines.
# WHOLE: the binary is one ctest instead, for cases that share work done
# once per process (shard_test's gate runs): a case per process would
# redo it for each.
# COST (WHOLE only): its seconds, so ctest -j starts it among the first
# (python/CMakeLists.txt, frameworks, says why).
# OWN_MAIN: the sources define main() (tests registered at run time).
# RAPIDCHECK: runs with a fixed RapidCheck seed so CI is deterministic; run
# the binary with RC_PARAMS="seed=N max_success=M" to explore further.
set(ROPECHECK_RC_PARAMS "seed=20261121" CACHE STRING "RC_PARAMS for the property tests under ctest")
# The debug preset (-O0, ASan and UBSan) runs the same tests several times
# slower than release: MutantCatalogue.EachMutantFailsTheGateThroughItsProperties
# took 164 s in release and passed 600 s under the sanitizers. The tests of
# ropecheck_test have their timeouts scaled by this factor; an add_test of a
# script multiplies its own (ropecheck_scaled_timeout).
if(CMAKE_BUILD_TYPE STREQUAL "Debug")
  set(_ropecheck_timeout_scale 5)
else()
  set(_ropecheck_timeout_scale 1)
endif()
set(ROPECHECK_TEST_TIMEOUT_SCALE ${_ropecheck_timeout_scale} CACHE STRING "Factor on every test's TIMEOUT")
function(ropecheck_test name)
  cmake_parse_arguments(T "OWN_MAIN;RAPIDCHECK;WHOLE" "LABEL;TIMEOUT;COST" "SOURCES;LIBS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  math(EXPR T_TIMEOUT "${T_TIMEOUT} * ${ROPECHECK_TEST_TIMEOUT_SCALE}")
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
  ropecheck_unity(${name})  # GoogleTest's and RapidCheck's headers, once per batch
  if(T_WHOLE)
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES LABELS "${T_LABEL}" TIMEOUT ${T_TIMEOUT} ${env})
    if(T_COST)
      set_tests_properties(${name} PROPERTIES COST ${T_COST})
    endif()
    return()
  endif()
  gtest_discover_tests(${name}
    PROPERTIES LABELS "${T_LABEL}" TIMEOUT ${T_TIMEOUT} ${env}
    DISCOVERY_TIMEOUT 60)
endfunction()


# seconds * ROPECHECK_TEST_TIMEOUT_SCALE into `var`, for set_tests_properties.
function(ropecheck_scaled_timeout var seconds)
  math(EXPR t "${seconds} * ${ROPECHECK_TEST_TIMEOUT_SCALE}")
  set(${var} ${t} PARENT_SCOPE)
endfunction()

# A sanitized build's Python module (the debug preset) is loaded into an
# uninstrumented interpreter: ASan's runtime must then be loaded first
# (LD_PRELOAD), with libstdc++ right after it (the interpreter does not link
# it, and ASan's __cxa_throw interceptor finds no real one otherwise: "CHECK
# failed ... real___cxa_throw"); the interpreter's own allocations at exit
# are not this project's leaks. Appended to the ENVIRONMENT of every test
# that imports the module.
set(ROPECHECK_PYTHON_SANITIZER_ENV "")
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so OUTPUT_VARIABLE _ropecheck_asan
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so OUTPUT_VARIABLE _ropecheck_stdcxx
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  get_filename_component(_ropecheck_stdcxx "${_ropecheck_stdcxx}" REALPATH)
  if(IS_ABSOLUTE "${_ropecheck_asan}" AND EXISTS "${_ropecheck_asan}")  # GCC's shared runtime; clang links its own
    set(ROPECHECK_PYTHON_SANITIZER_ENV ";LD_PRELOAD=${_ropecheck_asan}:${_ropecheck_stdcxx};ASAN_OPTIONS=detect_leaks=0")
  endif()
endif()

# Under ASan a kernel's malloc of more than ASan supports ends its process
# (exit 1) instead of returning NULL: the misbehaving plugins that test the
# memory limit (null_after_alloc) need malloc to fail as it does unsanitized.
set(ROPECHECK_PLUGIN_SANITIZER_ENV "")
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=[^ ]*address")
  set(ROPECHECK_PLUGIN_SANITIZER_ENV "ASAN_OPTIONS=allocator_may_return_null=1")
endif()
