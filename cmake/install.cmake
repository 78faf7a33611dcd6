# Install rules beyond the targets' own (klms.so in provider/, the tools in tools/, the manual pages
# in man/): the configuration files, the documentation, the C example and the developer's kit. Every destination is under
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

# <docdir> (/usr/share/doc/klms): the documentation for the package's users, in the tree's layout so
# the README's links hold. A page ships only when listed: the maintainers' index (docs/README.md),
# the project's review files (docs/clang-tidy-findings.txt) and the developers' workflow
# (docs/development.md) do not; a new page is added here when it is for users. test/recipes/install.t checks the list.
set(KLMS_USER_DOCS usage.md state-file-guide.md errors.md formats.md package.md install.md
    openssl-versions.md performance.md backup.md firmware.md developer-kit.md threat-model.md state.md
    design.md params.md tandem-dm.md primitives.md xmss.md pkcs11.md)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
foreach(page IN LISTS KLMS_USER_DOCS)
  if(EXISTS "${PROJECT_SOURCE_DIR}/docs/${page}")
    install(FILES "docs/${page}" DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
  endif()
endforeach()
install(DIRECTORY docs/study DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(FILES examples/klms_sign.c DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(DIRECTORY examples/firmware DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)  # docs/firmware.md

# The developer's kit (docs/developer-kit.md): <klms/klms.h> and klms.pc. The .pc names absolute
# paths (the module's directory), so like the configuration files it is written at install time,
# for the prefix `cmake --install [--prefix]` installs into. In <libdir>: modulesdir is per
# architecture.
install(FILES include/klms/klms.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/klms)
install(CODE "
  set(KLMS_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
  set(KLMS_BINARY_DIR \"${PROJECT_BINARY_DIR}\")
  set(KLMS_VERSION \"${PROJECT_VERSION}\")
  set(KLMS_INSTALL_MODULESDIR \"${KLMS_INSTALL_MODULESDIR}\")
  set(KLMS_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(KLMS_INSTALL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  include(\"${PROJECT_SOURCE_DIR}/cmake/install_pkgconfig.cmake\")
")
