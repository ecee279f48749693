# Test helpers.
#
#   sparseperm_add_fail_test(NAME SOURCE)
#       SOURCE must not compile; its first line reads `// expect: <regular expression>` and the
#       compiler's output must match it (so a file that fails for another reason fails the test).
#   sparseperm_cuda_copy(OUT SOURCE)
#       a .cu copy of a C++ source, so the same static tests are also compiled by nvcc for sm_90.

function(sparseperm_add_fail_test name source)
  file(STRINGS ${source} first_line LIMIT_COUNT 1)
  if(NOT first_line MATCHES "^// expect: (.+)$")
    message(FATAL_ERROR "${source}: the first line must be '// expect: <regex>'")
  endif()
  set(expected "${CMAKE_MATCH_1}")
  add_library(${name} OBJECT EXCLUDE_FROM_ALL ${source})
  target_link_libraries(${name} PRIVATE sparseperm::sparseperm)
  add_test(NAME fail.${name}
           COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target ${name} --config $<CONFIG>)
  set_tests_properties(fail.${name} PROPERTIES PASS_REGULAR_EXPRESSION "${expected}" LABELS "fail")
endfunction()

function(sparseperm_cuda_copy out source)
  get_filename_component(stem ${source} NAME_WE)
  set(copy ${CMAKE_CURRENT_BINARY_DIR}/cuda/${stem}.cu)
  configure_file(${source} ${copy} COPYONLY)
  set(${out} ${copy} PARENT_SCOPE)
endfunction()
