# SPDX-License-Identifier: MIT
# One line per library: ropecheck_library(<short> SOURCES ... [PUBLIC ...]
# [PRIVATE ...]) defines ropecheck_<short> with the alias and export name
# ropecheck::<short>. In the tree every header is included by its path from
# the repository root ("core/cases/cases.h"); installed, the same paths live under
# <prefix>/include/ropecheck (cmake/RopecheckInstall.cmake).
#
# Unity build (ROPECHECK_UNITY, on by default): a library's files compile in
# batches of ROPECHECK_UNITY_BATCH per translation unit, so a heavy header
# (CLI11, nlohmann-json, Boost.Multiprecision, GoogleTest's) is parsed and its
# inline code generated once per batch instead of once per file: README's
# first command on a fresh 2-core machine (#34; bench/RESULTS.md, "README's
# first command in under 4 minutes"). CMake leaves out of the batches every file with its own
# COMPILE_OPTIONS (the -ffp-contract=off files) and every file marked
# SKIP_UNITY_BUILD_INCLUSION (Highway's self-including dispatch files).
# NO_UNITY: a library whose files each define the same names on purpose
# (a kernel per file, each with the plugin template's kCaps and apply).
# -DROPECHECK_UNITY=OFF compiles file by file (a header that lacks an include
# shows only there).
function(ropecheck_library short)
  cmake_parse_arguments(L "NO_UNITY" "" "SOURCES;PUBLIC;PRIVATE" ${ARGN})
  set(name ropecheck_${short})
  add_library(${name} STATIC ${L_SOURCES})
  add_library(ropecheck::${short} ALIAS ${name})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${short})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:include/ropecheck>)
  target_link_libraries(${name} PUBLIC ropecheck_abi ${L_PUBLIC} PRIVATE ${L_PRIVATE})
  ropecheck_warnings(${name})
  if(NOT L_NO_UNITY)
    ropecheck_unity(${name})
  endif()
endfunction()

function(ropecheck_unity target)
  if(ROPECHECK_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${ROPECHECK_UNITY_BATCH})
  endif()
endfunction()

# Code that runs a few times per command (argument parsing, file formats,
# the golden exporter's writing and reading, the gate's orchestration and
# report writers) compiles at -O1 in Release:
# its template-heavy code (CLI11, nlohmann-json) compiled 35-40% faster than
# at -O3 (cli 33.7 -> 21.3 s, golden 36.4 -> 22.4 s of CPU per unity batch,
# bench/RESULTS.md), and nothing per element runs in it: the judge, the
# reference and the kernels stay at -O3.
function(ropecheck_cold target)
  target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-O1>)
endfunction()
