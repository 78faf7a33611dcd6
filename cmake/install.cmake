# Install rules beyond the targets' own (klms.so in provider/, the tools in tools/, the manual pages
# in man/): the configuration files, the documentation and the C example. Every destination is under
# CMAKE_INSTALL_PREFIX (GNUInstallDirs).

# The system configuration that the per-program configuration includes first (Debian:
# /usr/lib/ssl/openssl.cnf, a link to /etc/ssl/openssl.cnf).
find_program(KLMS_OPENSSL_PROGRAM openssl)
set(_klms_system_cnf /etc/ssl/openssl.cnf)
if(KLMS_OPENSSL_PROGRAM)
  execute_process(COMMAND ${KLMS_OPENSSL_PROGRAM} version -d OUTPUT_VARIABLE _d OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_d MATCHES "^OPENSSLDIR: \"(.*)\"$" AND EXISTS "${CMAKE_MATCH_1}/openssl.cnf")
    file(REAL_PATH "${CMAKE_MATCH_1}/openssl.cnf" _klms_system_cnf)
  endif()
endif()
set(KLMS_SYSTEM_OPENSSL_CNF "${_klms_system_cnf}" CACHE FILEPATH
    "The system's openssl.cnf, included by the installed <datadir>/klms/klms.cnf")

# The two configuration files name absolute paths (the module, each other), so they are written at
# install time, from the prefix `cmake --install [--prefix]` installs into.
install(CODE "
  set(KLMS_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
  set(KLMS_BINARY_DIR \"${PROJECT_BINARY_DIR}\")
  set(KLMS_INSTALL_MODULESDIR \"${KLMS_INSTALL_MODULESDIR}\")
  set(KLMS_INSTALL_DATADIR \"${CMAKE_INSTALL_DATADIR}\")
  set(KLMS_SYSTEM_OPENSSL_CNF \"${KLMS_SYSTEM_OPENSSL_CNF}\")
  include(\"${PROJECT_SOURCE_DIR}/cmake/install_conf.cmake\")
")

install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES examples/klms_sign.c DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(DIRECTORY examples/firmware DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)  # docs/firmware.md
