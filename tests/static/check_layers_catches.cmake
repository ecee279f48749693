# check_layers.cmake must fail on each kind of violation planted in a copy of the headers, naming it:
#   an upward include         numeric/arithmetic.cuh includes engines/catalog.cuh
#   a sibling family          dp/dp.cuh includes ryser/gray_code.cuh
#   an engine's tag in a tag  engines/gpu_glynn.cuh includes engines/glynn.cuh
#   an algorithm in engines/  a function of 200 lines appended to engines/glynn.cuh
#   Boost outside hana.cuh    dp/dp.cuh includes <boost/hana.hpp>
# cmake -DINCLUDE_DIR=<include> -DWORK=<scratch folder> -P check_layers_catches.cmake
function(expect_caught what file appended expected)
  file(REMOVE_RECURSE ${WORK})
  file(COPY ${INCLUDE_DIR}/sparseperm DESTINATION ${WORK})
  file(APPEND ${WORK}/sparseperm/${file} "${appended}")
  execute_process(COMMAND ${CMAKE_COMMAND} -DINCLUDE_DIR=${WORK} -P ${CMAKE_CURRENT_LIST_DIR}/check_layers.cmake
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  file(REMOVE_RECURSE ${WORK})
  string(REGEX REPLACE "[ \n]+" " " output "${output}")
  if(result EQUAL 0 OR NOT output MATCHES "${expected}")
    message(FATAL_ERROR "the layer check let ${what} through:\n${output}")
  endif()
  message(STATUS "the layer check caught ${what}")
endfunction()

expect_caught("an upward include" numeric/arithmetic.cuh "#include \"../engines/catalog.cuh\"\n"
              "numeric/arithmetic.cuh: includes engines/catalog.cuh, a higher layer")
expect_caught("a sibling family's include" dp/dp.cuh "#include \"../ryser/gray_code.cuh\"\n"
              "dp/dp.cuh: includes ryser/gray_code.cuh, a sibling family")
expect_caught("a tag that includes another tag" engines/gpu_glynn.cuh "#include \"glynn.cuh\"\n"
              "engines/gpu_glynn.cuh: includes engines/glynn.cuh, another engine's tag")
string(REPEAT "  total += term * 3 + 1;\n" 200 body)
expect_caught("an algorithm in engines/" engines/glynn.cuh
              "namespace sparseperm { inline int planted(int term) {\n  int total = 0;\n${body}  return total;\n} }\n"
              "engines/glynn.cuh: [0-9]+ lines; an engine's header is a tag of at most 150 lines")
expect_caught("Boost outside hana.cuh" dp/dp.cuh "#include <boost/hana.hpp>\n"
              "dp/dp.cuh: includes Boost, which only hana.cuh may")
