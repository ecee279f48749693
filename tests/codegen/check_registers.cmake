# Compiles a generated matrix's kernels for sm_90, one per engine in one nvcc run, with ptxas' resource
# report, and fails on any stack frame or spill: register residency is the point of the generated
# engines.
#   cmake -DNVCC=... -DINCLUDE_DIR=... -DTOOL=<sparseperm> -DGEN=<sparseperm-gen> -DWORK=... -DN=40 -DDENSITY=0.3
#         -DSEED=1 -DVALUES=uniform -DENGINES=purereg,hybrid,cached -DPRECISION=exact -DARCH=90 -P check_registers.cmake
# PRECISION: a sparseperm::precision (automatic when not given). MAX_FRAME: the bytes of stack frame and
# of spills allowed (0 when not given; double-double's split rows fill every register and leave a few
# temporaries in a small frame, where x itself in a frame takes hundreds). Each kernel is the module's
# (SPARSEPERM_MODULE_KERNEL, which SPARSEPERM_MODULE_PRECISION defines), named after its engine.
if(NOT PRECISION)
  set(PRECISION automatic)
endif()
string(REPLACE "," ";" engines "${ENGINES}")
file(MAKE_DIRECTORY ${WORK})
set(stem "n${N}_p${DENSITY}_${VALUES}_${PRECISION}")
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
set(source "#include <sparseperm/module/kernel_module.cuh>\n")
foreach(engine IN LISTS engines)
  string(APPEND source "#include <sparseperm/engines/gpu_${engine}.cuh>\n")
endforeach()
string(APPEND source "#include \"${stem}.cuh\"\n")
foreach(engine IN LISTS engines)
  string(APPEND source "SPARSEPERM_MODULE_KERNEL(${engine}_kernel, sparseperm::engines::gpu_${engine}, "
                       "sparseperm::generated::input::matrix, sparseperm::precision::${PRECISION})\n")
endforeach()
file(WRITE ${WORK}/${stem}.cu "${source}")
execute_process(COMMAND ${NVCC} -std=c++20 -cubin -arch=sm_${ARCH} -I${INCLUDE_DIR} -I${WORK} -Xptxas -v
                        -o ${WORK}/${stem}.cubin ${WORK}/${stem}.cu
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result)
  message(FATAL_ERROR "nvcc failed:\n${output}")
endif()
# ptxas reports each function: "Function properties for NAME", its frame and spills, then for an
# entry "Used R registers".
set(report)
foreach(engine IN LISTS engines)
  string(REGEX MATCH "Function properties for ${engine}_kernel\n[^\n]*([0-9]+ bytes stack frame[^\n]*)\n[^\n]*Used ([0-9]+) registers"
         properties "${output}")
  if(NOT properties)
    message(FATAL_ERROR "${stem}: no ptxas resource report for ${engine}_kernel in:\n${output}")
  endif()
  string(APPEND report " ${engine} ${CMAKE_MATCH_2} registers;")
endforeach()
if(NOT MAX_FRAME)
  set(MAX_FRAME 0)
endif()
string(REGEX MATCHALL "([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads" frames "${output}")
foreach(frame IN LISTS frames)
  string(REGEX MATCH "^([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads$" parts "${frame}")
  if(CMAKE_MATCH_1 GREATER MAX_FRAME OR CMAKE_MATCH_2 GREATER MAX_FRAME OR CMAKE_MATCH_3 GREATER MAX_FRAME)
    message(FATAL_ERROR "${stem}: ${frame} (at most ${MAX_FRAME} bytes each): x must stay in registers\n${output}")
  endif()
endforeach()
if(MAX_FRAME EQUAL 0)
  message("${stem}:${report} no stack frame, no spills")
else()
  message("${stem}:${report} frames and spills within ${MAX_FRAME} bytes")
endif()
