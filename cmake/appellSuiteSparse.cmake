# CHOLMOD and UMFPACK (SuiteSparse) as the imported targets appell::cholmod and appell::umfpack.
#
# SuiteSparse 5 (Debian 12) ships no CMake package, so the libraries and the header folder are found
# by name. Used by appell's own build and, installed next to appellConfig.cmake, by every project
# that calls find_package(appell): the static library's link interface names these targets.
#
# Sets appell_SuiteSparse_FOUND (TRUE when both targets exist afterwards).

if(TARGET appell::cholmod AND TARGET appell::umfpack)
  set(appell_SuiteSparse_FOUND TRUE)
  return()
endif()

find_path(APPELL_SUITESPARSE_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse
  DOC "folder of cholmod.h and umfpack.h (SuiteSparse)")
find_library(APPELL_CHOLMOD_LIBRARY cholmod DOC "the CHOLMOD library (SuiteSparse)")
find_library(APPELL_UMFPACK_LIBRARY umfpack DOC "the UMFPACK library (SuiteSparse)")
mark_as_advanced(APPELL_SUITESPARSE_INCLUDE_DIR APPELL_CHOLMOD_LIBRARY APPELL_UMFPACK_LIBRARY)

if(APPELL_SUITESPARSE_INCLUDE_DIR AND APPELL_CHOLMOD_LIBRARY AND APPELL_UMFPACK_LIBRARY)
  set(appell_SuiteSparse_FOUND TRUE)
  foreach(_appell_ss cholmod umfpack)
    if(NOT TARGET appell::${_appell_ss})
      string(TOUPPER ${_appell_ss} _appell_ss_upper)
      add_library(appell::${_appell_ss} UNKNOWN IMPORTED)
      set_target_properties(appell::${_appell_ss} PROPERTIES
        IMPORTED_LOCATION "${APPELL_${_appell_ss_upper}_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${APPELL_SUITESPARSE_INCLUDE_DIR}")
    endif()
  endforeach()
  unset(_appell_ss)
  unset(_appell_ss_upper)
else()
  set(appell_SuiteSparse_FOUND FALSE)
endif()
