# SPDX-License-Identifier: MIT
# Warnings for ropecheck's own targets. -Wfloat-equal is an error: an exact
# comparison of floats is either a bug or deliberate, and deliberate ones go
# through ropecheck/float_compare.h.
function(ropecheck_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Werror=float-equal>
      $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${ROPECHECK_WERROR}>>:-Werror>)
  endif()
  # GCC 12 reports -Wrestrict on std::string operator+ at -O3 (GCC PR 105329,
  # a false positive inside libstdc++).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
  endif()
endfunction()
