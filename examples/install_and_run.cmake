# SPDX-License-Identifier: MIT
# ctest driver for projects that consume an installed ropecheck: install the
# build tree into a scratch prefix, configure and build SOURCE_DIR against it
# with find_package, then run RUN ("|"-separated arguments, <work> standing
# for WORK_DIR) and, when EXPECT is set, require its output to match it.
# Arguments: BUILD_DIR, SOURCE_DIR, WORK_DIR, RUN, [EXPECT], and the parent's
# CXX_FLAGS / LINK_FLAGS (a sanitizer build's libraries need the consumer
# instrumented the same way).
file(REMOVE_RECURSE "${WORK_DIR}")
string(REPLACE "<work>" "${WORK_DIR}" run "${RUN}")
string(REPLACE "|" ";" run "${run}")
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD_DIR};--prefix;${WORK_DIR}/prefix"
    "${CMAKE_COMMAND};-S;${SOURCE_DIR};-B;${WORK_DIR}/build;-G;Ninja;-DCMAKE_BUILD_TYPE=Release;-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix;-DCMAKE_CXX_FLAGS=${CXX_FLAGS};-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS};-DCMAKE_MODULE_LINKER_FLAGS=${LINK_FLAGS}"
    "${CMAKE_COMMAND};--build;${WORK_DIR}/build"
    "${run}")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${step}\n${out}\n${err}")
  endif()
endforeach()
if(EXPECT AND NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "output does not match '${EXPECT}':\n${out}")
endif()
message(STATUS "${out}")
