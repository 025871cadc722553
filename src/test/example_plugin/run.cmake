# ctest driver for examples/plugin, as the README's "Check your kernel" walks
# a user through it: install ropecheck into a scratch prefix, build the
# example plugin against it with find_package, and gate it with the installed
# `ropecheck check --plugin`. Arguments: BUILD_DIR, SOURCE_DIR (the example),
# WORK_DIR, and the parent's CXX_FLAGS / LINK_FLAGS (sanitizer builds).
file(REMOVE_RECURSE "${WORK_DIR}")
set(plugin "${WORK_DIR}/build/my_rope.so")
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD_DIR};--prefix;${WORK_DIR}/prefix"
    "${CMAKE_COMMAND};-S;${SOURCE_DIR};-B;${WORK_DIR}/build;-G;Ninja;-DCMAKE_BUILD_TYPE=Release;-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix;-DCMAKE_CXX_FLAGS=${CXX_FLAGS};-DCMAKE_MODULE_LINKER_FLAGS=${LINK_FLAGS}"
    "${CMAKE_COMMAND};--build;${WORK_DIR}/build"
    "${WORK_DIR}/prefix/bin/ropecheck;check;--plugin;${plugin};--quiet")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${step}\n${out}\n${err}")
  endif()
endforeach()
string(REGEX MATCH "\\| my_rope \\| ConformsToReference \\|[^\n]*" row "${out}")
message(STATUS "example plugin: ${row}")
if(NOT out MATCHES "Overall: PASS")
  message(FATAL_ERROR "the example plugin did not pass the gate:\n${out}")
endif()
