# Every C++ and CUDA file of the tree is formatted by .clang-format (the golden headers that
# sparseperm-gen must write byte for byte aside); the check first makes sure it catches a file that
# is not. cmake -DCLANG_FORMAT=<clang-format> -DSOURCE_DIR=<tree> -DWORK=<scratch> -P check_format.cmake
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/planted.cpp "int  planted( int x ){return x*2;}\n")
configure_file(${SOURCE_DIR}/.clang-format ${WORK}/.clang-format COPYONLY)
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${WORK}/planted.cpp RESULT_VARIABLE planted
                OUTPUT_QUIET ERROR_QUIET)
if(planted EQUAL 0)
  message(FATAL_ERROR "the format check let an unformatted file through (${CLANG_FORMAT})")
endif()
file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
     ${SOURCE_DIR}/include/*.cuh ${SOURCE_DIR}/tools/*.cpp ${SOURCE_DIR}/tools/*.hpp ${SOURCE_DIR}/tools/*.cu
     ${SOURCE_DIR}/tests/*.cpp ${SOURCE_DIR}/tests/*.hpp ${SOURCE_DIR}/tests/*.cu ${SOURCE_DIR}/tests/*.cuh
     ${SOURCE_DIR}/examples/*.cpp ${SOURCE_DIR}/examples/*.cu)
list(FILTER files EXCLUDE REGEX "^tests/tools/golden/")
set(unformatted)
foreach(file IN LISTS files)
  execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${file} WORKING_DIRECTORY ${SOURCE_DIR}
                  RESULT_VARIABLE result OUTPUT_QUIET ERROR_VARIABLE errors)
  if(NOT result EQUAL 0)
    list(APPEND unformatted ${file})
  endif()
endforeach()
list(LENGTH files count)
if(unformatted)
  string(REPLACE ";" "\n  " shown "${unformatted}")
  message(FATAL_ERROR "not formatted by .clang-format (clang-format -i FILE):\n  ${shown}")
endif()
message(STATUS "format: ${count} files formatted by .clang-format, and an unformatted one caught")
