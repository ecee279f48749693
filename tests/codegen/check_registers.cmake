# Compiles a generated kernel module for sm_90 with ptxas' resource report and fails on any stack
# frame or spill: register residency is the point of the generated engines.
#   cmake -DNVCC=... -DINCLUDE_DIR=... -DTOOL=<sparseperm> -DGEN=<sparseperm-gen> -DWORK=... -DN=40 -DDENSITY=0.3
#         -DSEED=1 -DVALUES=uniform -DENGINE=hybrid -DPRECISION=exact -DARCH=90 -P check_registers.cmake
# PRECISION: a sparseperm::precision (automatic when not given).
if(NOT PRECISION)
  set(PRECISION automatic)
endif()
file(MAKE_DIRECTORY ${WORK})
set(stem "n${N}_p${DENSITY}_${VALUES}_${ENGINE}_${PRECISION}")
string(REPLACE ":" "_" stem "${stem}")
execute_process(COMMAND ${TOOL} generate --n ${N} --density ${DENSITY} --seed ${SEED} --values ${VALUES} -o ${WORK}/${stem}.mtx
                RESULT_VARIABLE result)
if(result)
  message(FATAL_ERROR "generate failed")
endif()
execute_process(COMMAND ${GEN} ${WORK}/${stem}.mtx --name input -o ${WORK}/${stem}.cuh RESULT_VARIABLE result)
if(result)
  message(FATAL_ERROR "sparseperm-gen failed")
endif()
file(WRITE ${WORK}/${stem}.cu
     "#include <sparseperm/module/kernel_module.cuh>\n#include <sparseperm/engines/gpu_${ENGINE}.cuh>\n"
     "#include \"${stem}.cuh\"\n"
     "SPARSEPERM_MODULE_PRECISION(sparseperm::engines::gpu_${ENGINE}, sparseperm::generated::input::matrix, "
     "sparseperm::precision::${PRECISION})\n")
execute_process(COMMAND ${NVCC} -std=c++20 -cubin -arch=sm_${ARCH} -I${INCLUDE_DIR} -I${WORK} -Xptxas -v
                        -o ${WORK}/${stem}.cubin ${WORK}/${stem}.cu
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result)
  message(FATAL_ERROR "nvcc failed:\n${output}")
endif()
string(REGEX MATCHALL "([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads" frames "${output}")
string(REGEX MATCH "Used ([0-9]+) registers" used "${output}")
if(NOT frames)
  message(FATAL_ERROR "no ptxas resource report in:\n${output}")
endif()
foreach(frame IN LISTS frames)
  if(NOT frame MATCHES "^0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads$")
    message(FATAL_ERROR "${stem}: ${frame} (${used}): x must stay in registers\n${output}")
  endif()
endforeach()
message("${stem}: ${used}, no stack frame, no spills")
