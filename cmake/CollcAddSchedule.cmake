# collc_add_schedule(<target> MACHINE <spec> REQUEST <request>
#                    [NAME <name>] [SIZES exact|any] [FALLBACK]
#                    [OPTIONS <collc options>...])
#
# Compiles the collective <request> for the machine <spec> with collc and adds
# the generated MPI source (and its header) to <target>. The sources are
# regenerated at build time whenever the spec, the request or collc changes.
#
#   NAME     suffix of the entry points collc_<collective>_<name>; default: the
#            request file's name (letters, digits and _ kept, others become _)
#   SIZES    exact (default): the schedule serves the size it was built for;
#            any: every size
#   FALLBACK calls that no schedule fits run the MPI library's collective
#            instead of returning an error
#   OPTIONS  more collc options, e.g. --algorithm binomial --bytes 65536
#
# The header <name>.h (declarations) is on <target>'s include path. <target>
# must link an MPI (e.g. MPI::MPI_CXX); the generated code needs C++17.
function(collc_add_schedule target)
  cmake_parse_arguments(ARG "FALLBACK" "MACHINE;REQUEST;NAME;SIZES" "OPTIONS" ${ARGN})
  if(NOT ARG_MACHINE OR NOT ARG_REQUEST)
    message(FATAL_ERROR "collc_add_schedule(${target}): MACHINE and REQUEST are required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "collc_add_schedule(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(machine "${ARG_MACHINE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(request "${ARG_REQUEST}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(ARG_NAME)
    set(name "${ARG_NAME}")
  else()
    get_filename_component(name "${request}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${name}" name)
  endif()
  set(sizes exact)
  if(ARG_SIZES)
    set(sizes "${ARG_SIZES}")
  endif()
  set(extra ${ARG_OPTIONS})
  if(ARG_FALLBACK)
    list(APPEND extra --mpi-fallback)
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/collc")
  set(cpp "${dir}/${name}.cpp")
  set(hdr "${dir}/${name}.h")
  set(common --machine "${machine}" --request "${request}" --mpi-name "${name}"
             --mpi-sizes "${sizes}" ${extra})
  add_custom_command(
    OUTPUT "${cpp}" "${hdr}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
    COMMAND collc::collc ${common} --emit mpi -o "${cpp}"
    COMMAND collc::collc ${common} --emit mpi-header -o "${hdr}"
    DEPENDS "${machine}" "${request}" collc::collc
    COMMENT "collc: compiling ${ARG_REQUEST} for ${ARG_MACHINE}"
    VERBATIM)
  target_sources(${target} PRIVATE "${cpp}" "${hdr}")
  target_include_directories(${target} PRIVATE "${dir}")
  target_link_libraries(${target} PRIVATE collc::runtime)
  target_compile_features(${target} PRIVATE cxx_std_17)
endfunction()
