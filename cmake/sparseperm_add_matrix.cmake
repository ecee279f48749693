# sparseperm_add_matrix(TARGET FILE.mtx [NAME name])
#
# Generates, at build time, the header of the matrix in FILE.mtx (sparseperm-gen) and makes it
# available to TARGET as "NAME.cuh", declaring sparseperm::generated::NAME::matrix. NAME defaults to
# the file's stem made into a C identifier. The header is regenerated when the file changes.
function(sparseperm_add_matrix target file)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "NAME" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "sparseperm_add_matrix: unexpected arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET sparseperm::gen)
    message(FATAL_ERROR "sparseperm_add_matrix: the sparseperm::gen tool is not available (find_package(sparseperm) first)")
  endif()
  get_filename_component(file "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(arg_NAME)
    set(name "${arg_NAME}")
  else()
    get_filename_component(stem "${file}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${stem}" name)
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/sparseperm_matrices/${target}")
  set(header "${dir}/${name}.cuh")
  add_custom_command(OUTPUT "${header}"
                     COMMAND ${CMAKE_COMMAND} -E make_directory "${dir}"
                     COMMAND sparseperm::gen "${file}" --name "${name}" -o "${header}"
                     DEPENDS "${file}" sparseperm::gen
                     COMMENT "sparseperm-gen: ${file} -> ${name}.cuh"
                     VERBATIM)
  target_sources(${target} PRIVATE "${header}")
  target_include_directories(${target} PRIVATE "${dir}")
endfunction()
