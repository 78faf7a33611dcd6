# Sourced. The presets (CMakePresets.json) and scripts/test-openssl.sh build with Ninja; a tree
# configured before with another generator (Unix Makefiles, before the presets named one) is
# configured again from scratch instead of stopping at CMake's "generator does not match" error.
# Its objects are recompiled, through ccache where it is set up.

# klms_forget_other_generator DIR: drops DIR's CMake cache when another generator made it.
klms_forget_other_generator() {
  local dir=$1
  if [[ -f "$dir/CMakeCache.txt" ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$dir/CMakeCache.txt"; then
    echo "note: $dir was configured with another generator; configuring it again with Ninja" >&2
    rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
  fi
}

# klms_configure_preset PRESET: configures build/PRESET.
klms_configure_preset() {
  klms_forget_other_generator "build/$1"
  cmake --preset "$1" >/dev/null
}
