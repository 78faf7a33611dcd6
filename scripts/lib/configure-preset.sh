# Sourced: klms_configure_preset PRESET configures build/PRESET with CMakePresets.json.
# The presets use Ninja; a tree configured before with another generator (Unix Makefiles, before
# the presets named one) is reconfigured from scratch instead of stopping at CMake's "generator does
# not match" error. Its objects are recompiled, through ccache where it is set up.
klms_configure_preset() {
  local preset=$1 dir=build/$1
  if [[ -f "$dir/CMakeCache.txt" ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$dir/CMakeCache.txt"; then
    echo "note: $dir was configured with another generator; configuring it again with Ninja" >&2
    rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
  fi
  cmake --preset "$preset" >/dev/null
}
