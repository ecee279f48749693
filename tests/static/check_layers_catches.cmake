# check_layers.cmake must fail on an upward include: a copy of the headers where numeric/arithmetic.cuh
# includes engines/catalog.cuh is checked, and the check must name that include.
# cmake -DINCLUDE_DIR=<include> -DWORK=<scratch folder> -P check_layers_catches.cmake
file(REMOVE_RECURSE ${WORK})
file(COPY ${INCLUDE_DIR}/sparseperm DESTINATION ${WORK})
file(APPEND ${WORK}/sparseperm/numeric/arithmetic.cuh "#include \"../engines/catalog.cuh\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DINCLUDE_DIR=${WORK} -P ${CMAKE_CURRENT_LIST_DIR}/check_layers.cmake
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
file(REMOVE_RECURSE ${WORK})
string(REGEX REPLACE "[ \n]+" " " output "${output}")
if(result EQUAL 0 OR NOT output MATCHES "numeric/arithmetic.cuh: includes engines/catalog.cuh, a higher layer")
  message(FATAL_ERROR "the layer check let an upward include through:\n${output}")
endif()
message(STATUS "the layer check caught numeric/arithmetic.cuh -> engines/catalog.cuh")
