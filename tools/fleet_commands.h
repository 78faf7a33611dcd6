// klms-state's fleet commands (docs/fleet.md): join gives a host its own state file for an etcd
// fleet key; leave removes the host's record.
#pragma once

namespace klms::tools {

int join_command(int argc, char** argv);
int leave_command(int argc, char** argv);

}  // namespace klms::tools
