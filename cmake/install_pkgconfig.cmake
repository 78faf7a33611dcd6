# Run by `cmake --install` (cmake/install.cmake): writes <libdir>/pkgconfig/klms.pc for this install
# run's prefix (CMAKE_INSTALL_PREFIX here is the prefix being installed into; DESTDIR is honoured
# by file(INSTALL)). Paths under the prefix are written relative to ${prefix}, so
# `pkg-config --define-prefix` can move them.
function(klms_pc_path out dir)
  if(IS_ABSOLUTE "${dir}")
    cmake_path(IS_PREFIX CMAKE_INSTALL_PREFIX "${dir}" NORMALIZE _under)
    if(_under)
      file(RELATIVE_PATH _rel "${CMAKE_INSTALL_PREFIX}" "${dir}")
      set(${out} "\${prefix}/${_rel}" PARENT_SCOPE)
    else()
      set(${out} "${dir}" PARENT_SCOPE)
    endif()
  else()
    set(${out} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

set(KLMS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
klms_pc_path(KLMS_PC_INCLUDEDIR "${KLMS_INSTALL_INCLUDEDIR}")
klms_pc_path(KLMS_PC_MODULESDIR "${KLMS_INSTALL_MODULESDIR}")
if(IS_ABSOLUTE "${KLMS_INSTALL_LIBDIR}")
  set(_libdir "${KLMS_INSTALL_LIBDIR}")
else()
  set(_libdir "${CMAKE_INSTALL_PREFIX}/${KLMS_INSTALL_LIBDIR}")
endif()
set(_out "${KLMS_BINARY_DIR}/pkgconfig-install")
configure_file("${KLMS_SOURCE_DIR}/cmake/klms.pc.in" "${_out}/klms.pc" @ONLY)
file(INSTALL "${_out}/klms.pc" DESTINATION "${_libdir}/pkgconfig" FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
