# Finds hiredis for aps_redis (the replay log on Redis Streams): included by
# the build (runtime/CMakeLists.txt) and, installed, by a consumer's
# find_package(cddlgen), so both link the same way. pkg-config's hiredis
# first (APS_HIREDIS_FOUND), else the header and the library on the usual
# paths (the cache variables APS_HIREDIS_INCLUDE and APS_HIREDIS_LIBRARY may
# name them). Hiredis's own CMake files are not used: 0.14 defines no target
# and fails when no version is asked for, 1.x names its target differently.
# Defines the imported target cddlgen::hiredis when hiredis is found, and
# nothing, quietly, when it is not.
if(NOT TARGET cddlgen::hiredis)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(APS_HIREDIS QUIET IMPORTED_TARGET hiredis)
  endif()
  if(APS_HIREDIS_FOUND)
    add_library(cddlgen::hiredis INTERFACE IMPORTED)
    set_target_properties(cddlgen::hiredis PROPERTIES INTERFACE_LINK_LIBRARIES PkgConfig::APS_HIREDIS)
  else()
    find_path(APS_HIREDIS_INCLUDE hiredis/hiredis.h)
    find_library(APS_HIREDIS_LIBRARY hiredis)
    if(APS_HIREDIS_INCLUDE AND APS_HIREDIS_LIBRARY)
      add_library(cddlgen::hiredis UNKNOWN IMPORTED)
      set_target_properties(cddlgen::hiredis PROPERTIES IMPORTED_LOCATION ${APS_HIREDIS_LIBRARY}
        INTERFACE_INCLUDE_DIRECTORIES ${APS_HIREDIS_INCLUDE})
    endif()
  endif()
endif()
