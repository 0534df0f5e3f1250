# Finds libwebsockets for ap_server (the thread server, HTTP/SSE and
# WebSocket): included by the build (runtime/CMakeLists.txt) and, installed,
# by a consumer's find_package(cddlgen), so both link the same way: through
# pkg-config's libwebsockets. Defines the imported target
# cddlgen::libwebsockets when it is found, and nothing, quietly, when not.
if(NOT TARGET cddlgen::libwebsockets)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(APS_LWS QUIET IMPORTED_TARGET GLOBAL libwebsockets)
  endif()
  if(APS_LWS_FOUND)
    add_library(cddlgen::libwebsockets INTERFACE IMPORTED GLOBAL)
    set_target_properties(cddlgen::libwebsockets PROPERTIES INTERFACE_LINK_LIBRARIES PkgConfig::APS_LWS)
  endif()
endif()
