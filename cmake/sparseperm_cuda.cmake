# CUDA setup: enabled only when a toolkit is present, architecture 90 by default, C++20 for nvcc.
#
# Sets SPARSEPERM_HAS_CUDA. Facts this works around (measured on CMake 3.25 and nvcc 13):
#  - CMAKE_CUDA_ARCHITECTURES=native is a hard error without a GPU, so default to 90 when unset;
#  - CMake 3.25.1 does not know how to pass C++20 to nvcc (CUDA_STANDARD 20 fails at generate time),
#    so tell it the flag after enable_language(CUDA).
include(CheckLanguage)
option(SPARSEPERM_ENABLE_CUDA "Build the CUDA parts when a CUDA toolkit is found" ON)
set(SPARSEPERM_HAS_CUDA OFF)
if(SPARSEPERM_ENABLE_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
    set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures (default: sm_90, Hopper)")
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    set(SPARSEPERM_HAS_CUDA ON)
    if(CMAKE_VERSION VERSION_LESS 3.26 AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
  else()
    message(STATUS "sparseperm: no CUDA compiler found; building the host parts only")
  endif()
endif()

# GPU programs of the tests and examples. Where CMake finds no GPU (nvidia-smi lists none), a CUDA
# program's device code is still compiled (nvcc's front end and device compiler, then ptxas for each
# architecture), but not its host code, and its tests report a skip: such a program could not run,
# and its host pass was half of its build (gpu_random_0: 176 s, the device code alone 97 s).
#
#   sparseperm_add_gpu_program(NAME SOURCE...)    an executable, or the device code of one
#   sparseperm_add_gpu_test(TEST NAME [ARGS...])  a test of it, label gpu, skipped (77) without a device
if(SPARSEPERM_HAS_CUDA AND NOT DEFINED SPARSEPERM_GPU_PROGRAMS)
  set(gpu_found OFF)
  find_program(SPARSEPERM_NVIDIA_SMI nvidia-smi)
  if(SPARSEPERM_NVIDIA_SMI)
    execute_process(COMMAND ${SPARSEPERM_NVIDIA_SMI} -L OUTPUT_VARIABLE gpus ERROR_QUIET RESULT_VARIABLE smi_result)
    if(smi_result EQUAL 0 AND gpus MATCHES "(^|\n)GPU ")
      set(gpu_found ON)
    endif()
  endif()
  set(SPARSEPERM_GPU_PROGRAMS ${gpu_found} CACHE BOOL
      "Build the GPU test and example programs (OFF: their device code only; default: whether a GPU is present)")
endif()
if(SPARSEPERM_HAS_CUDA AND NOT SPARSEPERM_GPU_PROGRAMS)
  message(STATUS "sparseperm: no GPU found: the GPU test programs compile their device code only and skip")
endif()

function(sparseperm_add_gpu_program name)
  if(SPARSEPERM_GPU_PROGRAMS)
    add_executable(${name} ${ARGN})
    return()
  endif()
  add_library(${name} OBJECT ${ARGN})
  set_target_properties(${name} PROPERTIES CUDA_PTX_COMPILATION ON)
  # ptxas on the PTX, as an executable's build would run it (resources, limits)
  set(cubins)
  foreach(architecture IN LISTS CMAKE_CUDA_ARCHITECTURES)
    string(REGEX REPLACE "-.*" "" architecture "${architecture}")
    set(cubin ${CMAKE_CURRENT_BINARY_DIR}/${name}_sm_${architecture}.cubin)
    add_custom_command(OUTPUT ${cubin}
                       COMMAND ${CMAKE_CUDA_COMPILER} --cubin -arch=sm_${architecture} $<TARGET_OBJECTS:${name}> -o ${cubin}
                       DEPENDS ${name} $<TARGET_OBJECTS:${name}>
                       COMMENT "ptxas for ${name} (sm_${architecture})" VERBATIM)
    list(APPEND cubins ${cubin})
  endforeach()
  add_custom_target(${name}_sass ALL DEPENDS ${cubins})
endfunction()

function(sparseperm_add_gpu_test test name)
  if(SPARSEPERM_GPU_PROGRAMS)
    add_test(NAME ${test} COMMAND ${name} ${ARGN})
  else()
    add_test(NAME ${test} COMMAND sh -c "echo 'skipped: built without a GPU (SPARSEPERM_GPU_PROGRAMS=OFF): device code only'; exit 77")
  endif()
  set_tests_properties(${test} PROPERTIES SKIP_RETURN_CODE 77)
  set_property(TEST ${test} APPEND PROPERTY LABELS gpu)
endfunction()
