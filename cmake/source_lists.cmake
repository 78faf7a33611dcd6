# Sources are listed by hand in every CMakeLists.txt (a glob builds whatever happens to lie in a
# folder). The cost of a list is a file someone forgets to add, which for a test means a test that
# silently never runs; klms_require_listed turns that into a configure error.
#   klms_require_listed(<folder> <extension> <listed sources...>)
function(klms_require_listed folder extension)
  file(GLOB present RELATIVE ${folder} ${folder}/*.${extension})
  set(listed)
  foreach(src IN LISTS ARGN)
    get_filename_component(name ${src} NAME)
    list(APPEND listed ${name})
  endforeach()
  foreach(name IN LISTS present)
    if(NOT name IN_LIST listed)
      message(FATAL_ERROR "${folder}/${name} is not listed in its CMakeLists.txt")
    endif()
  endforeach()
endfunction()
