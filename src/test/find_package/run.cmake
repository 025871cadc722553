# ctest driver: install the build tree into a scratch prefix, then configure,
# build and run the consumer against it. Arguments: BUILD_DIR, SOURCE_DIR,
# WORK_DIR, and the parent's CXX_FLAGS / LINK_FLAGS (a sanitizer build's
# libraries need the consumer instrumented the same way).
file(REMOVE_RECURSE "${WORK_DIR}")
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD_DIR};--prefix;${WORK_DIR}/prefix"
    "${CMAKE_COMMAND};-S;${SOURCE_DIR};-B;${WORK_DIR}/build;-G;Ninja;-DCMAKE_BUILD_TYPE=Release;-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix;-DCMAKE_CXX_FLAGS=${CXX_FLAGS};-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}"
    "${CMAKE_COMMAND};--build;${WORK_DIR}/build"
    "${WORK_DIR}/build/consumer")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${step}\n${out}\n${err}")
  endif()
endforeach()
message(STATUS "${out}")
