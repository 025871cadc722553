# SPDX-License-Identifier: MIT
# Whether this machine shows a CUDA device, asked at configure time without
# the CUDA toolkit: the driver's device nodes (/dev/nvidia0, ...) or
# `nvidia-smi -L` listing a GPU. Used by ROPECHECK_CUDA_ONLY_WITH_DEVICE.
function(ropecheck_cuda_device_visible out)
  set(found OFF)
  file(GLOB nodes /dev/nvidia[0-9]*)
  if(nodes)
    set(found ON)
  else()
    find_program(NVIDIA_SMI nvidia-smi)
    if(NVIDIA_SMI)
      execute_process(COMMAND ${NVIDIA_SMI} -L RESULT_VARIABLE rc OUTPUT_VARIABLE listed ERROR_QUIET TIMEOUT 20)
      if(rc EQUAL 0 AND listed MATCHES "GPU [0-9]")
        set(found ON)
      endif()
    endif()
  endif()
  set(${out} ${found} PARENT_SCOPE)
endfunction()
