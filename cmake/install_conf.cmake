# Run by `cmake --install` (cmake/install.cmake): writes <datadir>/klms/klms-provider.cnf (the
# snippet users .include) and <datadir>/klms/klms.cnf (system configuration + snippet, for
# OPENSSL_CONF) with the absolute paths of this installation. Neither is under /etc on purpose: they
# are not edited (settings go into the including openssl.cnf), and when the package is removed the
# .include line left in openssl.cnf names a missing file, which OpenSSL ignores. CMAKE_INSTALL_PREFIX is the prefix of
# this install run; DESTDIR is honoured by file(INSTALL).
function(klms_under_prefix out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_INSTALL_PREFIX}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

klms_under_prefix(_modulesdir "${KLMS_INSTALL_MODULESDIR}")
klms_under_prefix(_datadir "${KLMS_INSTALL_DATADIR}")

set(KLMS_MODULE_PATH "${_modulesdir}/klms.so")
set(KLMS_PROVIDER_CNF "${_datadir}/klms/klms-provider.cnf")
set(KLMS_PROGRAM_CNF "${_datadir}/klms/klms.cnf")
set(_out "${KLMS_BINARY_DIR}/conf-install")
configure_file("${KLMS_SOURCE_DIR}/conf/klms-provider.cnf.in" "${_out}/klms-provider.cnf" @ONLY)
configure_file("${KLMS_SOURCE_DIR}/conf/klms-program.cnf.in" "${_out}/klms.cnf" @ONLY)
file(INSTALL "${_out}/klms-provider.cnf" DESTINATION "${_datadir}/klms" FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
file(INSTALL "${_out}/klms.cnf" DESTINATION "${_datadir}/klms" FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
